# The guest half of `make bench`: lakelib measured against its baselines.
. /lib/lake/vmlib.sh
stats=/sys/kernel/debug/lake/lakelib_stats
stat_of() { grep "^$1 " $stats | cut -d' ' -f2; }

insmod $M/lakeshm.ko size_mib=96 && insmod $M/lakelib.ko && insmod $M/lake_bench.ko || exit 1
cpus=$(nproc)

# The transport (lake_bench.c, cmd_transport): laked on genl, then on the
# ring, each against bare genl round trips in the same loop.
laked_up() {
	laked --device=host "$@" > /tmp/laked.log 2>&1 &
	laked_pid=$!
	for i in $(seq 50); do [ "$(stat_of daemon_portid)" != 0 ] && break; sleep 0.1; done
}
laked_down() {
	kill $laked_pid && wait $laked_pid
	for i in $(seq 50); do [ "$(stat_of daemon_portid)" = 0 ] && break; sleep 0.1; done
}
# field_of TRANSPORT WHAT p50|p99: a figure of the last transport run
field_of() { sed -n "s/^bench: transport $2: p50 \([0-9]*\) ns, p99 \([0-9]*\) ns$/\1 \2/p" /tmp/tr.$1 |
	{ read p50 p99; [ "$3" = p50 ] && echo "$p50" || echo "$p99"; }; }
# ratio NAME A B TARGET_X100: one row, as lake_bench.c prints them
ratio() {
	[ -n "$2" ] && [ -n "$3" ] && [ "$3" -gt 0 ] || { echo "bench: $1: no figure"; return; }
	r=$(($2 * 100 / $3))
	[ $r -le $4 ] && v=met || v=MISSED
	printf 'bench: %-44s %10s ns vs %10s  ratio %d.%02d  target <=%d.%02d  %s\n' "$1" "$2" "$3" \
		$((r / 100)) $((r % 100)) $(($4 / 100)) $(($4 % 100)) $v
}
b=/sys/kernel/debug/lake/bench
for t in genl ring; do
	laked_up --transport=$t
	lakectl status | grep '^transport' | sed "s/^/bench: $cpus cpu, laked --transport=$t: /"
	echo transport > $b && cat $b > /tmp/tr.$t
	sed "s/^bench: transport /bench: $cpus cpu, $t transport, /" /tmp/tr.$t
	echo "bench: $t: lakelib's counts: $(grep '^ring_' $stats | tr '\n' ' ')"
	laked_down
	grep 'ring: ' /tmp/laked.log | tail -n 1 | sed "s/^/bench: $t: /"
done
g_awake=$(field_of ring genl_awake p50)
g_awake99=$(field_of ring genl_awake p99)
if [ "$cpus" -gt 1 ]; then
	awake=5 awake99=5
else
	awake=100 awake99=100
fi
ratio "$cpus cpu: ring null call back to back p50 vs genl" "$(field_of ring null_awake p50)" "$g_awake" $awake
ratio "$cpus cpu: ring null call back to back p99 vs genl" "$(field_of ring null_awake p99)" "$g_awake99" $awake99
ratio "$cpus cpu: ring null call, both asleep vs genl" "$(field_of ring null_asleep p50)" \
	"$(field_of ring genl_asleep p50)" 70
ratio "$cpus cpu: ring 16 async + sync vs one null call" "$(field_of ring async16 p50)" \
	"$(field_of ring null_awake p50)" 150
ratio "$cpus cpu: genl null call back to back vs genl" "$(field_of genl null_awake p50)" \
	"$(field_of genl genl_awake p50)" 130
ratio "$cpus cpu: ring null call vs genl transport's" "$(field_of ring null_awake p50)" \
	"$(field_of genl null_awake p50)" 100
# The 2-CPU boot measures the transport only.
[ "$cpus" -gt 1 ] && exit 0

laked_up
inline0=$(stat_of bytes_inline)
shm0=$(stat_of bytes_shm)
echo run > /sys/kernel/debug/lake/bench
cat /sys/kernel/debug/lake/bench
# laked copies with the C library's memcpy in user space: compare with that too.
# memcpy_bench writes the region from its start, where laked's command ring
# lives while laked is registered: laked is down meanwhile.
lake_ns=$(sed -n 's/^bench: copy_lake_ns //p' /sys/kernel/debug/lake/bench)
shifted_ns=$(sed -n 's/^bench: copy_shifted_ns //p' /sys/kernel/debug/lake/bench)
laked_down
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
if [ -n "$shifted_ns" ] && [ "$shifted_ns" -gt 0 ]; then
	r=$((user_ns * 100 / shifted_ns))
	echo "bench: TCG check: the same, device address moved 64 KiB: $shifted_ns ns, ratio $((r / 100)).$(printf %02d $((r % 100))) vs user memcpy"
