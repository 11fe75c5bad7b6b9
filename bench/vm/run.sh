# The guest half of `make bench`: lakelib measured against its baselines.
. /lib/lake/vmlib.sh
stats=/sys/kernel/debug/lake/lakelib_stats
stat_of() { grep "^$1 " $stats | cut -d' ' -f2; }

insmod $M/lakeshm.ko size_mib=16 && insmod $M/lakelib.ko && insmod $M/lake_bench.ko || exit 1
laked --device=host > /tmp/laked.log 2>&1 &
for i in $(seq 50); do [ "$(stat_of daemon_portid)" != 0 ] && break; sleep 0.1; done
inline0=$(stat_of bytes_inline)
shm0=$(stat_of bytes_shm)
echo run > /sys/kernel/debug/lake/bench
cat /sys/kernel/debug/lake/bench
echo "bench: bytes lake copied inline during the copy run: $(( $(stat_of bytes_inline) - inline0 )) (passed by offset: $(( $(stat_of bytes_shm) - shm0 )))"
