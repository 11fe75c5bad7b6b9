# examples/sysmon: the probe counts system calls, windows reach the exporter,
# the shipped reference loads (corrupt ones are refused, saying why), the
# anomalous workloads (ransomware-like file locking, a bounded fork bomb, a
# loopback port scan) are flagged, benign programs mostly are not (rates
# printed per workload), both sides give the same scores, laked's death
# mid-batch leaves the CPU side scoring, and rmmod leaves nothing behind;
# then, reloaded with manual ticks: a burst then idle is still judged, a
# reused pid is another process, and a window's comm is the newest one.
# With lake_sysmon_record=1 (make sysmon-trace) it records the reference's
# workloads instead and prints the exporter's CSV.
. /lib/lake/vmlib.sh
dbg=/sys/kernel/debug/lake
sm=$dbg/sysmon
pol=$dbg/policy/sysmon
tr=/sys/kernel/tracing
fw=/lib/firmware/sysmon

st_of() { grep "^$1 " $sm/status | cut -d' ' -f2; }
start_laked() {
	laked --device=host >> /tmp/laked.log 2>&1 &
	pid=$!
	wait_for 20 registered
}
tick() { echo tick > $sm/ctl; }
# The reference's workloads: busybox's everyday tools over round $1's inputs
# (make sysmon-trace records rounds 1..8).
ref_work() {
	d=$(echo /lib/lake /cases /bin /usr/lib/lake/kernels /lib /etc /lib/firmware /proc/self |
		cut -d' ' -f$((($1 - 1) % 8 + 1)))
	ls -la $d > /dev/null
	cat /lib/lake/*.sh $(ls /cases/*.sh | head -n $(($1 * 3))) > /dev/null
	sort /cases/*.sh | uniq > /dev/null
	gzip -c $(ls /lib/lake/*.ko | head -n $1) | gunzip -c > /dev/null
	dd if=/dev/zero of=/tmp/sm.dd bs=$((512 * $1)) count=$((8 * $1)) 2> /dev/null
	find $d -name '*.*' > /dev/null
	md5sum $(ls /lib/lake/*.ko | tail -n $1) > /dev/null
	grep -r lake $(ls /cases/*.sh | head -n $(($1 * 2))) > /dev/null
	wc -l /cases/*.sh > /dev/null
	sed "s/a/$1/g" /lib/lake/vmlib.sh > /dev/null
	awk '{ n++ } END { print n }' $(ls /cases/*.sh | tail -n $1) > /dev/null
	cp /lib/lake/vmlib.sh /tmp/sm.cp && rm /tmp/sm.cp /tmp/sm.dd
	tar cf - $(ls -d /cases /lib/lake/*.sh | head -n $1) 2> /dev/null | tar tf - > /dev/null
	ps > /dev/null
	dmesg > /dev/null
	sleep 0.1
}
# Benign programs the reference never saw.
new_work() {
	du -a /lib > /dev/null
	sha256sum /lib/lake/*.ko > /dev/null
	cut -d' ' -f1 /lib/lake/vmlib.sh | tr a-z A-Z > /dev/null
	hexdump -C /lib/lake/vmlib.sh > /dev/null
	cmp /lib/lake/vmlib.sh /lib/lake/vmlib.sh
	stat /lib/lake/vmlib.sh /cases > /dev/null
	mkdir -p /tmp/sm.d/a/b && rmdir /tmp/sm.d/a/b /tmp/sm.d/a /tmp/sm.d
	base64 /lib/lake/vmlib.sh > /dev/null
	tail -n 20 /lib/lake/vmlib.sh > /dev/null
	sleep 0.1
}
# rate COMM...: "windows flagged max-score" of those comms' scored windows in /tmp/win.csv.
rate() {
	awk -F, -v thr="$(st_of threshold)" -v names=" $* " '
		BEGIN { if (thr !~ /^[0-9]+$/) { bad = 1; print "no threshold" > "/dev/stderr"; exit 1 } }
		NR > 1 && $4 >= 16 && index(names, " " $3 " ") { n++; if ($5 + 0 > thr + 0) f++; if ($5 + 0 > m) m = $5 + 0 }
		END { if (bad) exit 1; printf "%d %d %d\n", n, f, m }' /tmp/win.csv
}
# rv COMM...: rate's figures in rn (windows), rf (flagged); no set --, which
# would take the case's own arguments.
rv() {
	_r=$(rate "$@")
	rn=${_r%% *}
	_r=${_r#* }
	rf=${_r%% *}
}
# flagged COMM: at least one window of COMM passed the threshold.
flagged() { rv "$1"; [ "$rn" -gt 0 ] && [ "$rf" -gt 0 ]; }
# Each open of the exporter reads every window the registry holds: mark
# notes the newest, windows keeps those after it in /tmp/win.csv.
ts0=0
mark() {
	ts0=$(tail -n 1 $sm/windows | cut -d, -f1)
	case $ts0 in '' | *[!0-9]*) ts0=0 ;; esac
}
windows() { awk -F, -v t="$ts0" 'NR == 1 || $1 + 0 > t + 0' $sm/windows > /tmp/win.csv; }
[ -d $tr/events ] || mount -t tracefs nodev $tr

check sysmon.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check sysmon.insmod_lakelib insmod $M/lakelib.ko timeout_ms=5000
live0=$(shm_of live_allocs)
ifconfig lo 127.0.0.1 up 2> /dev/null

if [ "${lake_sysmon_record:-0}" = 1 ]; then
	insmod $M/lake_sysmon.ko period_ms=250
	start_laked
	mark
	# The shell's own part: a case's checks, counters read, waits.
	for i in 1 2 3 4 5 6 7 8; do
		ref_work $i
		check sysmon.record_round_$i [ -e $sm/status ]
		st_of calls > /dev/null
		wait_for 1 grep -q '^probe on' $sm/status
		sh -c "[ $(st_of ticks) -ge 0 ]"
	done
	tick; tick
	windows
	sed 's/^/sysmon-window: /' /tmp/win.csv
	kill $pid; wait $pid
	rmmod lake_sysmon
	rmmod lakelib
	rmmod lakeshm
	return 0 2> /dev/null || exit 0
fi

# Bad parameters and a missing or corrupt reference: refused, with a reason.
refuse sysmon.bad_slots insmod $M/lake_sysmon.ko slots=100
head -c 1000 $fw/sysmon.skr > $fw/cut.skr
cp $fw/sysmon.skr $fw/flip.skr
printf 'X' | dd of=$fw/flip.skr bs=1 seek=40 conv=notrunc 2> /dev/null
printf 'XXXX' | dd of=$fw/magic.skr bs=1 count=4 2> /dev/null
dd if=$fw/sysmon.skr bs=1 skip=4 seek=4 of=$fw/magic.skr 2> /dev/null
refuse sysmon.insmod_cut_ref insmod $M/lake_sysmon.ko ref=sysmon/cut.skr
check sysmon.cut_ref_says_why sh -c "dmesg | grep -q 'sysmon/cut.skr refused: truncated payload'"

check sysmon.insmod insmod $M/lake_sysmon.ko period_ms=250
check sysmon.probe_on grep -qx 'probe on' $sm/status
check sysmon.no_ref grep -qx 'ref none' $sm/status
check sysmon.policy_registered grep -qx 'name sysmon' $pol/status
check sysmon.tracepoint_exists [ -d $tr/events/lake_sysmon/sysmon_anomaly ]
c0=$(st_of calls)
ls / > /dev/null
check sysmon.probe_counts [ "$(st_of calls)" -gt "$c0" ]
# Without a reference, windows are recorded (the exporter) and none scored.
mark
ref_work 1
tick
windows
check sysmon.exporter_windows sh -c "[ $(grep -c ',ls,' /tmp/win.csv) -ge 1 ]"
# Per open: one reader does not take the windows from the next.
check sysmon.exporter_per_open sh -c "[ $(grep -c ',ls,' $sm/windows) -ge 1 ] &&
	[ $(grep -c ',ls,' $sm/windows) -ge 1 ]"
check sysmon.exporter_counts awk -F, '$3 == "ls" { s = 0; for (i = 6; i <= NF; i++) s += $i;
	if (s < $4 || $4 < 16) exit 1; n++ } END { exit !n }' /tmp/win.csv
check sysmon.unscored_without_ref sh -c "[ $(st_of scored_cpu) = 0 ] && [ $(st_of scored_gpu) = 0 ]"
refuse sysmon.ref_flipped sh -c "echo 'ref sysmon/flip.skr' > $sm/ctl"
check sysmon.flipped_says_why sh -c "dmesg | grep -q 'sysmon/flip.skr refused: bad checksum'"
refuse sysmon.ref_magic sh -c "echo 'ref sysmon/magic.skr' > $sm/ctl"
check sysmon.magic_says_why sh -c "dmesg | grep -q 'sysmon/magic.skr refused: bad magic'"
refuse sysmon.ref_missing sh -c "echo 'ref sysmon/none.skr' > $sm/ctl"
refuse sysmon.ref_bad_name sh -c "echo 'ref ../etc/passwd' > $sm/ctl"
refuse sysmon.bad_command sh -c "echo fly > $sm/ctl"
check sysmon.still_no_ref grep -qx 'ref none' $sm/status
check sysmon.ref_loads sh -c "echo 'ref sysmon/sysmon.skr' > $sm/ctl"
echo "# sysmon reference: $(grep -E '^(ref|k|threshold) ' $sm/status | tr '\n' ' ')"

# The CPU side (no laked): the reference's workloads, new benign ones, the anomalies.
echo 1 > $tr/events/lake_sysmon/enable
echo > $tr/trace
mark
ref_work 3
new_work
sysmon_work mkfiles /tmp/victims 120
sysmon_work ransom /tmp/victims > /dev/null
sysmon_work forkbomb 200 > /dev/null
sysmon_work portscan 300 > /dev/null
tick; tick
windows
check sysmon.cpu_scored sh -c "[ $(st_of scored_cpu) -gt 0 ] && [ $(st_of scored_gpu) = 0 ]"
for w in ransom forkbomb portscan; do
	echo "# sysmon cpu: sm_$w windows flagged: $(rate sm_$w)"
	check sysmon.flags_$w flagged sm_$w
done
ref_comms="ls cat sort uniq gzip gunzip dd find md5sum grep wc sed awk cp rm tar ps dmesg sleep"
new_comms="du sha256sum cut tr hexdump cmp stat mkdir rmdir base64 tail"
rv $ref_comms
echo "# sysmon cpu: reference workloads: $rn windows, $rf flagged"
check sysmon.ref_workloads_quiet [ "$rf" -le $((rn / 10)) ]
rv $new_comms
echo "# sysmon cpu: new benign workloads: $rn windows, $rf flagged"
check sysmon.new_benign_bounded sh -c "[ $rn -gt 0 ] && [ $rf -le $((rn / 4)) ]"
for c in $new_comms; do echo "# sysmon cpu:   $c: $(rate $c)"; done
check sysmon.flagged_view grep -q ' sm_ransom ' $sm/flagged
check sysmon.trace_event grep -qE 'sysmon_anomaly: tgid=[0-9]+ comm=sm_portscan score=[0-9]+ threshold=[0-9]+ calls=[0-9]+ side=cpu' $tr/trace
check sysmon.log_line sh -c "dmesg | grep -qE 'lake_sysmon: anomaly: tgid [0-9]+ \([^)]*\) score [0-9]+ > threshold'"
for c in $ref_comms sh laked; do
	rv $c
	[ "$rf" -gt 0 ] && echo "# sysmon cpu:   reference program $c: $(rate $c)"
done
check sysmon.not_killed sh -c "sysmon_work portscan 50 | grep -q '50 ports'"
cp /tmp/win.csv /tmp/win-cpu.csv

# The GPU side: laked's host device, the policy forced there; the same
# batches give the same scores on both sides, and the anomalies are flagged there too.
check sysmon.laked_registers start_laked
check sysmon.bench sh -c "echo 'bench 1 8 32 128' > $sm/ctl"
sed 's/^/# sysmon bench: /' $sm/bench
check sysmon.sides_agree sh -c "! grep -E 'mismatches [1-9]' $sm/bench && grep -c 'mismatches 0' $sm/bench | grep -qx 4"
echo gpu > $pol/mode
mark
sysmon_work portscan 300 > /dev/null
sysmon_work forkbomb 200 > /dev/null
new_work
tick; tick
windows
check sysmon.gpu_scored sh -c "[ $(st_of scored_gpu) -gt 0 ] && [ $(st_of gpu_errors) = 0 ]"
for w in portscan forkbomb; do echo "# sysmon gpu: sm_$w windows flagged: $(rate sm_$w)"; done
grep ',sm_' /tmp/win.csv | cut -d, -f1-5
check sysmon.gpu_flags_portscan flagged sm_portscan
check sysmon.gpu_flags_forkbomb flagged sm_forkbomb
check sysmon.trace_event_gpu grep -qE 'comm=sm_portscan .* side=gpu' $tr/trace
rv $new_comms
echo "# sysmon gpu: new benign workloads: $rn windows, $rf flagged"
check sysmon.gpu_new_benign_bounded sh -c "[ $rn -gt 0 ] && [ $rf -le $((rn / 4)) ]"

# laked stopped with a batch waiting on it, then killed: the batch is
# scored on the CPU, nothing hangs, and the CPU side goes on.
cpu0=$(st_of scored_cpu)
stop_task $pid
sysmon_work portscan 200 > /dev/null
tick &
ticker=$!
sleep 0.5
check sysmon.batch_waits_on_laked kill -0 $ticker
kill -9 $pid
wait $ticker
check sysmon.kill9_redone_on_cpu sh -c "[ $(st_of gpu_errors) -ge 1 ] && [ $(st_of redone_cpu) -ge 1 ] &&
	[ $(st_of scored_cpu) -gt $cpu0 ]"
windows
check sysmon.kill9_still_flags flagged sm_portscan
cpu1=$(st_of scored_cpu)
ls / > /dev/null; tick
check sysmon.cpu_after_kill sh -c "[ $(st_of scored_cpu) -gt $cpu1 ]"
echo auto > $pol/mode
check sysmon.periodic_ticks wait_for 5 sh -c "t=\$(grep '^ticks ' $sm/status | cut -d' ' -f2); sleep 0.6;
	[ \$(grep '^ticks ' $sm/status | cut -d' ' -f2) -gt \$t ]"
# The policy counted the GPU batches above: "decisions  cpu N, gpu M", M > 0.
check sysmon.lakectl_policy sh -c "lakectl policy sysmon | grep -qE '^ *decisions +cpu [0-9]+, gpu [1-9]'"
check sysmon.lakectl_registry sh -c "lakectl registry sysmon | grep -q 'calls'"
echo "# sysmon status: $(tr '\n' ' ' < $sm/status)"
echo 0 > $tr/events/lake_sysmon/enable

check sysmon.rmmod rmmod lake_sysmon
check sysmon.policy_gone [ ! -e $pol ]
check sysmon.registry_gone [ ! -e $dbg/registry/sysmon ]
check sysmon.shm_back sh -c "[ $(shm_of live_allocs) = $live0 ]"
check sysmon.no_calls_in_flight sh -c "[ $(stat_of in_flight) = 0 ]"

# A burst, then idle: the window deferred at its first period (the process
# still runs) is judged on its own at the next, in which it makes no call.
insmod $M/lake_sysmon.ko period_ms=60000 ref=sysmon/sysmon.skr
sysmon_work mkfiles /tmp/idle 60
tick
sysmon_work ransom /tmp/idle 5000 > /tmp/rsleep.out &
rs=$!
wait_for 10 grep -q locked /tmp/rsleep.out
tick; tick
windows
echo "# sysmon idle: sm_rsleep windows flagged: $(rate sm_rsleep)"
check sysmon.burst_then_idle_flagged flagged sm_rsleep
check sysmon.deferred_scored sh -c "[ $(st_of deferred_scored) -ge 1 ]"
kill $rs; wait $rs

# A reused tgid is another process: the ransomware loop exits, a benign
# ls takes its pid (ns_last_pid) within the same two periods, and is
# judged on its own calls, not on its predecessor's.
sysmon_work mkfiles /tmp/reuse 120
tick
sysmon_work ransom /tmp/reuse > /dev/null &
old=$!
wait $old
tick
echo $((old - 1)) > /proc/sys/kernel/ns_last_pid
ls -laR /lib/lake /cases > /dev/null &
new=$!
wait $new
tick
windows
echo "# sysmon reuse: pid $old then $new; ls windows flagged: $(rate ls); sm_ransom: $(rate sm_ransom)"
check sysmon.tgid_reused [ "$new" = "$old" ]
rv ls
check sysmon.reused_tgid_own_window sh -c "[ $rn -ge 1 ] && [ $rf = 0 ]"
check sysmon.reused_tgid_flagged_apart sh -c "grep -q '^$old sm_ransom ' $sm/flagged &&
	! grep -q '^$old ls ' $sm/flagged"

# A window's comm is its process's newest, whichever CPU saw it: a process
# that renames itself on CPU 0 after running on the last CPU (harvested
# after CPU 0) is shown under its new name.
if [ "$(nproc)" -ge 2 ]; then
	mark
	check sysmon.migrate_runs sh -c "sysmon_work migrate | grep -q '^sm_moved: from CPU'"
	tick; tick
	windows
	echo "# sysmon migrate: sm_moved windows: $(rate sm_moved); sm_cpuhi: $(rate sm_cpuhi)"
	check sysmon.comm_is_newest sh -c "grep -q ',sm_moved,' /tmp/win.csv && ! grep -q ',sm_cpuhi,' /tmp/win.csv"
fi
rmmod lake_sysmon
check sysmon.rmmod_lakelib rmmod lakelib
check sysmon.rmmod_lakeshm rmmod lakeshm
