# Allocation failures (Debian's kernels have no CONFIG_FAILSLAB): lakelib's
# lakelib_fail_allocs fails every Nth allocation on a call's path (the
# message of a send, the staging slots, a context's entry, a function's
# layout) and lakeshm's shm_fail_allocs every Nth region allocation, while
# eight soak threads run. Every call must succeed with the right data or
# fail clearly within timeout_ms, never fence laked, and every counter must
# return to its start.
. /lib/lake/vmlib.sh
D=/sys/kernel/debug/lake
ctl=$D/soak_selftest
stats=$D/lakelib_stats
TMO=2000
BOUND=$((TMO + 1500))

start_laked() {
	laked --device=host >> /tmp/laked-allocfail.log 2>&1 &
	pid=$!
	wait_for 20 registered
}

check allocfail.insmod sh -c "insmod $M/lakeshm.ko size_mib=32 &&
	insmod $M/lakelib.ko timeout_ms=$TMO && insmod $M/lake_soak_selftest.ko"
check allocfail.laked start_laked
# laked sets its command ring up (a region allocation) just after registering.
check allocfail.ring wait_for 20 sh -c "grep -qx 'ring_live 1' $stats"
live0=$(shm_of live_allocs)
ctx0=$(stat_of ctx_threads)
portid=$(stat_of daemon_portid)
fences=$(stat_of fences)
timeouts=$(stat_of timeouts)
check allocfail.start ctl_checks $ctl "start 8 ${lake_soak_seed:-1} $BOUND"
sleep 2
ctl $ctl fault > /dev/null
echo 13 > $D/lakelib_fail_allocs
echo 3 > $D/shm_fail_allocs
sleep 8
echo 0 > $D/lakelib_fail_allocs
echo 0 > $D/shm_fail_allocs
ctl $ctl clear > /dev/null
sleep 3
echo "# allocfail: $(stat_of alloc_faults) lakelib allocations failed," \
	"$(cat $D/shm_alloc_faults) lakeshm allocations failed"
check allocfail.lakelib_faults_injected [ "$(stat_of alloc_faults)" -gt 0 ]
check allocfail.shm_faults_injected [ "$(cat $D/shm_alloc_faults)" -gt 0 ]
ctl_checks $ctl stop
check allocfail.laked_kept sh -c "kill -0 $pid && [ $(stat_of daemon_portid) = $portid ]"
check allocfail.not_fenced [ "$(stat_of fences)" = "$fences" ]
check allocfail.no_timeouts [ "$(stat_of timeouts)" = "$timeouts" ]

check allocfail.rmmod_selftest rmmod lake_soak_selftest
for s in in_flight stage_chunks_in_use latched func_layouts; do
	check allocfail.${s}_zero [ "$(stat_of $s)" = 0 ]
done
check allocfail.ctx_threads_back [ "$(stat_of ctx_threads)" = "$ctx0" ]
echo "# allocfail: lakeshm live_allocs $(shm_of live_allocs) (at start $live0, + the bounce pool)"
check allocfail.shm_allocs_back [ "$(shm_of live_allocs)" = $((live0 + 1)) ]
kill -TERM $pid
wait $pid
check allocfail.rmmod_lakelib rmmod lakelib
check allocfail.shm_allocs_zero [ "$(shm_of live_allocs)" = 0 ]
check allocfail.rmmod_lakeshm rmmod lakeshm
