# lakelib + laked: the CUDA API from kernel code, executed by laked on the
# host device; the daemon link's failure modes.
. /lib/lake/vmlib.sh
ctl=/sys/kernel/debug/lake/cuda_selftest
stats=/sys/kernel/debug/lake/lakelib_stats

# run CMD: a selftest command that reports checks (an answer without any fails).
run() { ctl_checks $ctl "$1"; }
stat_of() { grep "^$1 " $stats | cut -d' ' -f2; }
registered() { [ "$(stat_of daemon_portid)" != 0 ]; }
unregistered() { ! registered; }
# wait_for SECONDS CMD...: CMD every 0.1 s until it succeeds or time is up.
wait_for() {
	_w=$(($1 * 10))
	shift
	until "$@"; do
		[ $_w -gt 0 ] || return 1
		sleep 0.1
		_w=$((_w - 1))
	done
}
start_laked() {
	laked --device=host "$@" >> /tmp/laked.log 2>&1 &
	pid=$!
	wait_for 20 registered
}
stat_ge() { [ "$(stat_of "$1")" -ge "$2" ]; }
# Every held worker has returned from its call.
all_returned() {
	ctl $ctl results > /tmp/returned &&
		[ -s /tmp/returned ] && ! awk '$4 != 1 { bad = 1 } END { exit !bad }' /tmp/returned
}
# results_all CODE MAXMS: every held worker returned CODE within MAXMS.
results_all() {
	ctl $ctl results > /tmp/results
	cat /tmp/results | sed 's/^/# /'
	[ -s /tmp/results ] && ! awk -v c="$1" -v m="$2" \
		'$6 != c || $8 > m { bad = 1 } END { exit !bad }' /tmp/results
}

check cuda.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check cuda.insmod_lakelib insmod $M/lakelib.ko timeout_ms=3000
check cuda.insmod_selftest insmod $M/lake_cuda_selftest.ko
run nodaemon

check cuda.laked_registers start_laked
run basic
check cuda.bytes_by_offset sh -c "[ $(stat_of bytes_shm) -gt 0 ]"
check cuda.bytes_inline sh -c "[ $(stat_of bytes_inline) -gt 0 ]"
run coalesce
run "threads 4 20"
refuse cuda.second_laked_refused laked --device=host
check cuda.ping_as_nobody genl_probe --uid 65534 ping OK
check cuda.register_as_nobody_eperm genl_probe --uid 65534 register EPERM
check cuda.register_while_running_ebusy genl_probe register EBUSY
forged=$(stat_of forged_replies)
check cuda.forged_reply_refused genl_probe forge EPERM
check cuda.forged_reply_counted sh -c "[ $(stat_of forged_replies) -gt $forged ]"
check cuda.serves_after_forgery run basic

# A stopped daemon: the call times out, and its late reply is dropped.
echo 1000 > /sys/module/lakelib/parameters/timeout_ms
ctl $ctl "hold 1" > /dev/null
kill -STOP $pid
ctl $ctl go > /dev/null
check cuda.timeout_waited wait_for 20 all_returned
check cuda.timeout_returns results_all 909 2500
stray=$(stat_of stray_replies)
kill -CONT $pid
check cuda.late_reply_dropped wait_for 20 stat_ge stray_replies $((stray + 1))
echo 3000 > /sys/module/lakelib/parameters/timeout_ms

# kill -9 with calls in flight: all fail at once, nothing waits for the
# timeout. laked is killed once all four calls wait on it, however long they
# took to be sent (a call sent after the kill would fail as no_daemon).
run stale_save
ctl $ctl "hold 4" > /dev/null
kill -STOP $pid
ctl $ctl go > /dev/null
check cuda.kill9_calls_waiting wait_for 20 stat_ge in_flight 4
kill -9 $pid
check cuda.kill9_returned wait_for 20 all_returned
check cuda.kill9_fails_in_flight results_all 46 1500
check cuda.kill9_unregisters unregistered
run nodaemon

check cuda.laked_restarts start_laked
run stale_check
run basic

# A registered socket sending garbage is answered with EINVAL.
kill -TERM $pid
wait $pid
check cuda.sigterm_exit_0 [ $? = 0 ]
check cuda.sigterm_unregisters unregistered
check cuda.bad_load_refused genl_probe bad_load 'EINVAL|ERANGE'
check cuda.bad_records_einval genl_probe bad_records EINVAL
check cuda.unknown_attr_einval genl_probe unknown_attr EINVAL

# seccomp: a forbidden syscall kills laked; the kernel recovers as from a crash.
laked --device=host --test-seccomp-kill >> /tmp/laked.log 2>&1
rc=$?
check cuda.seccomp_kills [ $rc = 159 ]
check cuda.seccomp_kill_unregisters unregistered
run nodaemon

check cuda.rmmod_selftest rmmod lake_cuda_selftest
check cuda.rmmod_lakelib rmmod lakelib
check cuda.rmmod_lakeshm rmmod lakeshm
grep -E 'laked|lake' /tmp/laked.log | tail -n 15 | sed 's/^/# laked: /'
