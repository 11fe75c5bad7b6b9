# examples/linnos: the dm target over two RAM disks under lake_slow (GC-like
# latency bursts, one replica at a time). Data stays right whether reads
# are redirected or not, writes reach both replicas, laked's death in GPU
# mode loses no read, models swap under load, bad input is refused.
. /lib/lake/vmlib.sh
dbg=/sys/kernel/debug/lake
stats=$dbg/lakelib_stats
fw=linnos
SECTORS=32768	# 16 MiB per replica

st_of() { dmsetup status lin | tr ' ' '\n' | grep -A1 -x "$1" | tail -n 1; }
st_gt() { [ "$(st_of "$1")" -gt "$2" ]; }
start_laked() {
	laked --device=host >> /tmp/laked.log 2>&1 &
	pid=$!
	for i in $(seq 50); do registered && return 0; sleep 0.1; done
	return 1
}
table() { echo "0 $SECTORS linnos /dev/mapper/slow0 /dev/mapper/slow1 $*"; }
# A create that must fail, and must say why in the log.
bad_table() {
	dmesg -c > /dev/null
	! dmsetup create bad --table "$(table "$@")" 2> /dev/null &&
		dmesg | grep -q 'linnos: ' && [ ! -e /dev/mapper/bad ]
}
bad_message() {
	dmesg -c > /dev/null
	! dmsetup message lin 0 "$@" 2> /dev/null && dmesg | grep -q 'linnos'
}
# No udev here: dmsetup makes the /dev/mapper nodes when asked.
mk() { dmsetup create "$@" && dmsetup mknodes; }
reads_grow() {
	_r=$(st_of reads)
	for i in $(seq 50); do st_gt reads "$_r" && return 0; sleep 0.1; done
	return 1
}
sum_of() { dd if="$1" bs=1M count=${2:-16} 2> /dev/null | md5sum | cut -d' ' -f1; }
# Read the whole target through the page cache's readahead, afresh.
lin_sum() { [ -b /dev/mapper/lin ] && echo 3 > /proc/sys/vm/drop_caches && sum_of /dev/mapper/lin; }
fio_reads() {
	[ -b /dev/mapper/lin ] || return 1
	fio --name=r --filename=/dev/mapper/lin --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --numjobs=4 --time_based --runtime="$1" \
		--group_reporting --output=/tmp/fio.out > /dev/null 2>&1
}
fio_ok() { grep -q 'err= 0' /tmp/fio.out && ! grep -q 'err= [1-9]' /tmp/fio.out; }

check linnos.insmod_dm insmod $M/kernel/dm-mod.ko
check linnos.insmod_brd insmod $M/kernel/brd.ko rd_nr=2 rd_size=16384
check linnos.insmod_lake sh -c "insmod $M/lakeshm.ko size_mib=16 && insmod $M/lakelib.ko timeout_ms=2000"
check linnos.insmod_slow insmod $M/lake_slowdisk.ko slow_us=3000 slow_pct=50 burst_max_ms=200
# A GPU batch's deadline long enough for round trips under TCG on a loaded
# host: this case's GPU checks are about batches that run (52-linnosgpu.sh
# tests the deadline).
check linnos.insmod insmod $M/lake_linnos.ko gpu_deadline_ms=1000
check linnos.slow_replicas sh -c \
	"dmsetup create slow0 --table '0 $SECTORS lake_slow /dev/ram0 0' &&
	 dmsetup create slow1 --table '0 $SECTORS lake_slow /dev/ram1 1' && dmsetup mknodes"

