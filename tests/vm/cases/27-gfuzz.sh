# The "lake" genl family under hostile senders (genl_fuzz): each command's
# permission; seeded random and mutated messages as root and as nobody while
# laked serves a consumer that checks its results; a fake laked lying to a
# consumer whose buffers are guarded; laked killed by its seccomp filter.
# Kernel arguments: lake_gfuzz_count (fuzzer messages, default 600: make
# test's short run), lake_gfuzz_rounds (hostile consumer rounds, 20),
# lake_gfuzz_seed (default: the clock; printed, so a run can be replayed).
. /lib/lake/vmlib.sh
D=/sys/kernel/debug/lake
ctl=$D/cuda_selftest
stats=$D/lakelib_stats
count=${lake_gfuzz_count:-600}
rounds=${lake_gfuzz_rounds:-20}
seed=${lake_gfuzz_seed:-$(date +%s)}
echo "# gfuzz: seed $seed, $count messages, $rounds hostile rounds (lake_gfuzz_seed=$seed replays)"

start_laked() {
	laked --device=host >> /tmp/laked-gfuzz.log 2>&1 &
	pid=$!
	wait_for 20 registered
}
live_allocs() { grep '^live_allocs ' $D/shm_stats | cut -d' ' -f2; }

check gfuzz.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check gfuzz.insmod_lakelib insmod $M/lakelib.ko timeout_ms=3000
check gfuzz.insmod_selftest insmod $M/lake_cuda_selftest.ko
check gfuzz.laked_registers start_laked
portid=$(stat_of daemon_portid)

# Every command, as nobody and as root that is not laked: refused, and the
# refusals lakelib sees (root's) counted, one each.
forged=$(stat_of forged_replies)
refused=$(stat_of refused_registrations)
prog gfuzz.perm_root genl_fuzz perm
prog gfuzz.perm_nobody su -s /bin/sh nobody -c "genl_fuzz perm"
check gfuzz.forged_counted sh -c "[ $(stat_of forged_replies) = $((forged + 4)) ]"
check gfuzz.refused_registration_counted \
	sh -c "[ $(stat_of refused_registrations) = $((refused + 1)) ]"

# The fuzzer while a consumer runs vadd in a loop and checks every result.
shm0=$(live_allocs)
rm -f /tmp/gfuzz.done
(while [ ! -e /tmp/gfuzz.done ]; do ctl $ctl "threads 2 5"; done) > /tmp/consumer.out 2>&1 &
cons=$!
t0=$(date +%s)
prog gfuzz.fuzz genl_fuzz fuzz $seed $count
echo "# gfuzz: fuzz phase $(($(date +%s) - t0)) s"
touch /tmp/gfuzz.done
wait $cons
echo "# gfuzz: consumer: $(grep -c '^ok - ' /tmp/consumer.out) results right," \
	"$(grep -c '^not ok - ' /tmp/consumer.out) wrong"
grep '^not ok - ' /tmp/consumer.out | head -n 5 | sed 's/^/# /'
check gfuzz.consumer_ran grep -q '^ok - cuda.threads_worker' /tmp/consumer.out
refuse gfuzz.consumer_results_right grep -q '^not ok - ' /tmp/consumer.out
check gfuzz.laked_kept sh -c "[ $(stat_of daemon_portid) = $portid ] && kill -0 $pid"
check gfuzz.no_call_in_flight sh -c "[ $(stat_of in_flight) = 0 ]"
check gfuzz.shm_allocs_back sh -c "[ $(live_allocs) = $shm0 ]"
check gfuzz.serves_after_fuzz ctl_checks $ctl basic

# A compromised laked: hostile replies are refused, nothing lands outside
# the consumer's buffers, and a real laked serves again afterwards; then the
# same lies over the command ring, every well-formed hostile reply in a
# completion slot: refused or stray as over genl, never fenced, never a wrong
# result (a malformed record there is a violation: 26-ring.sh).
# fake_round MODE PREFIX: one round of genl_fuzz MODE, its checks named PREFIX...
fake_round() {
	kill -TERM $pid
	wait $pid
	bad=$(stat_of bad_records)
	stray=$(stat_of stray_replies)
	fences=$(stat_of fences)
	comp=$(stat_of ring_completions)
	# A file per round: the child truncates it only once it runs, and the
	# wait below must not find the previous round's line meanwhile.
	out=/tmp/fake-$1.out
	genl_fuzz $1 $seed 1000000000 > $out 2>&1 &
	fake=$!
	check gfuzz.$2fake_daemon_registers wait_for 10 grep -q LAKE_GFUZZ_REGISTERED $out
	check gfuzz.$2hostile_consumer ctl_checks $ctl "hostile $rounds"
	grep '^# hostile' /tmp/check.out
	kill -TERM $fake
	wait $fake
	rc=$?
	grep -v '^LAKE_' $out
	echo "# gfuzz: $1 fake daemon exit $rc"
	[ $rc = 0 ] || dmesg | tail -n 20 | sed 's/^/# dmesg: /'
	# Whatever result codes it answers, a laked that answers is never fenced.
	check gfuzz.$2hostile_never_fenced sh -c "[ $(stat_of fences) = $fences ]"
	check gfuzz.$2fake_daemon_ran sh -c "[ $rc = 0 ] && grep -q '^LAKE_PROG_END checks [0-9]* failed 0' $out"
	# Refused (malformed, or not matching their call) or stray (no call).
	check gfuzz.$2hostile_replies_refused sh -c "[ $(stat_of bad_records) -gt $bad ]"
	check gfuzz.$2fake_daemon_gone unregistered
}
fake_round daemon ""
# Over genl some are malformed, so more calls get their true answer first
# and a duplicate strays; over the ring only well-formed lies go, and a round
# may leave no stray at all.
check gfuzz.hostile_strays_counted sh -c "[ $(stat_of stray_replies) -gt $stray ]"
check gfuzz.laked_after_fake start_laked
check gfuzz.serves_after_fake ctl_checks $ctl basic
fake_round daemon-ring ring_
check gfuzz.ring_carried_the_replies sh -c "[ $(stat_of ring_completions) -gt $comp ]"
check gfuzz.ring_no_violation sh -c "[ $(stat_of ring_violations) = 0 ]"
check gfuzz.laked_after_ring_fake start_laked
check gfuzz.serves_after_ring_fake ctl_checks $ctl basic

# laked killed by its seccomp filter: calls fail at once, a new laked serves.
kill -TERM $pid
wait $pid
laked --device=host --test-seccomp-kill >> /tmp/laked-gfuzz.log 2>&1
check gfuzz.seccomp_kill_sigsys [ $? = 159 ]
check gfuzz.seccomp_kill_unregisters unregistered
check gfuzz.seccomp_calls_fail_fast ctl_checks $ctl nodaemon
check gfuzz.laked_after_seccomp_kill start_laked
check gfuzz.serves_after_seccomp_kill ctl_checks $ctl basic

kill -TERM $pid
wait $pid
check gfuzz.rmmod_selftest rmmod lake_cuda_selftest
check gfuzz.rmmod_lakelib rmmod lakelib
check gfuzz.rmmod_lakeshm rmmod lakeshm
