# lakelib's tracepoints (system "lake"), read through tracefs: laked
# registering and going, calls sent and answered with matching request ids,
# latencies and results, async errors latched, fallback decisions.
. /lib/lake/vmlib.sh
dbg=/sys/kernel/debug/lake
stats=$dbg/lakelib_stats
ex=$dbg/example_vadd
tr=/sys/kernel/tracing

start_laked() {
	laked --device=host >> /tmp/laked.log 2>&1 &
	pid=$!
	for i in $(seq 50); do registered && return 0; sleep 0.1; done
	return 1
}
# has PATTERN: a line of the trace matches the extended regex.
has() { grep -qE "$1" /tmp/trace || { echo "no line matches: $1"; return 1; }; }
snap() { cat $tr/trace > /tmp/trace; }
# Every answered call's request id was sent first, with the same API.
ids_match() {
	sed -n 's/.*lake_call_done: api=\([A-Za-z0-9]*\) ctx=[0-9a-fx]* req_id=\([0-9]*\) .*/\1 \2/p' \
		/tmp/trace > /tmp/done
	[ -s /tmp/done ] || return 1
	while read -r api id; do
		grep -qE "lake_call_send: api=$api ctx=[0-9a-fx]* req_id=$id async=0" /tmp/trace ||
			{ echo "done $api $id never sent"; return 1; }
	done < /tmp/done
}

[ -d $tr/events ] || mount -t tracefs nodev $tr
check trace.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check trace.insmod_lakelib insmod $M/lakelib.ko timeout_ms=2000
check trace.events_exist sh -c "ls $tr/events/lake | grep -c '^lake_' | grep -qx 5"
check trace.format_call_done grep -q 'field:u64 latency_ns' $tr/events/lake/lake_call_done/format
echo 16384 > $tr/buffer_size_kb
echo 1 > $tr/events/lake/enable
echo > $tr/trace

check trace.laked_registers start_laked
check trace.insmod_example insmod $M/lake_example_vadd.ko n=64 max_batch=4 window_us=1000
check trace.calibrate sh -c "echo calibrate > $ex"
echo cpu > $dbg/policy/example_vadd/mode
echo "run 8" > $ex
check trace.insmod_cuda_selftest insmod $M/lake_cuda_selftest.ko
echo basic > $dbg/cuda_selftest
kill $pid
wait $pid 2>/dev/null
echo 0 > $tr/events/lake/enable
snap
grep -m 3 lake_call_done /tmp/trace | sed 's/^/# /'

check trace.daemon_register has "lake_daemon: register portid=[1-9][0-9]* pid=$pid host"
check trace.daemon_unregister has "lake_daemon: unregister portid=[1-9][0-9]* pid=$pid (unregistered|closed its socket)"
check trace.call_send_sync has 'lake_call_send: api=cuCtxCreate ctx=0x[0-9a-f]+ req_id=[0-9]+ async=0'
check trace.call_send_async has 'lake_call_send: api=cuLaunchKernel ctx=0x[0-9a-f]+ req_id=[0-9]+ async=1'
check trace.call_done_ok has 'lake_call_done: api=cuModuleLoad ctx=0x[0-9a-f]+ req_id=[0-9]+ latency_ns=[1-9][0-9]* result=0'
check trace.call_done_error has 'lake_call_done: api=[A-Za-z0-9]+ .* result=[1-9][0-9]*$'
check trace.call_ids_match ids_match
check trace.async_error has 'lake_async_error: ctx=0x[0-9a-f]+ stream=0x[0-9a-f]+ req_id=[0-9]+ result=[1-9][0-9]*'
check trace.decision_forced_cpu has 'lake_fallback_decision: policy=example_vadd batch=[1-4] side=cpu reason=forced_cpu'
check trace.decision_calibrating has 'lake_fallback_decision: policy=example_vadd batch=[0-9]+ side=(cpu|gpu) reason=[a-z_]+'

check trace.rmmod_cuda_selftest rmmod lake_cuda_selftest
check trace.rmmod_example rmmod lake_example_vadd
check trace.rmmod_lakelib rmmod lakelib
check trace.rmmod_lakeshm rmmod lakeshm
