# examples/linnos, the replica layer: a read that fails on one replica is
# served by the other; a write that fails on one leg fails that leg (status,
# an event, no reads there), and succeeds on the other; pending counts are
# per leg even when both legs are one device; reads are split into 4 KiB
# pieces; fio's verified data and the two replicas stay equal through mode
# changes and laked's death.
. /lib/lake/vmlib.sh
dbg=/sys/kernel/debug/lake
fw=linnos
S=32768	# 16 MiB

loaded() { grep -q "^$1 " /proc/modules; }
mk() { dmsetup create "$@" && dmsetup mknodes; }
st_of() { dmsetup status lin | tr ' ' '\n' | grep -A1 -x "$1" | tail -n 1; }
st_is() { [ "$(st_of "$1")" = "$2" ]; }
st_gt() { [ "$(st_of "$1")" -gt "$2" ]; }
events() { dmsetup info lin | sed -n 's/^Event number: *//p'; }
pending_zero() { grep -qx 'pending 0 0' $dbg/linnos/lin/status; }
# Devices read direct (each 64 KiB read split by the target); files not (6.1's tmpfs has no O_DIRECT).
sum_of() {
	_d=
	[ -b "$1" ] && _d=iflag=direct
	dd if="$1" bs=64k count=${2:-256} $_d 2> /dev/null | md5sum | cut -d' ' -f1
}
fio_ok() { grep -q 'err= 0' /tmp/fio.out && ! grep -q 'err= *[1-9]' /tmp/fio.out; }
start_laked() {
	laked --device=host >> /tmp/laked.log 2>&1 &
	pid=$!
	wait_for 5 registered
}

# The LinnOS case may have left dm-mod and brd loaded (16 MiB disks, as here).
insmod_all() {
	{ loaded dm_mod || insmod $M/kernel/dm-mod.ko; } &&
		{ loaded brd || insmod $M/kernel/brd.ko rd_nr=2 rd_size=16384; } &&
		insmod $M/kernel/dm-flakey.ko && insmod $M/lakeshm.ko size_mib=16 &&
		insmod $M/lakelib.ko timeout_ms=2000 && insmod $M/lake_slowdisk.ko slow_us=3000 &&
		insmod $M/lake_linnos.ko
}
check linnosrep.insmod insmod_all
dd if=/dev/urandom of=/tmp/data bs=1M count=16 2> /dev/null
want=$(sum_of /tmp/data)
put_data() {
	dd if=/tmp/data of=/dev/ram0 bs=1M oflag=direct 2> /dev/null &&
		dd if=/tmp/data of=/dev/ram1 bs=1M oflag=direct 2> /dev/null
}

# 1. The primary's reads fail every other second (dm-flakey, up 1 s, down
# 1 s: everything fails while down). Reads only: no write may fail a leg.
check linnosrep.flaky_data put_data
check linnosrep.flaky_create mk fl0 --table "0 $S flakey /dev/ram0 0 1 1"
check linnosrep.flaky_create_lin mk lin --table \
	"0 $S linnos /dev/mapper/fl0 /dev/ram1 mode=cpu model=$fw/linnos_nn.lnw"
fio --name=r --filename=/dev/mapper/lin --rw=randread --bs=4k --direct=1 --ioengine=psync \
	--numjobs=1 --time_based --runtime=3 --output=/tmp/fio.out > /dev/null 2>&1
check linnosrep.flaky_fio_no_errors fio_ok
sums_right() {
	for i in 1 2 3; do [ "$(sum_of /dev/mapper/lin)" = "$want" ] || return 1; done
}
check linnosrep.flaky_data_right sums_right
echo "# flaky: $(dmsetup status lin)"
check linnosrep.flaky_primary_failed_reads st_gt leg0_read_errors 0
check linnosrep.flaky_retried st_gt retried 0
same() { [ "$(st_of "$1")" = "$(st_of "$2")" ]; }
check linnosrep.flaky_retries_counted same retried leg0_read_errors
check linnosrep.flaky_no_read_failed st_is read_failed 0
check linnosrep.flaky_legs_healthy st_is legs AA
check linnosrep.flaky_pending_zero pending_zero
check linnosrep.flaky_remove sh -c "dmsetup remove lin && dmsetup remove fl0"

