# lakelib's RPC layer: a failed send, the error latch, a timeout that fences
# laked, waits bounded by one deadline and killable, a daemon's teardown.
. /lib/lake/vmlib.sh
D=/sys/kernel/debug/lake
ctl=$D/rpc_selftest
calls=$D/rpc_call
stats=$D/lakelib_stats
tmo=/sys/module/lakelib/parameters/timeout_ms

run() { echo "$1" > $ctl && cat $ctl; }
start_laked() {
	laked --device=host "$@" >> /tmp/laked-rpc.log 2>&1 &
	pid=$!
	for i in $(seq 50); do registered && return 0; sleep 0.1; done
	return 1
}
# gone PID [N]: it exits within N/20 s (default 2 s).
gone() {
	for i in $(seq ${2:-40}); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
	return 1
}

check rpc.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check rpc.insmod_lakelib insmod $M/lakelib.ko timeout_ms=2000
check rpc.insmod_selftest insmod $M/lake_rpc_selftest.ko
check rpc.laked_registers start_laked
run setup

# timeout_ms is checked on every write, not only at load.
refuse rpc.timeout_zero_refused sh -c "echo 0 > $tmo"
refuse rpc.timeout_huge_refused sh -c "echo 4000000 > $tmo"
check rpc.timeout_unchanged grep -qx 2000 $tmo

# Async work whose send fails is reported at the next synchronize.
dropped=$(stat_of async_dropped)
echo 1 > $D/lakelib_fail_sends
run drop_send
echo 0 > $D/lakelib_fail_sends
check rpc.drop_send_counted sh -c "[ $(stat_of async_dropped) -gt $dropped ]"

# The latch: more streams with errors than it once held; destroy drops them.
run "latch_many 100"
run latch_destroy
check rpc.latch_empty_after_destroy sh -c "[ $(stat_of latched) = 0 ]"

# A timeout fences laked: the late copy cannot land, and laked comes back.
stop_task $pid
run late_dtoh
kill -CONT $pid
sleep 1
run late_check
check rpc.fence_kills_laked gone $pid
refuse rpc.fence_unregisters registered
check rpc.fence_counted sh -c "[ $(stat_of fences) -ge 1 ]"
kill -9 $pid 2>/dev/null
wait $pid
check rpc.laked_back_after_fence start_laked

# A silent laked with a full receive buffer: every call returns within about
# one timeout_ms however many wait, and a waiter can be killed.
kill -TERM $pid
wait $pid
check rpc.laked_tiny_rcvbuf start_laked --test-rcvbuf=1
echo reset > $calls
stop_task $pid
pids=
for i in 1 2 3 4 5 6; do
	echo init > $calls &
	pids="$pids $!"
done
sleep 0.8
echo init > $calls &
victim=$!
sleep 0.2
kill -9 $victim
wait $pids
kill -CONT $pid
check rpc.silent_laked_fenced gone $pid
kill -9 $pid 2>/dev/null
wait $pid
sed 's/^/# /' $calls
check rpc.calls_all_returned awk 'END { exit NR < 7 }' $calls
check rpc.calls_within_timeout awk '$6 > 2600 { bad = 1 } END { exit bad }' $calls
check rpc.silent_call_909 awk '$4 == 909 && $6 <= 2600 { ok = 1 } END { exit !ok }' $calls
check rpc.killed_waiter_304 awk '$4 == 304 && $6 <= 600 { ok = 1 } END { exit !ok }' $calls

# kill -9 with async work queued: the next laked never gets the old records.
check rpc.laked_back start_laked
run setup
echo Y > $D/lakelib_hold_queue
run queue_async
kill -9 $pid
wait $pid
check rpc.laked_restarts_at_once start_laked
echo N > $D/lakelib_hold_queue
stray=$(stat_of stray_replies)
echo init > $calls
sleep 0.3
check rpc.old_records_not_sent sh -c "[ $(stat_of stray_replies) = $stray ]"
run stale_sync

# lakelib's async window: 1,024 async calls of a context pass, the 1,025th
# first waits for a barrier (async_barriers; window_waits counts sync slots).
run setup
barriers=$(stat_of async_barriers)
waits=$(stat_of window_waits)
run window_fill
check rpc.window_no_barrier_yet sh -c "[ $(stat_of async_barriers) = $barriers ]"
run window_next
check rpc.window_1025th_waits sh -c "[ $(stat_of async_barriers) = $((barriers + 1)) ]"
check rpc.window_no_sync_wait sh -c "[ $(stat_of window_waits) = $waits ]"

# A killed caller of a call that names no shared memory leaves laked (same
# pid and portid, no fence) and every context alive; its late reply is
# dropped. One whose call names shared memory still fences.
run ctx_works
fences=$(stat_of fences)
killed=$(stat_of killed)
portid=$(stat_of daemon_portid)
stray=$(stat_of stray_replies)
stat_ge() { [ "$(stat_of "$1")" -ge "$2" ]; }
stop_task $pid
echo sync > $calls &
victim=$!
check rpc.killed_rangefree_in_flight wait_for 20 stat_ge in_flight 1
kill -9 $victim
wait $victim
kill -CONT $pid
check rpc.killed_rangefree_counted sh -c "[ $(stat_of killed) = $((killed + 1)) ]"
stray_above() { [ "$(stat_of stray_replies)" -gt "$1" ]; }
check rpc.killed_rangefree_late_reply_dropped wait_for 20 stray_above $stray
check rpc.killed_rangefree_no_fence sh -c "[ $(stat_of fences) = $fences ]"
check rpc.killed_rangefree_laked_alive kill -0 $pid
check rpc.killed_rangefree_same_portid sh -c "[ $(stat_of daemon_portid) = $portid ]"
run ctx_works
stop_task $pid
echo dtoh > $calls &
victim=$!
check rpc.killed_shm_in_flight wait_for 20 stat_ge in_flight 1
kill -9 $victim
wait $victim
kill -CONT $pid
check rpc.killed_shm_fences gone $pid
check rpc.killed_shm_fence_counted sh -c "[ $(stat_of fences) = $((fences + 1)) ]"
wait $pid
check rpc.laked_back_after_killed_shm start_laked

# SIGTERM with copies in flight: laked stops its workers, destroys its
# contexts and unmaps the region before it unregisters, so no write of
# its lands in the buffer once the call returned; a new laked serves.
run setup
mapped=$(stat_of unregistered_mapped)
run term_start
sleep 1
kill -TERM $pid
wait $pid
check rpc.term_laked_exit_clean [ $? = 0 ]
run term_result
check rpc.term_unmapped_before_unregister sh -c "[ $(stat_of unregistered_mapped) = $mapped ]"

# One that closes its socket while a copy of its can still land (the host
# device's --test-copy-ms lands each copy again 300 ms later, as a running
# DMA would) is waited for (its mappings revoked, its exit awaited) before
# its calls fail.
check rpc.laked_back_after_term start_laked --test-copy-ms=300 --test-leave-first=socket
run setup
run term_start
sleep 1
kill -TERM $pid
wait $pid
run term_result

check rpc.laked_back_after_drop start_laked
run setup
run ctx_works

kill -TERM $pid
wait $pid
check rpc.rmmod_selftest rmmod lake_rpc_selftest
check rpc.rmmod_lakelib rmmod lakelib
check rpc.rmmod_lakeshm rmmod lakeshm
grep -E 'laked|lake' /tmp/laked-rpc.log | tail -n 10 | sed 's/^/# laked: /'