# Bad tables: each refused, with a line in the log.
bad_table_one() {
	dmesg -c > /dev/null
	! dmsetup create bad --table "0 $SECTORS linnos /dev/mapper/slow0" 2> /dev/null &&
		dmesg | grep -q 'linnos: need PRIMARY REPLICA'
}
check linnos.bad_table_one_device bad_table_one
check linnos.bad_table_mode bad_table mode=fly
check linnos.bad_table_threshold bad_table threshold=0
check linnos.bad_table_option bad_table colour=red
check linnos.bad_table_model_path bad_table model=../../etc/passwd
check linnos.bad_table_no_file bad_table model=$fw/missing.lnw
check linnos.bad_table_too_big sh -c "! dmsetup create bad --table '0 99999999 linnos /dev/mapper/slow0 /dev/mapper/slow1' 2>/dev/null"
bad_table_nodev() {
	! dmsetup create bad --table "0 $SECTORS linnos /dev/mapper/slow0 /dev/nothere" 2> /dev/null
}
check linnos.bad_table_no_device bad_table_nodev

# Create without a model: every read goes to the primary, nothing predicted.
check linnos.create mk lin --table "$(table mode=cpu threshold=1000)"
check linnos.table_shown sh -c "dmsetup table lin | grep -q 'mode=cpu threshold=1000'"
dd if=/dev/urandom of=/tmp/data bs=1M count=16 2> /dev/null
check linnos.write_target_is_block [ -b /dev/mapper/lin ]
check linnos.write dd if=/tmp/data of=/dev/mapper/lin bs=1M oflag=direct
want=$(sum_of /tmp/data)
check linnos.write_reached_primary [ "$(sum_of /dev/ram0)" = "$want" ]
check linnos.write_reached_replica [ "$(sum_of /dev/ram1)" = "$want" ]
check linnos.read_no_model [ "$(lin_sum)" = "$want" ]
check linnos.no_model_no_prediction [ "$(st_of predicted)" = 0 ]
check linnos.no_model_reads_counted st_gt reads 0

# Bad messages.
check linnos.bad_message_mode bad_message mode fly
check linnos.bad_message_threshold bad_message threshold 12x
check linnos.bad_message_unknown bad_message explode now
check linnos.bad_message_model_path bad_message model /etc/passwd

# A model: reads predicted, some redirected during slow periods, data right.
check linnos.model_load dmsetup message lin 0 model $fw/linnos_nn.lnw
head -c 1000 /lib/firmware/$fw/linnos_nn.lnw > /lib/firmware/$fw/cut.lnw
check linnos.bad_model_refused bad_message model $fw/cut.lnw
check linnos.bad_model_keeps_old sh -c "dmsetup table lin | grep -q 'model=$fw/linnos_nn.lnw'"
redirected_right() {
	for i in 1 2 3 4 5 6 7 8; do
		[ "$(lin_sum)" = "$want" ] || return 1
		st_gt redirected 0 && return 0
	done
	return 1
}
check linnos.redirected_reads_right redirected_right
check linnos.predicted st_gt predicted 0
check linnos.fio_cpu fio_reads 3
check linnos.fio_cpu_no_errors fio_ok
echo "# cpu mode: $(dmsetup status lin)"

# Shadow: every read predicted at its home and judged there, none moved;
# over bursts half the time, the verdicts beat always-fast (more slow reads
# caught than fast ones called slow).
check linnos.mode_shadow sh -c "dmsetup message lin 0 mode shadow && dmsetup message lin 0 reset"
check linnos.fio_shadow fio_reads 3
check linnos.shadow_no_errors fio_ok
echo "# shadow mode: $(dmsetup status lin)"
shadow_judged() {
	_p=$(st_of predicted)
	[ "$_p" = "$(st_of reads)" ] && [ "$_p" -gt 0 ] &&
		[ $(($(st_of true_slow) + $(st_of true_fast) + $(st_of false_submit) + $(st_of false_revoke))) = "$_p" ]
}
check linnos.shadow_every_read_judged shadow_judged
check linnos.shadow_none_moved sh -c "[ $(st_of redirected) = 0 ] && [ $(st_of probes) = 0 ] && [ $(st_of both_slow) = 0 ]"
check linnos.shadow_beats_always_fast sh -c "[ $(st_of true_slow) -gt $(st_of false_revoke) ]"
check linnos.shadow_data_right [ "$(lin_sum)" = "$want" ]
check linnos.mode_cpu_again dmsetup message lin 0 mode cpu