fi
echo "bench: TCG check: user memcpy 1 MiB there and back, buffers equal modulo 2 MiB: $(memcpy_bench 1048576 20 congruent) ns"
echo "bench: TCG check: user memcpy 1 MiB there and back, an address-space switch before each copy: $(memcpy_bench 1048576 20 switch) ns"
echo "bench: bytes lake copied inline during the copy run: $(( $(stat_of bytes_inline) - inline0 )) (passed by offset: $(( $(stat_of bytes_shm) - shm0 )))"
laked_up
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
# linnos_runs PREFIX: NN, NN+1 and NN+2 through the target's bench, each line prefixed.
linnos_runs() {
	b=/sys/kernel/debug/lake/linnos/lin/bench
	for v in "NN nn 8" "NN+1 nn1 4" "NN+2 nn2 4"; do
		set -- $v
		if dmsetup message lin 0 model linnos/linnos_$2.lnw && echo run > $b; then
			sed "s/^/bench: $PREFIX $1 /; s/^\(bench: $PREFIX $1 crossover .*\)/\1 (LAKE: $3)/" $b
		else
			echo "bench: $PREFIX $1 failed"
		fi
	done
}
# gpu_ns_of PREFIX V N: the GPU side's time for a batch of N
gpu_ns_of() { sed -n "s/^bench: $1 $2 batch $3 cpu_ns [0-9]* gpu_ns \([0-9]*\)$/\1/p" /tmp/linnos.out; }
if linnos_dm_up 0 mode=cpu model=linnos/linnos_nn.lnw; then
	# The ring (laked as started above), then genl: the same target, laked restarted.
	PREFIX=linnos linnos_runs | tee /tmp/linnos.out
	laked_down
	laked_up --transport=genl
	# The target's first batch on a new laked meets stale handles, and resets.
	echo run > /sys/kernel/debug/lake/linnos/lin/bench 2> /dev/null
	PREFIX="linnos over genl:" linnos_runs | tee -a /tmp/linnos.out
	for v in NN NN+1 NN+2; do
		ratio "linnos $v batch 8, GPU side: ring vs genl" "$(gpu_ns_of linnos $v 8)" \
			"$(gpu_ns_of "linnos over genl:" $v 8)" 100
	done
else
	echo "bench: linnos setup failed"