# 1b. A failed read's latency enters no history. The primary is slow all
# the time (lake_slow, always in a burst on index 0: 1.5 ms and more per
# read) and fails every other second (dm-flakey fails a read at once): every
# leg-0 history in the trace (the four latencies before each read there)
# holds slow reads only, never a failure's few microseconds.
sp=/sys/module/lake_slowdisk/parameters
hist_slow_only() {
	awk -F, 'NR > 1 && $2 == 0 {
		rows++
		for (i = 5; i <= 8; i++) if ($i > 0 && $i < 1000) bad++
	} END { print "# leg-0 trace rows " rows + 0 ", failed latencies in their histories " bad + 0
		exit !(rows >= 5 && !bad) }' /tmp/trace.csv
}
check linnosrep.hist_data put_data
check linnosrep.hist_slow sh -c "echo 100 > $sp/slow_pct && echo 0 > $sp/only_index"
check linnosrep.hist_create_slow mk hs0 --table "0 $S lake_slow /dev/ram0 0"
check linnosrep.hist_create_flaky mk fl0 --table "0 $S flakey /dev/mapper/hs0 0 1 1"
check linnosrep.hist_create_lin mk lin --table \
	"0 $S linnos /dev/mapper/fl0 /dev/ram1 mode=cpu model=$fw/linnos_nn.lnw"
cat $dbg/linnos/lin/trace > /dev/null
fio --name=r --filename=/dev/mapper/lin --rw=randread --bs=4k --direct=1 --ioengine=psync \
	--numjobs=1 --time_based --runtime=3 --output=/tmp/fio.out > /dev/null 2>&1
cat $dbg/linnos/lin/trace > /tmp/trace.csv
check linnosrep.hist_fio_no_errors fio_ok
check linnosrep.hist_primary_failed_reads st_gt leg0_read_errors 0
check linnosrep.hist_failures_kept_out hist_slow_only
check linnosrep.hist_remove sh -c "dmsetup remove lin && dmsetup remove fl0 && dmsetup remove hs0 &&
	echo 3 > $sp/slow_pct && echo -1 > $sp/only_index"

# 2. The replica starts failing every I/O (its table swapped for dm-error):
# the next write fails it and still succeeds on the primary.
check linnosrep.wfail_create mk leg1 --table "0 $S linear /dev/ram1 0"
check linnosrep.wfail_create_lin mk lin --table \
	"0 $S linnos /dev/ram0 /dev/mapper/leg1 mode=cpu model=$fw/linnos_nn.lnw"
check linnosrep.wfail_legs_healthy st_is legs AA
ev0=$(events)
check linnosrep.wfail_error_table sh -c "dmsetup suspend leg1 &&
	dmsetup reload leg1 --table '0 $S error' && dmsetup resume leg1"
dd if=/dev/urandom of=/tmp/patch bs=64k count=16 2> /dev/null
dd if=/tmp/patch of=/tmp/data bs=64k seek=32 conv=notrunc 2> /dev/null
want=$(sum_of /tmp/data)
dmesg -c > /dev/null
check linnosrep.wfail_write_succeeds dd if=/tmp/patch of=/dev/mapper/lin bs=64k seek=32 oflag=direct
echo "# write failed on the replica: $(dmsetup status lin)"
check linnosrep.wfail_leg_failed st_is legs AD
check linnosrep.wfail_write_errors_counted st_gt leg1_write_errors 0
check linnosrep.wfail_write_errors_total same write_errors leg1_write_errors
check linnosrep.wfail_no_primary_errors st_is leg0_write_errors 0
check linnosrep.wfail_event_raised [ "$(events)" -gt "$ev0" ]
check linnosrep.wfail_logged sh -c "dmesg | grep -q 'linnos: .*leg 1 .*failed'"
dmsetup message lin 0 reset
check linnosrep.wfail_reads_right [ "$(sum_of /dev/mapper/lin)" = "$want" ]
check linnosrep.wfail_reads_counted st_gt leg0_reads 4095
check linnosrep.wfail_no_reads_to_failed st_is leg1_reads 0
check linnosrep.wfail_no_read_errors st_is leg1_read_errors 0
check linnosrep.wfail_later_write dd if=/tmp/patch of=/dev/mapper/lin bs=64k seek=32 oflag=direct
check linnosrep.wfail_later_write_skips_failed st_is leg1_write_errors 0
check linnosrep.wfail_primary_has_data [ "$(sum_of /dev/ram0)" = "$want" ]
check linnosrep.wfail_still_failed st_is legs AD
check linnosrep.wfail_pending_zero pending_zero
check linnosrep.wfail_remove sh -c "dmsetup remove lin && dmsetup remove leg1"

