# Copies from and to any kernel memory: lakelib stages buffers outside
# lakeshm through its bounce pool (lakelib/stage.c).
. /lib/lake/vmlib.sh
ctl=/sys/kernel/debug/lake/stage_selftest
stats=/sys/kernel/debug/lake/lakelib_stats

run() { ctl_checks $ctl "$1"; }
start_laked() {
	laked --device=host "$@" >> /tmp/laked-stage.log 2>&1 &
	pid=$!
	wait_for 20 registered
}
stop_laked() { kill -9 $pid; wait $pid 2>/dev/null; }
stat_is() { [ "$(stat_of "$1")" = "$2" ]; }
stat_gt() { [ "$(stat_of "$1")" -gt "$2" ]; }

# A pool the region cannot hold: a staged copy fails clearly; inline ones work.
check stage.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check stage.insmod_lakelib_big_pool insmod $M/lakelib.ko stage_kib=32768
check stage.insmod_selftest insmod $M/lake_stage_selftest.ko
check stage.laked_registers start_laked
run nopool
check stage.nopool_logged sh -c "dmesg | grep -q 'bounce pool of 32768 KiB: lakeshm cannot supply it'"
check stage.nopool_counted stat_gt stage_pool_failures 0
stop_laked
rmmod lake_stage_selftest
check stage.rmmod_lakelib rmmod lakelib
refuse stage.pool_size_checked insmod $M/lakelib.ko stage_kib=100

# A pool of four chunks, so that several callers share it.
check stage.insmod_lakelib insmod $M/lakelib.ko stage_kib=1024 timeout_ms=60000
insmod $M/lake_stage_selftest.ko
check stage.laked_back start_laked
run vadd
run partial
check stage.bytes_staged stat_gt stage_bytes $((64 << 20))
run overwrite
echo 5000 > /sys/module/lakelib/parameters/timeout_ms
run "exhaust 8 6 5000"
check stage.exhaust_waited stat_gt stage_waits 0
check stage.chunks_returned stat_is stage_chunks_in_use 0

# kill -9 mid-staging: the copy fails at once, every chunk comes back.
echo 3000 > /sys/module/lakelib/parameters/timeout_ms
ctl $ctl big_start > /dev/null
check stage.big_staging wait_for 20 stat_gt stage_chunks_in_use 0
kill -9 $pid
wait $pid 2>/dev/null
run "big_result 3000"
check stage.chunks_returned_after_kill wait_for 5 stat_is stage_chunks_in_use 0
check stage.nothing_in_flight stat_is in_flight 0

check stage.rmmod_selftest rmmod lake_stage_selftest
check stage.rmmod_lakelib_end rmmod lakelib
check stage.rmmod_lakeshm rmmod lakeshm
grep -E 'laked|lake' /tmp/laked-stage.log | tail -n 10 | sed 's/^/# laked: /'
