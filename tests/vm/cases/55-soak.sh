# Soak: eight kernel threads make mixed sync and async calls (and LinnOS
# reads go through dm-linnos in GPU mode) while laked is killed (-9, TERM)
# or stopped past timeout_ms (lakelib fences it) and restarted at seeded
# random moments, under stress-ng's CPU, memory and mmap load. Every call
# must succeed with the right data or fail within timeout_ms plus slack; no
# task may hang (init sets hung_task_timeout_secs; tests/vm/run fails on
# "blocked for more than"); every counter returns to its start.
# Kernel arguments: lake_soak_seconds (default 16: make test's short run),
# lake_soak_seed (default: the clock; printed, so a schedule can be replayed).
. /lib/lake/vmlib.sh
D=/sys/kernel/debug/lake
ctl=$D/soak_selftest
stats=$D/lakelib_stats
secs=${lake_soak_seconds:-16}
seed=${lake_soak_seed:-$(date +%s)}
TMO=2000
# A fence waits for laked's threads to exit after SIGKILL; TCG under
# stress-ng adds scheduling delay. Anything past this is a late call.
BOUND=$((TMO + 1500))
SECTORS=32768	# 16 MiB per LinnOS replica
echo "# soak: seed $seed, $secs s, timeout_ms $TMO, bound $BOUND ms (lake_soak_seed=$seed replays)"

start_laked() {
	laked --device=host >> /tmp/laked-soak.log 2>&1 &
	pid=$!
	wait_for 20 registered
}
st_of() { dmsetup status lin | tr ' ' '\n' | grep -A1 -x "$1" | tail -n 1; }
sum_of() { dd if="$1" bs=64k count=${2:-256} iflag=direct 2> /dev/null | md5sum | cut -d' ' -f1; }

# The LinnOS case may have left them loaded (as it needs them: 16 MiB disks).
loaded() { grep -q "^$1 " /proc/modules; }
insmod_dm() {
	{ loaded dm_mod || insmod $M/kernel/dm-mod.ko; } &&
		{ loaded brd || insmod $M/kernel/brd.ko rd_nr=2 rd_size=16384; }
}
check soak.insmod_dm insmod_dm
check soak.insmod_lake sh -c "insmod $M/lakeshm.ko size_mib=32 && insmod $M/lakelib.ko timeout_ms=$TMO"
# What the consumers must give back: taken before any of them starts.
live0=$(shm_of live_allocs)
ctx0=$(stat_of ctx_threads)
check soak.insmod_selftest insmod $M/lake_soak_selftest.ko
check soak.insmod_linnos sh -c "insmod $M/lake_slowdisk.ko slow_us=2000 slow_pct=50 burst_max_ms=200 && insmod $M/lake_linnos.ko"
check soak.replicas sh -c \
	"dmsetup create slow0 --table '0 $SECTORS lake_slow /dev/ram0 0' &&
	 dmsetup create slow1 --table '0 $SECTORS lake_slow /dev/ram1 1' && dmsetup mknodes"
check soak.linnos_create sh -c "dmsetup create lin --table '0 $SECTORS linnos \
	/dev/mapper/slow0 /dev/mapper/slow1 mode=gpu model=linnos/linnos_nn.lnw' && dmsetup mknodes"
dd if=/dev/urandom of=/tmp/data bs=1M count=16 2> /dev/null
check soak.linnos_write dd if=/tmp/data of=/dev/mapper/lin bs=1M oflag=direct
want=$(md5sum < /tmp/data | cut -d' ' -f1)
check soak.laked_registers start_laked

# The load: readers of the LinnOS target checking every byte, stress-ng.
rm -f /tmp/soak.stop
(while [ ! -e /tmp/soak.stop ]; do
	if [ "$(sum_of /dev/mapper/lin)" = "$want" ]; then echo right; else echo wrong; fi
done) > /tmp/soak.reads &
reader=$!
stress-ng --cpu 1 --vm 1 --vm-bytes 48M --mmap 1 --mmap-bytes 16M \
	--timeout $((secs + 4))s --metrics-brief > /tmp/stress.out 2>&1 &
stress=$!
gpu0=$(st_of gpu_inferences)

check soak.start ctl_checks $ctl "start 8 $seed $BOUND"
sleep 2	# a quiet start: no call may fail before the first fault
# Calls are in flight: neither module may go.
refuse soak.rmmod_lakelib_busy_refused rmmod lakelib
refuse soak.rmmod_lakeshm_busy_refused rmmod lakeshm

