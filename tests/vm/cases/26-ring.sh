# The command ring (uapi/lake/ring.h): laked sets it up by default and
# lakectl says so; calls go over it and come back right; the kernel never
# spins on one CPU; kill -9 mid-call and a restart; laked --transport=genl
# carries everything as before; a forged completion (an impossible tail, a
# slot length out of range, a malformed record) is taken as nothing: laked
# is fenced, the call fails, and no request completes wrong.
. /lib/lake/vmlib.sh
dbg=/sys/kernel/debug/lake
ex=$dbg/example_vadd
pol=$dbg/policy/example_vadd

ex_of() { grep "^$1 " $ex | cut -d' ' -f2; }
start_laked() {
	laked --device=host "$@" >> /tmp/laked-ring.log 2>&1 &
	pid=$!
	wait_for 20 registered
}
stop_laked() {
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	wait_for 20 unregistered
}
in_flight() { [ "$(stat_of in_flight)" -gt 0 ]; }
run_on() {
	_r=$(ex_of requests) _s=$(ex_of "$1")
	echo "run $2" > $ex || return 1
	[ "$(ex_of requests)" = $((_r + $2)) ] && [ "$(ex_of "$1")" = $((_s + $2)) ] &&
		[ "$(ex_of wrong)" = 0 ] && [ "$(ex_of failed)" = 0 ] || { tr '\n' ' ' < $ex; false; }
}
all_done() {
	[ "$(ex_of requests)" = $(($(ex_of cpu) + $(ex_of gpu))) ] &&
		[ "$(ex_of wrong)" = 0 ] && [ "$(ex_of failed)" = 0 ]
}
# After a new laked, the module's first batches may meet its stale handles
# and rerun on the CPU (and the policy then trips): until one runs on the GPU.
gpu_ran() { _g=$(ex_of gpu); echo "run 64" > $ex; [ "$(ex_of gpu)" -gt "$_g" ]; }
warm_up() { wait_for 10 gpu_ran; }
grew() { [ "$(stat_of "$1")" -gt "$2" ]; }
same() { [ "$(stat_of "$1")" = "$2" ]; }
transport_is() { lakectl status | grep -qx "transport: $1"; }

check ring.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check ring.insmod_lakelib insmod $M/lakelib.ko timeout_ms=3000
check ring.insmod_vadd insmod $M/lake_example_vadd.ko n=256 max_batch=8 window_us=2000
check ring.no_daemon_genl transport_is genl

check ring.laked_registers start_laked
check ring.status_says_ring transport_is ring
check ring.live sh -c "[ $(stat_of ring_live) = 1 ]"
echo gpu > $pol/mode
sub=$(stat_of ring_submissions) comp=$(stat_of ring_completions) msgs=$(stat_of messages)
check ring.vadd_over_ring run_on gpu 400
check ring.submissions_counted grew ring_submissions "$sub"
check ring.completions_counted grew ring_completions "$comp"
echo "# ring: $(grep '^ring_' $dbg/lakelib_stats | tr '\n' ' ')"
check ring.no_violation same ring_violations 0
# Every message lakelib sent went over the ring.
check ring.every_send_on_ring sh -c "[ $(( $(stat_of ring_submissions) - sub )) = $(( $(stat_of messages) - msgs )) ]"
if [ "$(nproc)" = 1 ]; then
	check ring.kernel_never_spins_on_one_cpu same ring_spins 0
fi

# The sleep protocol under stress: with spin budgets about as long as a
# call, laked's replies land just as callers give up spinning and mark the
# kernel's consumer asleep. Either laked's put sees the flag or the
# caller's last reap sees the reply; a reply that neither saw would wait
# for the timeout. With one CPU nobody spins: one round of the plain
# sleeping path.
check ring.insmod_selftest insmod $M/lake_cuda_selftest.ko
spin=/sys/module/lakelib/parameters/ring_spin_us
spin_was=$(cat $spin)
if [ "$(nproc)" -ge 2 ]; then budgets="10 40 80" calls=1500; else budgets=200 calls=500; fi
for us in $budgets; do
	echo $us > $spin
	check ring.stress_spin_${us}us ctl_checks $dbg/cuda_selftest "ringstress $calls 4096"
	grep -E '^(# |not ok)' /tmp/check.out
	echo "# ring: spin ${us} us: $(grep -E '^ring_(spins|spin_hits|kicks) ' $dbg/lakelib_stats | tr '\n' ' ')"
