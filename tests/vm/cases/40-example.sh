# examples/vadd: requests complete, right, on the CPU without laked, on the
# GPU side (laked's host device) when the policy is forced there, and on the
# CPU again after laked is killed with requests in flight.
. /lib/lake/vmlib.sh
dbg=/sys/kernel/debug/lake
ex=$dbg/example_vadd
pol=$dbg/policy/example_vadd
stats=$dbg/lakelib_stats

ex_of() { grep "^$1 " $ex | cut -d' ' -f2; }
ex_gt() { [ "$(ex_of "$1")" -gt "$2" ]; }
start_laked() {
	laked --device=host >> /tmp/laked.log 2>&1 &
	pid=$!
	wait_for 20 registered
}
in_flight() { [ "$(stat_of in_flight)" -gt 0 ]; }
# run_on SIDE COUNT: COUNT more requests, all completed on SIDE, none wrong.
run_on() {
	_r=$(ex_of requests) _s=$(ex_of "$1")
	echo "run $2" > $ex || return 1
	[ "$(ex_of requests)" = $((_r + $2)) ] && [ "$(ex_of "$1")" = $((_s + $2)) ] &&
		[ "$(ex_of wrong)" = 0 ] && [ "$(ex_of failed)" = 0 ]
}
# Every request submitted so far completed, right, on one side or the other.
all_done() {
	[ "$(ex_of requests)" = $(($(ex_of cpu) + $(ex_of gpu))) ] &&
		[ "$(ex_of wrong)" = 0 ] && [ "$(ex_of failed)" = 0 ]
}

check example.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check example.insmod_lakelib insmod $M/lakelib.ko timeout_ms=20000
check example.insmod insmod $M/lake_example_vadd.ko n=256 max_batch=8 window_us=2000
check example.policy_registered grep -qx 'name example_vadd' $pol/status
refuse example.bad_command sh -c "echo fly > $ex"

# No laked: the CPU does everything, in batches.
check example.cpu_without_laked run_on cpu 200
check example.reason_no_daemon grep -qx 'last_reason no_daemon' $ex
check example.batched sh -c "[ $(ex_of batches) -lt $(ex_of requests) ]"

# laked up: calibration times both sides; forced, the GPU side does it all.
check example.laked_registers start_laked
check example.calibrate sh -c "echo calibrate > $ex"
echo "# calibrated crossover: $(grep '^crossover_calibrated ' $pol/status | cut -d' ' -f2)"
echo gpu > $pol/mode
check example.gpu_forced run_on gpu 200
check example.reason_forced_gpu grep -qx 'last_reason forced_gpu' $ex

# kill -9 with requests in flight: laked is stopped before the run starts,
# so, the GPU being forced, the run's first batch waits on it whatever the
# host's speed, and no batch can complete until laked is killed. The waiting
# batch fails at once and runs again on the CPU, and the rest of the run
# goes to the CPU: every request completes. lakelib's timeout is far above
# the few moments this takes, so a call that ends in one was not freed by
# laked's death.
timeouts=$(stat_of timeouts)
stop_task $pid
echo "run 2000" > $ex &
writer=$!
check example.gpu_batch_waits wait_for 20 in_flight
check example.stopped_mid_run kill -0 $writer
kill -9 $pid
wait $writer
echo "# after kill -9: $(tr '\n' ' ' < $ex)"
check example.kill9_nothing_lost all_done
check example.kill9_batch_rerun_on_cpu ex_gt gpu_reruns 0
check example.kill9_fails_waiting_call sh -c "[ $(stat_of timeouts) = $timeouts ]"
check example.cpu_after_kill run_on cpu 200
check example.reason_after_kill grep -qx 'last_reason no_daemon' $ex
refuse example.calibrate_without_laked sh -c "echo calibrate > $ex"

check example.rmmod rmmod lake_example_vadd
check example.policy_gone [ ! -e $pol ]
check example.rmmod_lakelib rmmod lakelib
check example.rmmod_lakeshm rmmod lakeshm
