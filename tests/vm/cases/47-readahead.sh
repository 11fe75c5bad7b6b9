# examples/readahead: lake_readahead over a disk-like device (a sparse RAM
# disk under lake_slow, the demo's latency): probes attached by name, the
# windows in the registry and its exporter, bad weight files refused whole,
# a sequential reader raises the readahead and a random one lowers it (the
# shipped model's decisions, in the log and the kernel log; random reads
# right after a stream keep its readahead), the GPU side on
# laked's host device picks what the CPU picks, laked killed mid-run leaves
# the CPU deciding, and the readahead the device had comes back on remove
# and on rmmod. The reads in flight are counted per bio on the dm device
# and per request on a blk-mq one (an NVMe drive), and come back to 0; a
# partition and its disk are never managed together; a hostile laked's
# class out of range is refused; two readers of the exporter get every
# record once each. lakelib and lakeshm end with nothing in flight or
# allocated.
. /lib/lake/vmlib.sh
dbg=/sys/kernel/debug/lake
ra=$dbg/readahead
pol=$dbg/policy/readahead
fw=/lib/firmware/readahead
dev=/dev/mapper/ra0
WIN_MS=250

loaded() { grep -q "^$1 " /proc/modules; }
ours=""
kmod() { loaded "$1" || { insmod $M/kernel/$2.ko $3 && ours="$1 $ours"; }; }
st() { sed -n "s/^$1 //p" $ra/status; }
dev_st() { sed -n "s/^dev .* $1 \([0-9]*\) .*/\1/p" $ra/status; }
ra_now() { cat "/sys/block/$blk/queue/read_ahead_kb"; }
dev_inflight() { sed -n "s/^dev $1 .* inflight \([0-9-]*\) .*/\1/p" $ra/status; }
# Two windows, the time for a decision to land.
settle() { _ms=$((WIN_MS * 2)); sleep "$((_ms / 1000)).$(printf %03d $((_ms % 1000)))"; }
# col NAME MAJ:MIN FILE: the exporter's column NAME (found by its header) for a device.
col() {
	awk -F, -v c="$1" -v m="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		k && $2 == m { print $k }' "$3"
}
# max_ok NAME MAJ:MIN FILE: the column seen above 0 and always below its cap (1000).
max_ok() { col "$@" | awk 'BEGIN { m = -1 } $1 > m { m = $1 } END { exit !(m > 0 && m < 1000) }'; }
# rate_on_seq MAJ:MIN FILE: a sequential window (seq 1000) with a rate above 0.
rate_on_seq() {
	awk -F, -v m="$1" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "seq") s = i; if ($i == "rate") r = i }; next }
		s && r && $2 == m && $s == 1000 && $r > 0 { ok = 1 } END { exit !ok }' "$2"
}
# No line twice, and the shorter file the longer one's beginning.
once_each() {
	[ -z "$(sort "$1" | uniq -d)" ] && [ -z "$(sort "$2" | uniq -d)" ] || return 1
	_l=$(wc -l < "$1")
	[ "$(wc -l < "$2")" -lt "$_l" ] && _l=$(wc -l < "$2")
	[ "$_l" -gt 8 ] && [ "$(head -n "$_l" "$1")" = "$(head -n "$_l" "$2")" ]
}
ctl_ok() { echo "$1" > $ra/ctl; }
# reader KIND SECONDS: buffered reads from a cold cache, as the demo's phases.
reader() {
	case $1 in
	seq) _o="--rw=read --bs=128k --ioengine=psync --size=256m" ;;
	random) _o="--rw=randread --bs=4k --ioengine=mmap --fadvise_hint=0" ;;
	esac
	echo 3 > /proc/sys/vm/drop_caches
	# shellcheck disable=SC2086
	fio --name=r --filename=$dev --readonly --direct=0 $_o \
		--time_based --runtime="$2" --minimal > /dev/null 2>&1
}
# ra_after KIND SECONDS: the readahead (KiB) after a reader's last window.
ra_after() {
	reader "$1" "$2"
	settle
	ra_now
}

