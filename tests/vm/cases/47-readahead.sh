# examples/readahead: lake_readahead over a disk-like device (a sparse RAM
# disk under lake_slow, the demo's latency): probes attached by name, the
# windows in the registry and its exporter, bad weight files refused whole,
# a sequential reader raises the readahead and a random one lowers it (the
# shipped model's decisions, in the log and the kernel log; random reads
# right after a stream keep its readahead), the GPU side on
# laked's host device picks what the CPU picks, laked killed mid-run leaves
# the CPU deciding, and the readahead the device had comes back on remove
# and on rmmod. lakelib and lakeshm end with nothing in flight or allocated.
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
	sleep 0.$((WIN_MS * 2 / 100))
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
check ra.probes_attached grep -qx 'probes 3' $ra/status
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
exec 3< $ra/trace
hi=$(ra_after seq 1)
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
majmin=$(sed -n 's/^dev [^ ]* \([0-9:]*\) .*/\1/p' $ra/status)
cat <&3 > /tmp/ra-trace.csv
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
reader random 1 &
rd=$!
sleep 0.4
kill -9 $pid
wait $pid 2> /dev/null
c0=$(st cpu_batches)
wait $rd
sleep 0.$((WIN_MS * 2 / 100))
check ra.cpu_after_kill sh -c "[ $(st cpu_batches) -gt $c0 ]"
check ra.status_after_kill timeout 5 cat $ra/status
check ra.reason_no_daemon grep -q 'no_daemon' $pol/status

# Removal puts the readahead back, by command and by rmmod.
check ra.remove ctl_ok "remove $dev"
check ra.remove_restores sh -c "[ $(ra_now) = $def ]"
refuse ra.remove_twice_refused ctl_ok "remove $dev"
check ra.add_again ctl_ok "add $dev"
reader seq 700ms
sleep 0.$((WIN_MS * 2 / 100))
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
