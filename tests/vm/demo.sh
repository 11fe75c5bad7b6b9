# The guest half of `make demo`: lake at work. lakeshm's region and its
# allocator, then laked serving the CUDA API to kernel code (vadd on the
# host device), then what lakelib counted.
. /lib/lake/vmlib.sh
say() { echo "demo: $*"; }
shmctl=/sys/kernel/debug/lake/shm_selftest
cudactl=/sys/kernel/debug/lake/cuda_selftest
stats=/sys/kernel/debug/lake/lakelib_stats
stat_of() { grep "^$1 " $stats | cut -d' ' -f2; }

say "insmod lakeshm.ko size_mib=16; insmod lakelib.ko"
insmod $M/lakeshm.ko size_mib=16 && insmod $M/lakelib.ko || exit 1
insmod $M/lake_shm_selftest.ko && insmod $M/lake_cuda_selftest.ko || exit 1
say "/dev/lake_shm: $(ls -l /dev/lake_shm | awk '{print $1, $3}')"
for req in "4096 0 1" "100 0 2" "3000 4096 3" "64 0 4"; do
	echo "alloc $req" > $shmctl
	say "kernel allocates $(echo $req | cut -d' ' -f1) bytes (align $(echo $req | cut -d' ' -f2)) -> offset $(cat $shmctl)"
done
say "user space maps the region and reads the buffer at offset 8192:"
shm_peek 8192 16 | sed 's/^/demo:   /'
echo "free 4096" > $shmctl
echo "free 0" > $shmctl
say "freed two neighbours: free blocks $(grep free_blocks /sys/kernel/debug/lake/shm_stats | cut -d' ' -f2), largest $(grep largest_free /sys/kernel/debug/lake/shm_stats | cut -d' ' -f2) bytes"

say "without laked, calls fail at once:"
echo nodaemon > $cudactl
sed 's/^/demo:   /' $cudactl
say "starting laked --device=host"
laked --device=host > /tmp/laked.log 2>&1 &
for i in $(seq 50); do [ "$(stat_of daemon_portid)" != 0 ] && break; sleep 0.1; done
sed 's/^/demo:   laked: /' /tmp/laked.log
say "kernel code calls the CUDA API: devices, contexts, memory, vadd on the host device, streams, events, async errors, bad handles"
echo basic > $cudactl
say "  $(grep -c '^ok' $cudactl) checks passed, $(grep -c '^not ok' $cudactl) failed; for example:"
grep -E 'vadd_result|launch_params|async_error_at_stream_sync|get_function_forged' $cudactl | sed 's/^/demo:     /'
echo "threads 4 10" > $cudactl
say "four kernel threads, each its own context, 10 vadd rounds each: $(grep -c '^ok' $cudactl)/4 ok"
say "lakelib counters (debugfs lake/lakelib_stats):"
grep -E '^(messages|async_queued|bytes_inline|bytes_shm|errors|calls_cuLaunchKernel|calls_cuMemcpyHtoD) ' $stats | sed 's/^/demo:   /'
kill -TERM %1 2>/dev/null; wait
rmmod lake_cuda_selftest lake_shm_selftest lakelib lakeshm && say "laked stopped, modules unloaded cleanly"