kmod dm_mod dm-mod
kmod brd brd "rd_nr=1 rd_size=1048576"
check ra.insmod_lake sh -c "insmod $M/lakeshm.ko size_mib=16 && insmod $M/lakelib.ko timeout_ms=3000"
check ra.insmod_slow insmod $M/lake_slowdisk.ko slow_us=2000 slow_pct=100 only_index=0 us_per_mib=10000
check ra.dm sh -c "dmsetup create ra0 --table \"0 \$(blockdev --getsz /dev/ram0) lake_slow /dev/ram0 0\" && dmsetup mknodes"
blk=$(dmsetup info -c --noheadings -o blkdevname ra0)
def=$(ra_now)
echo "# readahead: $blk, default ${def} KiB"

# Bad files: refused whole, the reason logged, the model kept.
cp $fw/readahead.lkra /tmp/good.lkra
head -c 50 /tmp/good.lkra > $fw/short.lkra
cp /tmp/good.lkra $fw/flip.lkra
printf 'Z' | dd of=$fw/flip.lkra bs=1 seek=100 conv=notrunc 2> /dev/null
refuse ra.insmod_bad_weights insmod $M/lake_readahead.ko weights=readahead/flip.lkra
check ra.bad_weights_reason sh -c "dmesg | grep -q 'flip.lkra refused: bad checksum'"
check ra.insmod insmod $M/lake_readahead.ko window_ms=$WIN_MS
check ra.probes_attached grep -qx 'probes 6' $ra/status
check ra.model_loaded grep -qx 'model readahead/readahead.lkra' $ra/status
refuse ra.short_refused ctl_ok "model readahead/short.lkra"
check ra.short_reason sh -c "dmesg | grep -q 'short.lkra refused: truncated header'"
refuse ra.missing_refused ctl_ok "model readahead/none.lkra"
refuse ra.bad_command_refused ctl_ok "frobnicate"
refuse ra.add_not_a_device ctl_ok "add /tmp/good.lkra"
check ra.model_kept grep -qx 'model readahead/readahead.lkra' $ra/status

# The device managed: features recorded, the model's decisions applied.
check ra.add ctl_ok "add $dev"
refuse ra.add_twice_refused ctl_ok "add $dev"
check ra.cpu_mode sh -c "echo cpu > $pol/mode"
exec 3< $ra/trace 4< $ra/trace 5< $ra/trace
hi=$(ra_after seq 700ms)
check ra.seq_raises [ "$hi" -gt "$def" ]
check ra.seq_logged sh -c "grep -q ' $def -> [0-9]* KiB class [0-9]* cpu' $ra/log"
check ra.seq_kernel_log sh -c "dmesg | grep -q 'lake_readahead: $blk: readahead $def -> '"
# Random reads right after the stream: the stream is still among the last
# RA_HISTORY (8) windows, so its readahead stays (the mixed phase's choice);
# once it has left them, the readahead comes down.
mid=$(ra_after random 1)
check ra.random_after_stream_keeps [ "$mid" = "$hi" ]
lo=$(ra_after random 2)
check ra.random_lowers [ "$lo" -lt "$hi" ]
echo "# readahead: $def -> $hi -> $mid -> $lo KiB; $(grep '^dev ' $ra/status)"
check ra.inflight_idle_bio sh -c "[ $(dev_inflight $blk) = 0 ]"
majmin=$(sed -n 's/^dev [^ ]* \([0-9:]*\) .*/\1/p' $ra/status)
cat <&3 > /tmp/ra-trace.csv
dd bs=37 <&4 > /tmp/ra-trace4.csv 2> /dev/null
cat <&5 > /tmp/ra-trace5.csv
exec 4<&- 5<&-
check ra.exporter_once_each once_each /tmp/ra-trace.csv /tmp/ra-trace4.csv
check ra.exporter_two_readers once_each /tmp/ra-trace4.csv /tmp/ra-trace5.csv
check ra.trace_inflight_plausible max_ok inflight "$majmin" /tmp/ra-trace.csv
check ra.trace_rate_on_seq rate_on_seq "$majmin" /tmp/ra-trace.csv
check ra.trace_header grep -qx 'ts_ns,dev,label,pages,seq,stride,gap_mean,gap_std,run_len,rate,inflight,ra,recent' /tmp/ra-trace.csv
check ra.features_recorded sh -c "[ \$(grep -c '^[0-9]*,$majmin,65535,' /tmp/ra-trace.csv) -ge 8 ]"
# A sequential window's inputs: every page in a long run.
check ra.features_sequential grep -q "^[0-9]*,$majmin,65535,[0-9]*,1000," /tmp/ra-trace.csv
check ra.registry_counts sh -c "grep -q 'committed' $dbg/registry/readahead"