fi
# examples/crypto: MB/s per request size, the kernel's own xts(aes) (the CPU
# driver: aes-generic's in the guest, whose CPU has no AES-NI) against
# xts-aes-lake forced to laked's host device (its table-free cipher there),
# every request in flight at once as dm-crypt issues them; then the policy
# calibrated on 512-byte requests, and its crossover.
for m in $(cat $M/kernel/xts.order $M/kernel/gcm.order); do insmod $M/kernel/$m.ko 2> /dev/null; done
x=/sys/kernel/debug/lake/example_xts
xpol=/sys/kernel/debug/lake/policy/example_xts
# xts_kbps SIZE COUNT cpu|lake: one bench run's kB/s; mb KBPS: as MB/s, two decimals
xts_kbps() { echo "bench $1 $2 $3" > $x && sed -n "s/^bench $3 .* kbps \([0-9]*\) err 0$/\1/p" $x; }
mb() { echo "$(($1 / 1000)).$(printf %02d $(($1 % 1000 / 10)))"; }
if insmod $M/lake_example_xts.ko policy_mode=gpu batch_kib=4096; then
	for sc in "512 2048" "4096 256" "65536 32"; do
		set -- $sc
		cpu_kb=$(xts_kbps $1 $2 cpu) lake_kb=$(xts_kbps $1 $2 lake)
		if [ -n "$cpu_kb" ] && [ -n "$lake_kb" ] && [ "$cpu_kb" -gt 0 ]; then
			r=$((lake_kb * 1000 / cpu_kb))
			echo "bench: crypto xts(aes) $1-byte requests, $2 in flight: CPU driver $(mb $cpu_kb) MB/s, lake on the host device $(mb $lake_kb) MB/s, lake/CPU $((r / 1000)).$(printf %03d $((r % 1000)))x"
		else
			echo "bench: crypto xts(aes) $1-byte requests: no figure"
		fi
	done
	echo "bench: crypto: $(grep -E '^(ran_|gpu_batches|redone_on_cpu|errors)' $x | tr '\n' ' ')"
	echo auto > $xpol/mode
	if echo calibrate > $x; then
		echo "bench: crypto xts(aes) 512-byte requests, batch 1-64, crossover (CPU vs laked's host device): $(sed -n 's/^crossover_calibrated //p' $xpol/status)"
	else
		echo "bench: crypto calibration failed"
	fi
	# gcm(aes) the same way: 16 bytes of associated data per request (an ESP
	# header's worth), 16-byte tags; gcm-aes-lake on laked's host device runs
	# its table-free AES and GHASH there (the guest's CPU: no AES-NI, no PCLMUL).
	gx=/sys/kernel/debug/lake/example_gcm
	gpol=/sys/kernel/debug/lake/policy/example_gcm
	gcm_kbps() { echo "bench $1 $2 $3" > $gx && sed -n "s/^bench $3 .* kbps \([0-9]*\) err 0$/\1/p" $gx; }
	for sc in "512 2048" "4096 256" "65536 32"; do
		set -- $sc
		cpu_kb=$(gcm_kbps $1 $2 cpu) lake_kb=$(gcm_kbps $1 $2 lake)
		if [ -n "$cpu_kb" ] && [ -n "$lake_kb" ] && [ "$cpu_kb" -gt 0 ]; then
			r=$((lake_kb * 1000 / cpu_kb))
			echo "bench: crypto gcm(aes) $1-byte requests, $2 in flight: CPU driver $(mb $cpu_kb) MB/s, lake on the host device $(mb $lake_kb) MB/s, lake/CPU $((r / 1000)).$(printf %03d $((r % 1000)))x"
		else
			echo "bench: crypto gcm(aes) $1-byte requests: no figure"
		fi
	done
	echo "bench: crypto gcm: $(grep -E '^(ran_|gpu_batches|redone_on_cpu|errors)' $gx | tr '\n' ' ')"
	echo auto > $gpol/mode
	if echo calibrate > $gx; then
		echo "bench: crypto gcm(aes) 512-byte requests, batch 1-64, crossover (CPU vs laked's host device): $(sed -n 's/^crossover_calibrated //p' $gpol/status)"
	else
		echo "bench: crypto gcm calibration failed"
	fi
	rmmod lake_example_xts
else
	echo "bench: crypto setup failed"
fi
# examples/sysmon: k nearest neighbours over the shipped reference, a batch of
# windows scored on each side (best of 5), batch 1 to 256, the crossover
# (LAKE's kNN: the GPU from batch 8, 2.4 ms against 14.9 ms), and the
# policy's own calibration. laked on the ring again.
laked_down
laked_up
s=/sys/kernel/debug/lake/sysmon
if insmod $M/lake_sysmon.ko ref=sysmon/sysmon.skr period_ms=60000 &&
		echo "bench 1 2 4 8 16 32 64 128 256" > $s/ctl; then
	refs=$(sed -n 's/^refs \([0-9]*\) .*/\1/p' $s/bench)
	sed -n 's/^batch \([0-9]*\) cpu_ns \([0-9]*\) gpu_ns \([0-9]*\) mismatches \([0-9]*\)$/\1 \2 \3 \4/p' $s/bench |
		while read -r n c g mm; do
			[ "$c" -gt 0 ] || c=1	# a batch faster than the clock's step
			r=$((g * 100 / c))
			echo "bench: sysmon knn batch $n x $refs refs: CPU $c ns, laked's host device $g ns, host/CPU $((r / 100)).$(printf %02d $((r % 100)))x, mismatches $mm"
		done
	echo "bench: sysmon knn crossover (CPU vs laked's host device): $(sed -n 's/^crossover //p' $s/bench) (LAKE's GPU: 8)"
	if echo calibrate > $s/ctl; then
		echo "bench: sysmon policy calibrated crossover: $(sed -n 's/^crossover_calibrated //p' /sys/kernel/debug/lake/policy/sysmon/status)"
	fi
	rmmod lake_sysmon
else
	echo "bench: sysmon setup failed"
