# rmmod of lakelib and lakeshm with calls in flight, and while laked runs a
# long kernel: each is refused or clean (no oops, no hang), and a later
# insmod serves again.
. /lib/lake/vmlib.sh
D=/sys/kernel/debug/lake
ctl=$D/soak_selftest
stats=$D/lakelib_stats
TMO=3000

start_laked() {
	laked --device=host >> /tmp/laked-unload.log 2>&1 &
	pid=$!
	wait_for 20 registered
}
insmod_all() {
	insmod $M/lakeshm.ko size_mib=16 && insmod $M/lakelib.ko timeout_ms=$TMO &&
		insmod $M/lake_soak_selftest.ko
}
utime() { cut -d' ' -f14 /proc/$1/stat; }
spinning() { [ $(($(utime $pid) - u0)) -ge 50 ]; }	# 0.5 s of CPU in laked
in_flight() { [ "$(stat_of in_flight)" -gt 0 ]; }

check unload.insmod insmod_all
check unload.laked start_laked

# Calls in flight: lakelib and lakeshm are pinned; the consumer's own rmmod
# stops its threads and returns.
check unload.start ctl_checks $ctl "start 8 1 $((TMO + 1500))"
check unload.calls_in_flight wait_for 20 in_flight
refuse unload.lakelib_refused_in_flight rmmod lakelib
refuse unload.lakeshm_refused_in_flight rmmod lakeshm
check unload.consumer_rmmod_in_flight timeout 20 rmmod lake_soak_selftest
check unload.nothing_left_in_flight [ "$(stat_of in_flight)" = 0 ]

# laked inside a kernel that spins until it dies; nobody waits on it.
check unload.consumer_again insmod $M/lake_soak_selftest.ko
u0=$(utime $pid)
check unload.long_launch ctl_checks $ctl long_start
check unload.laked_in_kernel wait_for 20 spinning
check unload.consumer_rmmod_long timeout 20 rmmod lake_soak_selftest
check unload.lakelib_rmmod_long timeout 20 rmmod lakelib
check unload.lakelib_gone sh -c '! grep -q "^lakelib " /proc/modules'
# laked still maps the region: refused, or clean; never a hang.
timeout 20 rmmod lakeshm 2> /tmp/rmmod.err
rc=$?
echo "# unload: rmmod lakeshm under laked's mapping: exit $rc $(cat /tmp/rmmod.err)"
check unload.lakeshm_rmmod_mapped_returns [ $rc != 124 ]
kill -9 $pid
wait $pid 2> /dev/null
if grep -q "^lakeshm " /proc/modules; then
	check unload.lakeshm_rmmod_after_laked rmmod lakeshm
fi

# Everything back: a later insmod serves.
check unload.reinsmod insmod_all
check unload.laked_again start_laked
ctl $ctl "burst 8 4 $((TMO + 1500))" > /dev/null
ctl $ctl burst_result > /tmp/burst.out
grep -v '^burst ' /tmp/burst.out
check unload.reload_serves grep -qx 'burst ok 8 timeout 0 gone 0 other 0' /tmp/burst.out
kill -TERM $pid
wait $pid
check unload.rmmod_end sh -c "rmmod lake_soak_selftest && rmmod lakelib"
check unload.shm_allocs_zero [ "$(shm_of live_allocs)" = 0 ]
check unload.rmmod_lakeshm_end rmmod lakeshm