# The GPU side on laked's host device: every GPU batch checked against the CPU.
laked --device=host >> /tmp/laked-ra.log 2>&1 &
pid=$!
check ra.laked wait_for 10 registered
echo 1 > /sys/module/lake_readahead/parameters/verify_gpu
check ra.gpu_mode sh -c "echo gpu > $pol/mode"
g0=$(st gpu_batches)
reader seq 700ms
check ra.gpu_batches sh -c "[ $(st gpu_batches) -gt $g0 ]"
check ra.gpu_verified sh -c "[ $(st gpu_verified) -gt 0 ]"
check ra.gpu_agrees_with_cpu grep -qx 'gpu_mismatches 0' $ra/status
check ra.gpu_logged grep -q ' gpu$' $ra/log
check ra.starts_at_crossover_16 grep -qx 'crossover_override 16' $pol/status
check ra.calibrate ctl_ok calibrate
check ra.calibrated grep -qx 'crossover_override 0' $pol/status
echo "# readahead: calibrated on laked's host device: $(grep '^crossover_calibrated' $pol/status)"

# laked killed in a run: the GPU call fails, the CPU decides, nothing waits.
reader random 700ms &
rd=$!
sleep 0.4
kill -9 $pid
wait $pid 2> /dev/null
c0=$(st cpu_batches)
wait $rd
settle
check ra.cpu_after_kill sh -c "[ $(st cpu_batches) -gt $c0 ]"
check ra.status_after_kill timeout 5 cat $ra/status
check ra.reason_no_daemon grep -q 'no_daemon' $pol/status