# Model swap while reads run.
fio_reads 4 &
fio_pid=$!
swaps=0
for i in $(seq 6); do
	for v in nn1 nn2 nn; do
		dmsetup message lin 0 model $fw/linnos_$v.lnw && swaps=$((swaps + 1))
	done
done
wait $fio_pid
check linnos.swap_under_load [ $swaps = 18 ]
check linnos.swap_fio_no_errors fio_ok
check linnos.swap_data_right [ "$(lin_sum)" = "$want" ]

# Trace exporter.
echo "# debugfs: $(ls $dbg/linnos)"
cat $dbg/linnos/lin/trace > /tmp/trace.csv
check linnos.trace_header sh -c "head -n 1 /tmp/trace.csv | grep -qx 'ts_ns,dev,pending,lat_us,hist_lat0,hist_lat1,hist_lat2,hist_lat3,hist_pend0,hist_pend1,hist_pend2,hist_pend3'"
check linnos.trace_rows sh -c "[ $(wc -l < /tmp/trace.csv) -gt 100 ]"
check linnos.trace_drained sh -c "[ $(cat $dbg/linnos/lin/trace | wc -l) -lt 50 ]"

# auto starts from LAKE's crossover (8 vectors) until calibrated.
check linnos.auto_starts_at_lake_crossover sh -c \
	"grep -qx 'crossover_override 8' $dbg/policy/linnos*/status"

# GPU mode on laked's host device, then kill -9 laked under fio.
check linnos.laked start_laked
check linnos.mode_gpu dmsetup message lin 0 mode gpu
dmsetup message lin 0 reset
wait_gpu() {
	for i in $(seq 100); do st_gt gpu_inferences 0 && return 0; sleep 0.1; done
	return 1
}
fio_reads 12 &
fio_pid=$!
check linnos.gpu_batches_run wait_gpu
# Forced to the GPU side, the CPU predicts only after a GPU failure.
cpu_before=$(st_of cpu_inferences)
stop_task $pid
sleep 0.3
kill -9 $pid
check linnos.kill9_fio_still_running kill -0 $fio_pid
check linnos.kill9_reads_went_on reads_grow
wait $fio_pid
echo "# after kill -9 (cpu_inferences before: $cpu_before): $(dmsetup status lin)"
check linnos.kill9_fio_no_errors fio_ok
check linnos.kill9_cpu_took_over st_gt cpu_inferences "${cpu_before:-0}"
check linnos.kill9_data_right [ "$(lin_sum)" = "$want" ]

# Removal with reads in flight is refused; then clean removal.
# A reader holds the device open between its reads, as fio would.
sleep 600 < /dev/mapper/lin &
holder=$!
(while [ ! -e /tmp/stop ]; do
	dd if=/dev/mapper/lin of=/dev/null bs=4k count=256 iflag=direct 2> /dev/null
done) &
reader=$!
check linnos.reads_in_flight reads_grow
check linnos.remove_busy_refused sh -c "! dmsetup remove lin 2>/dev/null"
check linnos.rmmod_busy_refused sh -c "! rmmod lake_linnos 2>/dev/null"
touch /tmp/stop
wait $reader
kill $holder
wait $holder 2> /dev/null
check linnos.data_right_after [ "$(lin_sum)" = "$want" ]
check linnos.remove dmsetup remove lin
check linnos.debugfs_gone [ ! -e $dbg/linnos/lin ]
check linnos.rmmod rmmod lake_linnos
dmsetup remove slow1
dmsetup remove slow0
rmmod lake_slowdisk
check linnos.rmmod_lake sh -c "rmmod lakelib && rmmod lakeshm"
