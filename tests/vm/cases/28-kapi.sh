# A LAKE-style module (tests/kapi/hello, built by the README's commands
# against include/kapi): it loads against lakelib's _v2 names and LAKE's
# kava_* calls, and its CUDA C++ kernels (mangled names, __shared__ and
# __syncthreads, a 2-D grid) run on laked's host device, as the README says.
. /lib/lake/vmlib.sh

start_laked() {
	laked --device=host >> /tmp/laked-kapi.log 2>&1 &
	pid=$!
	wait_for 20 registered
}
# load [PARAMS]: insmod kapi_hello and keep its log lines in /tmp/kapi.log.
load() {
	dmesg -c > /dev/null
	insmod $M/kapi_hello.ko "$@" || return 1
	dmesg | grep 'kapi_hello: ' | sed 's/^\[[^]]*\] //' > /tmp/kapi.log
	rmmod kapi_hello
}
summary() { grep -qx "kapi_hello: $1" /tmp/kapi.log; }

check kapi.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check kapi.insmod_lakelib insmod $M/lakelib.ko timeout_ms=5000

# No laked: the module still loads, at once, and says what failed.
check kapi.loads_without_laked load
check kapi.without_laked_fails_calls summary '2 passed, 2 failed'
check kapi.without_laked_shm_works grep -qx 'kapi_hello: ok - kava_shm_offset' /tmp/kapi.log

check kapi.laked_registers start_laked
check kapi.loads load
sed 's/^/# /' /tmp/kapi.log
check kapi.all_checks_pass summary '13 passed, 0 failed'
check kapi.barrier_kernel grep -qx 'kapi_hello: ok - block_sum' /tmp/kapi.log
# The host device measures its utilisation but counts no processes.
check kapi.nvml_as_host_device grep -Eqx \
	'kapi_hello: nvmlRunningProcs: -1 \(801\), nvmlUtilRate: [0-9]+% \(0\)' /tmp/kapi.log

# A cubin that is not there fails cuModuleLoad, and nothing else breaks.
check kapi.loads_missing_cubin load cubin_path=nowhere.cubin
check kapi.missing_cubin_refused grep -q 'cuModuleLoad.*CUDA_ERROR_FILE_NOT_FOUND' /tmp/kapi.log
check kapi.missing_cubin_summary summary '8 passed, 1 failed'
check kapi.laked_alive kill -0 $pid

kill -TERM $pid
wait $pid
check kapi.rmmod_lakelib rmmod lakelib
check kapi.rmmod_lakeshm rmmod lakeshm
grep -E 'laked|lake' /tmp/laked-kapi.log | tail -n 10 | sed 's/^/# laked: /'