# A blk-mq disk: reads counted per request, back to 0 when idle. With one
# partition (an MBR entry: LBA 2048, 8192 sectors): a partition and its disk
# share one bdi, so only one of them is managed at a time.
nv=/dev/nvme0n1
insmod_nvme() {
	for m in $(cat $M/kernel/nvme.order); do
		kmod "$(echo "$m" | tr - _)" "$m" || return 1
	done
}
mbr() {
	dd if=/dev/zero of=$nv bs=512 count=1 2> /dev/null || return 1
	[ "$1" = none ] || {
		printf '\203' | dd of=$nv bs=1 seek=450 conv=notrunc 2> /dev/null
		printf '\010' | dd of=$nv bs=1 seek=455 conv=notrunc 2> /dev/null
		printf ' ' | dd of=$nv bs=1 seek=459 conv=notrunc 2> /dev/null
		printf 'U\252' | dd of=$nv bs=1 seek=510 conv=notrunc 2> /dev/null
	}
	blockdev --rereadpt $nv
}
nvme_read() {
	echo 3 > /proc/sys/vm/drop_caches
	dd if=$nv of=/dev/null bs=64k 2> /dev/null
}
# The first GPU batch may fail on the old laked's context (stale handles)
# and the policy back off: read on until a batch meets the forged class.
forged_seen() {
	nvme_read && dmesg | grep -q 'lake_readahead: GPU batch refused: class 255 of'
}
check ra.insmod_nvme insmod_nvme
check ra.nvme_drive wait_for 5 [ -b $nv ]
check ra.nvme_mbr mbr one
check ra.nvme_p1 wait_for 5 [ -b ${nv}p1 ]
check ra.nvme_add ctl_ok "add $nv"
refuse ra.partition_of_managed_refused ctl_ok "add ${nv}p1"
check ra.partition_refused_logged sh -c "dmesg | grep -q 'nvme0n1p1: its disk nvme0n1 is already managed'"
nvmm=$(sed -n 's/^dev nvme0n1 \([0-9:]*\) .*/\1/p' $ra/status)
exec 6< $ra/trace
# A hostile laked: its kernel answers class 255 (readahead.cu built with
# RA_FORGE_CLASS, tests/vm/raforge.mk), while the NVMe drive is read. The
# batches are refused, counted as GPU failures and decided on the CPU.
mkdir -p /tmp/raforge
cp /usr/lib/lake/kernels/readahead_forge.so /tmp/raforge/readahead.so
laked --device=host --module-dir=/tmp/raforge >> /tmp/laked-ra.log 2>&1 &
pid=$!
check ra.forged_laked wait_for 10 registered
echo 0 > /sys/module/lake_readahead/parameters/verify_gpu
f0=$(st gpu_failures) c0=$(st cpu_batches) b0=$(st gpu_batches)
check ra.nvme_reads nvme_read
check ra.forged_logged wait_for 5 forged_seen
settle
check ra.forged_class_refused sh -c "[ $(st gpu_failures) -gt $f0 ] && [ $(st gpu_batches) = $b0 ]"
check ra.forged_cpu_decides sh -c "[ $(st cpu_batches) -gt $c0 ]"
kill $pid
wait $pid 2> /dev/null
check ra.forged_laked_gone wait_for 10 unregistered
check ra.inflight_idle_mq sh -c "[ $(dev_inflight nvme0n1) = 0 ]"
cat <&6 > /tmp/ra-nvme.csv
exec 6<&-
check ra.trace_inflight_mq max_ok inflight "$nvmm" /tmp/ra-nvme.csv
echo "# readahead: nvme inflight column $(col inflight "$nvmm" /tmp/ra-nvme.csv | sort -n | tail -n 1) at most"
check ra.nvme_remove ctl_ok "remove $nv"
check ra.partition_add ctl_ok "add ${nv}p1"
refuse ra.disk_of_partition_refused ctl_ok "add $nv"
check ra.partition_remove ctl_ok "remove ${nv}p1"
check ra.nvme_mbr_wiped mbr none

# Removal puts the readahead back, by command and by rmmod.
check ra.remove ctl_ok "remove $dev"
check ra.remove_restores sh -c "[ $(ra_now) = $def ]"
refuse ra.remove_twice_refused ctl_ok "remove $dev"
check ra.add_again ctl_ok "add $dev"
reader seq 700ms
settle
check ra.changed_before_rmmod sh -c "[ $(ra_now) != $def ]"
exec 3<&-
check ra.rmmod rmmod lake_readahead
check ra.rmmod_restores sh -c "[ $(ra_now) = $def ]"
check ra.debugfs_gone [ ! -e $ra ]
check ra.policy_gone [ ! -e $pol ]
check ra.nothing_in_flight [ "$(stat_of in_flight)" = 0 ]
check ra.shm_allocs_zero [ "$(shm_of live_allocs)" = 0 ]
dmsetup remove ra0
rm -f $fw/short.lkra $fw/flip.lkra
check ra.rmmod_lake sh -c "rmmod lake_slowdisk && rmmod lakelib && rmmod lakeshm"
for m in $ours; do rmmod "$m"; done
