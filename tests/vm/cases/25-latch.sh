# Async error latching from kernel code (tests/vm/modules/latch_selftest.c):
# the NULL stream, streams and contexts apart, first error wins, and every
# synchronizing call, and across contexts laked runs in parallel, against
# laked on the host device.
. /lib/lake/vmlib.sh
ctl=/sys/kernel/debug/lake/latch_selftest

check latch.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check latch.insmod_lakelib insmod $M/lakelib.ko timeout_ms=3000
check latch.insmod_selftest insmod $M/lake_latch_selftest.ko
laked --device=host >> /tmp/laked-latch.log 2>&1 &
pid=$!
for i in $(seq 50); do
	grep -q '^daemon_portid [1-9]' /sys/kernel/debug/lake/lakelib_stats && break
	sleep 0.1
done
echo run > $ctl
cat $ctl > /tmp/latch.out
grep -E '^(not )?ok - ' /tmp/latch.out
# Every check ran: a run cut short must not pass by saying less.
check latch.all_reported grep -qx 'latch: done' /tmp/latch.out
kill -TERM $pid
wait $pid
check latch.rmmod_selftest rmmod lake_latch_selftest
check latch.rmmod_lakelib rmmod lakelib
check latch.rmmod_lakeshm rmmod lakeshm