fi
# examples/readahead: the model over batches of 1 to 16 devices' windows, each
# side timed by the policy's calibration (lakelib's buckets: a batch's time on
# the CPU and through laked's host device), and the crossover it finds (LAKE's
# KML: a few hundred inputs). Throughput per phase is make demo-readahead's.
if insmod $M/lake_readahead.ko && echo calibrate > /sys/kernel/debug/lake/readahead/ctl; then
	rpol=/sys/kernel/debug/lake/policy/readahead/status
	sed -n 's/^bucket [0-9]* batch \([0-9]*\)\.\. cpu_ns \([0-9]*\) at [0-9]* gpu_ns \([0-9]*\) at [0-9]*$/\1 \2 \3/p' $rpol |
		while read -r n c g; do
			[ "$c" -gt 0 ] && [ "$g" -gt 0 ] || continue
			r=$((g * 100 / c))
			echo "bench: readahead model batch $n: CPU $c ns, laked's host device $g ns, host/CPU $((r / 100)).$(printf %02d $((r % 100)))x"
		done
	echo "bench: readahead policy calibrated crossover: $(sed -n 's/^crossover_calibrated //p' $rpol)"
	rmmod lake_readahead
else
	echo "bench: readahead setup failed"
fi
# tcrypt, Debian's module, on its own terms: mode 215 (gcm(aes), 8 requests
# in flight) and 600 (multibuffer skciphers, xts(aes) among them), sec=0:
# cycles per operation over 8 timed rounds after 4 warm-ups, turned into
# MB/s with the guest's clock (cpu MHz). Its insmod always fails by design
# (-EAGAIN: it has nothing to stay loaded for); the figures are in dmesg.
# The CPU's drivers first, then lake's loaded with priority=500 (above
# theirs), so that tcrypt's plain names resolve to lake's drivers.
mhz=$(sed -n 's/^cpu MHz[^:]*: *\([0-9]*\).*/\1/p' /proc/cpuinfo | head -n 1)
tc_run() { dmesg -c > /dev/null; insmod $M/kernel/tcrypt.ko mode=$1 sec=0 2> /dev/null; dmesg > "$2"; }
# tc_fig FILE ALG KEYBITS SIZE: "DRIVER MB/s" of ALG's encryption at that key and size
tc_fig() {
	awk -v alg="$2" -v kb="($3 bit key, $4 byte blocks)" -v sz="$4" -v mhz="$mhz" '
		/testing speed of/ { on = index($0, " " alg " (") && /encryption/; d = $0
			sub(/.* \(/, "", d); sub(/\) (en|de)cryption.*/, "", d); next }
		on && index($0, kb) && / cycles / {
			for (i = 1; i < NF; i++) if ($i == "in") c = $(i + 1)
			if (c > 0) { printf "%s %.2f\n", d, sz * mhz / c; exit } }' "$1"
}
tc_rows() {
	for sc in "215 gcm(aes) 128 512" "215 gcm(aes) 128 4096" "600 xts(aes) 256 256" "600 xts(aes) 256 4096"; do
		set -- $sc
		c=$(tc_fig /tmp/tcrypt-cpu.$1 $2 $3 $4) l=$(tc_fig /tmp/tcrypt-lake.$1 $2 $3 $4)
		cm=${c##* } lm=${l##* }
		case "${l%% *}" in
		*-lake) ;;
		*) echo "bench: crypto tcrypt mode $1 $2 $4-byte blocks: no figure (cpu: ${c:-none}, lake: ${l:-none})"; continue ;;
		esac
		[ -n "$c" ] || { echo "bench: crypto tcrypt mode $1 $2 $4-byte blocks: no CPU figure"; continue; }
		r=$(awk -v a="$lm" -v b="$cm" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
		echo "bench: crypto tcrypt mode $1 $2 $3-bit key, 8 in flight, $4-byte blocks: CPU driver ${c%% *} $cm MB/s, ${l%% *} on the host device $lm MB/s, lake/CPU ${r}x"
	done
}
if [ -n "$mhz" ] && [ -f $M/kernel/tcrypt.ko ]; then
	tc_run 215 /tmp/tcrypt-cpu.215
	tc_run 600 /tmp/tcrypt-cpu.600
	if insmod $M/lake_example_xts.ko policy_mode=gpu batch_kib=4096 priority=500; then
		tc_run 215 /tmp/tcrypt-lake.215
		tc_run 600 /tmp/tcrypt-lake.600
		tc_rows
		# tcrypt's rfc4106(gcm(aes)) instance may hold lake's gcm: no rmmod check here.
		rmmod lake_example_xts 2> /dev/null
	else
		echo "bench: crypto tcrypt: lake's drivers did not load"
	fi
else
	echo "bench: crypto tcrypt: no tcrypt.ko or no cpu MHz"
fi
