# laked's receive buffer full. laked runs with a tiny buffer
# (--test-rcvbuf) and is stopped while eight threads queue async memsets
# and sync once each: lakelib queues its sends on laked's socket itself
# (netlink.c), a full one refuses them, and lakelib retries them
# (send_retries) until each call's deadline. So nothing is lost while laked
# resumes within timeout_ms: it goes on, stays registered and answers every
# call. (laked's own handling of an ENOBUFS, should its socket ever report
# one, is unit:laked_recv's.)
# Stopped past timeout_ms, those calls are lost: each fails within the
# bound (CUDA_ERROR_TIMEOUT, or DEVICE_UNAVAILABLE once the first has
# fenced laked), laked is fenced by design (README, "A timeout fences
# laked"), and a new laked serves at once.
. /lib/lake/vmlib.sh
D=/sys/kernel/debug/lake
ctl=$D/soak_selftest
stats=$D/lakelib_stats
TMO=3000
BOUND=$((TMO + 1500))
log=/tmp/laked-overrun.log

start_laked() {
	laked --device=host "$@" >> $log 2>&1 &
	pid=$!
	wait_for 20 registered
}
# burst_is OK TIMEOUT GONE OTHER: the last burst's counts (GONE: laked lost
# mid-call or gone before the send, CUDA_ERROR_DEVICE_UNAVAILABLE or _NO_DEVICE).
burst_is() { grep -qx "burst ok $1 timeout $2 gone $3 other $4" /tmp/burst.out; }
burst_start() { ctl_checks $ctl "burst 8 ${1:-16} $BOUND"; }
burst_result() {
	ctl $ctl burst_result > /tmp/burst.out
	grep -v '^burst ' /tmp/burst.out
}
burst() { burst_start && burst_result; }

check overrun.insmod sh -c "insmod $M/lakeshm.ko size_mib=16 &&
	insmod $M/lakelib.ko timeout_ms=$TMO && insmod $M/lake_soak_selftest.ko"
# Over genl: the ring would carry the calls past the socket.
check overrun.laked_tiny_rcvbuf start_laked --transport=genl --test-rcvbuf=1
portid=$(stat_of daemon_portid)
fences=$(stat_of fences)
burst
check overrun.serving burst_is 8 0 0 0

# Stopped for a second (under timeout_ms) while the calls are made: the
# sends pile up on a full socket.
seen=$(stat_of send_retries)
stop_task $pid
burst_start
sleep 1
kill -CONT $pid
burst_result
check overrun.full_socket_retried [ "$(stat_of send_retries)" -gt "$seen" ]
check overrun.no_call_lost burst_is 8 0 0 0
check overrun.laked_kept sh -c "kill -0 $pid && [ $(stat_of daemon_portid) = $portid ]"
check overrun.not_fenced [ "$(stat_of fences)" = "$fences" ]
burst
check overrun.serving_after burst_is 8 0 0 0

# Stopped past timeout_ms: every call fails within the bound, laked is fenced.
stop_task $pid
burst_start
check overrun.fenced_unregistered wait_for 20 unregistered
kill -CONT $pid 2> /dev/null
burst_result
# The first to time out fences laked; the others then find it gone.
# Nothing else may fail.
lost_fail() { awk '$1 == "burst" && $3 == 0 && $5 > 0 && $5 + $7 == 8 && $9 == 0 { ok = 1 } END { exit !ok }' /tmp/burst.out; }
check overrun.lost_calls_fail lost_fail
check overrun.fenced_once [ "$(stat_of fences)" = $((fences + 1)) ]
check overrun.laked_killed wait_for 20 sh -c "! kill -0 $pid 2> /dev/null"
wait $pid 2> /dev/null
check overrun.laked_back start_laked --transport=genl --test-rcvbuf=1
burst
check overrun.serving_after_fence burst_is 8 0 0 0
check overrun.nothing_in_flight [ "$(stat_of in_flight)" = 0 ]
echo "# overrun: lakelib: $(grep -E '^(send_retries|timeouts|fences|errors) ' $stats | tr '\n' ' ')"

kill -TERM $pid
wait $pid

# The same over the command ring: laked stopped while 32 threads each
# queue async memsets and a sync; laked resumes and drains, nothing is lost.
# They make more blobs than the ring's 16 slots, so a sender waits for a
# free slot (ring_full) until laked's drain wakes it.
check overrun.ring_laked start_laked
pid_ring=$pid
burst	# the first on a new laked meets the old one's context, and makes a new one
burst
check overrun.ring_serving burst_is 8 0 0 0
fences=$(stat_of fences)
stop_task $pid
full=$(stat_of ring_full) sub=$(stat_of ring_submissions)
ctl_checks $ctl "burst 32 4 $BOUND"
sleep 1
kill -CONT $pid
burst_result
echo "# overrun: ring: $(($(stat_of ring_submissions) - sub)) blobs; $(grep -E '^ring_(submissions|full|kicks|wakeups) ' $stats | tr '\n' ' ')"
check overrun.ring_full_waited [ "$(stat_of ring_full)" -gt "$full" ]
check overrun.ring_no_call_lost burst_is 32 0 0 0
check overrun.ring_not_fenced [ "$(stat_of fences)" = "$fences" ]
check overrun.ring_laked_kept kill -0 $pid_ring
kill -TERM $pid
wait $pid
check overrun.rmmod sh -c "rmmod lake_soak_selftest && rmmod lakelib && rmmod lakeshm"
grep -v 'netlink receive: Out of memory' $log | tail -n 12 | sed 's/^/# laked: /'