done
echo "$spin_was" > $spin
check ring.rmmod_selftest rmmod lake_cuda_selftest

# kill -9 with a batch waiting on the ring: nothing lost, nothing wrong.
stop_task $pid
echo "run 2000" > $ex &
writer=$!
check ring.batch_waits wait_for 20 in_flight
kill -9 $pid
wait $writer
wait $pid 2>/dev/null
check ring.kill9_nothing_lost all_done
check ring.kill9_ring_gone sh -c "[ $(stat_of ring_live) = 0 ]"
check ring.laked_back start_laked
check ring.ring_again transport_is ring
warm_up
check ring.vadd_after_restart run_on gpu 200
stop_laked

# laked's count at exit: it never spins on one CPU either.
spins=$(sed -n 's/^laked: ring: .*wakeups, \([0-9]*\) spins.*/\1/p' /tmp/laked-ring.log | tail -n 1)
echo "# laked: $(grep 'laked: ring: ' /tmp/laked-ring.log | tail -n 1)"
check ring.laked_counted_its_ring [ -n "$spins" ]
# Batches 2 ms apart outlast every spin: the kernel wakes the watching
# worker, which takes them; laked's main thread wakes for the calls that
# come while that worker runs (up to 2 in 5 seen), not for every one.
ring_log=$(grep '^laked: ring: ' /tmp/laked-ring.log | tail -n 1)
field() { echo "$ring_log" | sed -n "s/.*[ (]\([0-9]*\) $1.*/\1/p"; }
taken=$(echo "$ring_log" | sed -n 's/^laked: ring: \([0-9]*\) calls taken.*/\1/p')
check ring.watch_takes_calls [ "$(field 'by the watch')" -gt 0 ]
check ring.main_seldom_woken [ $(($(field 'wakeups,') * 3)) -lt $((taken * 2)) ]
# No worker slept through a wakeup meant for it (laked/ring.c's watch_lost).
check ring.no_wakeup_lost [ "$(field 'wakeups lost')" = 0 ]
if [ "$(nproc)" = 1 ]; then
	check ring.laked_never_spins_on_one_cpu [ "$spins" = 0 ]
fi

# The genl transport: the same calls as messages, the ring untouched.
check ring.genl_registers start_laked --transport=genl
check ring.genl_status transport_is genl
sub=$(stat_of ring_submissions)
warm_up
check ring.vadd_over_genl run_on gpu 200
check ring.genl_no_ring_use same ring_submissions "$sub"
stop_laked

# Forged completions: fenced, nothing delivered, the batch redone on the CPU.
for kind in tail len record; do
	v=$(stat_of ring_violations) f=$(stat_of fences)
	check ring.forge_${kind}_registers start_laked --test-ring-forge=$kind
	echo "run 64" > $ex
	check ring.forge_${kind}_refused grew ring_violations "$v"
	check ring.forge_${kind}_fenced wait_for 20 grew fences "$f"
	check ring.forge_${kind}_nothing_wrong all_done
	wait "$pid" 2>/dev/null
	check ring.forge_${kind}_laked_gone wait_for 20 unregistered
done
check ring.violation_logged sh -c "dmesg | grep -q 'ring: .*fencing laked'"

check ring.rmmod_vadd rmmod lake_example_vadd
check ring.rmmod_lakelib rmmod lakelib
check ring.region_all_free sh -c "[ $(shm_of live_allocs) = 0 ]"
check ring.rmmod_lakeshm rmmod lakeshm