# 3. Both legs one device: pending counts are per leg, back to 0 after I/O.
check linnosrep.same_create mk lin --table "0 $S linnos /dev/ram0 /dev/ram0 mode=cpu"
check linnosrep.same_write dd if=/tmp/data of=/dev/mapper/lin bs=64k count=64 oflag=direct
check linnosrep.same_read [ "$(sum_of /dev/mapper/lin 64)" = "$(sum_of /tmp/data 64)" ]
check linnosrep.same_pending_zero pending_zero

# 4. A 64 KiB read is 16 reads of 4 KiB, each with one home.
dmsetup message lin 0 reset
check linnosrep.split_read dd if=/dev/mapper/lin of=/dev/null bs=64k count=1 iflag=direct
check linnosrep.split_read_16 st_is reads 16
check linnosrep.split_read_both_homes st_is leg0_reads 8
check linnosrep.split_read_other_home st_is leg1_reads 8
check linnosrep.split_write dd if=/dev/zero of=/dev/mapper/lin bs=64k count=1 oflag=direct
check linnosrep.split_write_16 st_is writes 16
check linnosrep.same_remove dmsetup remove lin

# 5. fio verifies what it wrote while the mode goes cpu -> gpu -> laked
# killed -> auto, over replicas with slow bursts; then the replicas are equal.
zero_both() {
	dd if=/dev/zero of=/dev/ram0 bs=1M count=16 2> /dev/null &&
		dd if=/dev/zero of=/dev/ram1 bs=1M count=16 2> /dev/null
}
check linnosrep.verify_zeroed zero_both
check linnosrep.verify_create_slow0 mk slow0 --table "0 $S lake_slow /dev/ram0 0"
check linnosrep.verify_create_slow1 mk slow1 --table "0 $S lake_slow /dev/ram1 1"
check linnosrep.verify_create mk lin --table \
	"0 $S linnos /dev/mapper/slow0 /dev/mapper/slow1 mode=cpu model=$fw/linnos_nn.lnw"
check linnosrep.verify_laked start_laked
# fio stops at SIGINT (its results as usual) once every phase has run.
fio --name=v --filename=/dev/mapper/lin --rw=randrw --rwmixread=70 --bs=4k --direct=1 \
	--ioengine=psync --numjobs=1 --verify=crc32c --verify_backlog=64 --time_based \
	--runtime=60 --output=/tmp/fio.out > /dev/null 2>&1 &
fio_pid=$!
sleep 3
check linnosrep.verify_mode_gpu dmsetup message lin 0 mode gpu
# A first batch can miss timeout_ms on a loaded host; the policy probes again.
check linnosrep.verify_gpu_ran wait_for 20 st_gt gpu_inferences 0
kill -9 $pid
check linnosrep.verify_laked_gone wait_for 5 unregistered
sleep 2
check linnosrep.verify_mode_auto dmsetup message lin 0 mode auto
sleep 3
kill -INT $fio_pid
wait $fio_pid
echo "# verify: $(dmsetup status lin)"
echo "# verify fio (err, read, written): $(grep -oE 'err= *[0-9]+|io=[0-9.]+[KMG]?i?B' /tmp/fio.out | head -n 3 | tr '\n' ' ')"
check linnosrep.verify_fio_no_errors fio_ok
check linnosrep.verify_fio_wrote sh -c "grep -q 'WRITE: bw=' /tmp/fio.out"
check linnosrep.verify_no_write_errors st_is write_errors 0
check linnosrep.verify_legs_healthy st_is legs AA
check linnosrep.verify_pending_zero pending_zero
check linnosrep.verify_remove sh -c "dmsetup remove lin && dmsetup remove slow1 && dmsetup remove slow0"
check linnosrep.verify_replicas_equal cmp /dev/ram0 /dev/ram1

check linnosrep.rmmod sh -c "rmmod lake_linnos && rmmod lake_slowdisk && rmmod dm_flakey &&
	rmmod lakelib && rmmod lakeshm"