# The schedule, from the seed: serving time, fault, downtime (ms).
awk -v s="$seed" -v secs="$secs" 'BEGIN { srand(s); for (i = 0; i < 4 * secs + 8; i++)
	printf "%d %d %d\n", 300 + int(rand() * 1700), int(rand() * 3), int(rand() * 800) }' \
	> /tmp/soak.plan
t_end=$(($(date +%s) + secs - 4))
kill9=0 term=0 stop=0 restarts=0
while read -r serve kind down; do
	# At least three faults, however slowly a loaded guest serves them
	# (a fenced stop alone takes timeout_ms and a restart); the plan bounds it.
	[ "$(date +%s)" -lt $t_end ] || [ $((kill9 + term + stop)) -lt 3 ] || break
	sleep "$(awk -v m=$serve 'BEGIN { print m / 1000 }')"
	ctl $ctl fault > /dev/null
	case $kind in
	0) kill -9 $pid; kill9=$((kill9 + 1)) ;;
	1) kill -TERM $pid; term=$((term + 1)) ;;
	*)	# Stopped past timeout_ms: the calls time out and lakelib fences it.
		stop_task $pid
		stop=$((stop + 1))
		wait_for 20 unregistered || { fail soak.stopped_laked_fenced; kill -9 $pid; }
		kill -CONT $pid 2> /dev/null ;;
	esac
	wait $pid 2> /dev/null
	sleep "$(awk -v m=$down 'BEGIN { print m / 1000 }')"
	start_laked && restarts=$((restarts + 1))
	ctl $ctl clear > /dev/null
done < /tmp/soak.plan
sleep 3	# a quiet end: every worker must work again
echo "# soak: faults: $kill9 kill -9, $term SIGTERM, $stop SIGSTOP past timeout_ms (fenced); $restarts restarts"
check soak.faults_injected [ $((kill9 + term + stop)) -ge 3 ]
check soak.every_restart_registered [ $restarts = $((kill9 + term + stop)) ]
ctl_checks $ctl stop

touch /tmp/soak.stop
wait $reader
wait $stress
src=$?
grep -E 'stress-ng: (info|fail|error).*(successful|failed|passed|stressor)' /tmp/stress.out |
	tail -n 3 | sed 's/^/# /'
check soak.stress_ng_ran [ $src = 0 ]
echo "# soak: LinnOS: $(grep -c right /tmp/soak.reads) reads of 16 MiB right," \
	"$(grep -c wrong /tmp/soak.reads) wrong; $(dmsetup status lin)"
check soak.linnos_reads_ran grep -q right /tmp/soak.reads
refuse soak.linnos_reads_right grep -q wrong /tmp/soak.reads
check soak.linnos_gpu_used [ "$(st_of gpu_inferences)" -gt "${gpu0:-0}" ]

# The consumers end: every counter is back where it started.
check soak.linnos_remove sh -c "dmsetup remove lin && rmmod lake_linnos"
check soak.rmmod_selftest rmmod lake_soak_selftest
kill -TERM $pid
wait $pid
for s in in_flight stage_chunks_in_use latched func_layouts; do
	echo "# soak: $s $(stat_of $s)"
	check soak.${s}_zero [ "$(stat_of $s)" = 0 ]
done
check soak.ctx_threads_back [ "$(stat_of ctx_threads)" = "$ctx0" ]
# lakelib's bounce pool is made at the first staged copy and kept.
echo "# soak: lakeshm live_allocs $(shm_of live_allocs) (at start $live0, + the bounce pool)"
check soak.shm_allocs_back [ "$(shm_of live_allocs)" = $((live0 + 1)) ]
echo "# soak: lakelib: $(grep -E '^(errors|timeouts|fences|async_dropped|stray_replies) ' $stats | tr '\n' ' ')"
dmsetup remove slow1
dmsetup remove slow0
rmmod lake_slowdisk
check soak.rmmod_lakelib rmmod lakelib
check soak.shm_allocs_zero [ "$(shm_of live_allocs)" = 0 ]
check soak.rmmod_lakeshm rmmod lakeshm
grep -E 'laked' /tmp/laked-soak.log | tail -n 5 | sed 's/^/# laked: /'
