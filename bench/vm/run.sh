# The guest half of `make bench`: lakelib measured against its baselines.
. /lib/lake/vmlib.sh
stats=/sys/kernel/debug/lake/lakelib_stats
stat_of() { grep "^$1 " $stats | cut -d' ' -f2; }

insmod $M/lakeshm.ko size_mib=96 && insmod $M/lakelib.ko && insmod $M/lake_bench.ko || exit 1
laked --device=host > /tmp/laked.log 2>&1 &
for i in $(seq 50); do [ "$(stat_of daemon_portid)" != 0 ] && break; sleep 0.1; done
inline0=$(stat_of bytes_inline)
shm0=$(stat_of bytes_shm)
echo run > /sys/kernel/debug/lake/bench
cat /sys/kernel/debug/lake/bench
# laked copies with the C library's memcpy in user space: compare with that too.
lake_ns=$(sed -n 's/^bench: copy_lake_ns //p' /sys/kernel/debug/lake/bench)
user_ns=$(memcpy_bench 1048576 20)
echo "bench: user memcpy 1 MiB there and back: heap<->heap $user_ns ns, lakeshm<->heap $(memcpy_bench 1048576 20 shm) ns"
set -- $(devcopy)
echo "bench: host device alone, 1 MiB there and back: $1 ns (memcpy in the same process: $2 ns)"
if [ -n "$lake_ns" ] && [ "$lake_ns" -gt 0 ]; then
	r=$((user_ns * 100 / lake_ns))
	[ $r -ge 50 ] && v=met || v=MISSED
	echo "bench: 1 MiB copy throughput vs user memcpy   $user_ns ns vs $lake_ns ns  ratio $((r / 100)).$(printf %02d $((r % 100)))  target >=0.50  $v"
fi
# TCG checks (lake_bench.c, bench_copy): the same copies with only the device
# address moved 64 KiB; plain memcpy between buffers equal modulo 2 MiB, and
# after address-space switches, which make TCG flush its whole software TLB.
shifted_ns=$(sed -n 's/^bench: copy_shifted_ns //p' /sys/kernel/debug/lake/bench)
if [ -n "$shifted_ns" ] && [ "$shifted_ns" -gt 0 ]; then
	r=$((user_ns * 100 / shifted_ns))
	echo "bench: TCG check: the same, device address moved 64 KiB: $shifted_ns ns, ratio $((r / 100)).$(printf %02d $((r % 100))) vs user memcpy"
fi
echo "bench: TCG check: user memcpy 1 MiB there and back, buffers equal modulo 2 MiB: $(memcpy_bench 1048576 20 congruent) ns"
echo "bench: TCG check: user memcpy 1 MiB there and back, an address-space switch before each copy: $(memcpy_bench 1048576 20 switch) ns"
echo "bench: bytes lake copied inline during the copy run: $(( $(stat_of bytes_inline) - inline0 )) (passed by offset: $(( $(stat_of bytes_shm) - shm0 )))"
# Unprivileged stats requests against the calls: 2,000 threads hold a
# context (lakelib's context table), the null call alone and while nobody
# floods STATS_GET (each counts that table's threads).
b=/sys/kernel/debug/lake/bench
echo "holders 2000" > $b && cat $b
echo nullcalls > $b && echo "$(cat $b) (alone)"
genl_probe --uid 65534 stats_flood OK > /dev/null 2>&1 &
flood=$!
sleep 1
echo nullcalls > $b && echo "$(cat $b) (during a stats flood by nobody)"
kill $flood
wait $flood 2> /dev/null
echo holders_end > $b
# LinnOS: a batch of feature vectors through each side, the whole path
# (examples/linnos, debugfs bench), batch 1 to 256, and the crossover, for
# NN, NN+1 and NN+2 (LAKE's GPU took over from batch 8 for NN, 4 for the
# deeper two).
. /lib/lake/linnos.sh
if linnos_dm_up 0 mode=cpu model=linnos/linnos_nn.lnw; then
	b=/sys/kernel/debug/lake/linnos/lin/bench
	for v in "NN nn 8" "NN+1 nn1 4" "NN+2 nn2 4"; do
		set -- $v
		if dmsetup message lin 0 model linnos/linnos_$2.lnw && echo run > $b; then
			sed "s/^/bench: linnos $1 /; s/^\(bench: linnos $1 crossover .*\)/\1 (LAKE: $3)/" $b
		else
			echo "bench: linnos $1 failed"
		fi
	done
else
	echo "bench: linnos setup failed"
fi
