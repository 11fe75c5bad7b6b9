# The guest half of `make demo`: LinnOS on lake, measured so that the modes
# can be compared. Two RAM-disk replicas under lake_slow (seeded GC-like
# bursts that move between them), the linnos target over both, and an
# open-loop workload, so every mode is offered the same reads whatever its
# speed. Each run restarts lake_slow's schedule from its round's seed, so
# the modes of a round see the same bursts; rounds run the modes in
# alternating order. Then LAKE's synthetic traces (Azure, Bing-I, Cosmos,
# and the three at once) are replayed with prediction off and on the CPU.
# Every run is one CSV row ("demo-csv: ", extracted into
# build/demo/linnos.csv by the Makefile); the tables give medians and
# ranges, and the sentences claim an effect only where every round agrees.
#
# All runs are one fio invocation (one job file, a job per run): under TCG
# starting fio, with its 64 shared libraries, takes seconds. Each job's
# exec_prerun (/tmp/pre) saves the counters of the run before it and sets
# up its own.
. /lib/lake/linnos.sh
say() { echo "demo: $*"; }
rounds=3
secs=4		# one synthetic run
slow=4		# percent of the time in a burst
wrounds=2
wsecs=2		# one replay
budget=125	# seconds in the guest, for all runs (make demo: 3 minutes in all)
traces=/lib/lake/traces
csv=/tmp/demo.csv
dbgst=/sys/kernel/debug/lake/linnos/lin/status
stats=/sys/kernel/debug/lake/lakelib_stats
t0=$(date +%s)

linnos_up 3000 mode=off model=linnos/linnos_nn.lnw || { say "setup failed"; exit 1; }
dd if=/dev/urandom of=/dev/mapper/lin bs=1M count=$((LIN_SECTORS / 2048)) oflag=direct 2> /dev/null
laked --device=host > /tmp/laked.log 2>&1 &
for i in $(seq 50); do
	[ "$(grep '^daemon_portid ' $stats | cut -d' ' -f2)" != 0 ] && break
	sleep 0.1
done
thr=$(lin_stat threshold_us)

# /tmp/pre PREV MODE SEED SLOW_PCT NAME: the counters of run PREV (if not -)
# into /tmp/snap-PREV: "IOS DELAYED ABOVE TOTAL" (lake_slow's I/Os and
# delayed ones; the target's reads above the threshold, and all), then
# debugfs status; then the next run: bursts SLOW_PCT% of the time from
# SEED, MODE, counters zeroed; /tmp/current names it.
# (Writing the seed zeroes lake_slow's totals; its per-target counters are
# not used, which saves two dmsetup calls a run.)
cat > /tmp/pre <<PRE
. /lib/lake/linnos.sh
echo "\$5" > /tmp/current
[ "\$1" = - ] || { echo \$(lin_slow_counts) \$(lin_hist_above $thr); cat $dbgst; } > /tmp/snap-\$1
echo "\$4" > /sys/module/lake_slowdisk/parameters/slow_pct
dmsetup message lin 0 mode "\$2" && dmsetup message lin 0 reset &&
	echo "\$3" > /sys/module/lake_slowdisk/parameters/seed
PRE

# The job file: one job per run, its exec_prerun first; /tmp/runs gets
# "NAME WORKLOAD ROUND MODE OFFERED" per run.
: > /tmp/runs
: > /tmp/left-out
prev=-
cat > /tmp/demo.fio <<JOB
[global]
stonewall
group_reporting
lat_percentiles=1
clat_percentiles=0
percentile_list=50:99:99.9
JOB
# job NAME WORKLOAD ROUND MODE SLOW_PCT OFFERED: a run's header.
job() {
	echo "$1 $2 $3 $4 $6" >> /tmp/runs
	printf '[%s]\nexec_prerun=sh /tmp/pre %s %s %s %s %s\n' "$1" $prev "$4" "$3" "$5" "$1" >> /tmp/demo.fio
	prev=$1
}
# synthetic NAME ROUND MODE SLOW_PCT [WORKLOAD]: lin_fio's workload, seeded
# by the round.
synthetic() {
	job "$1" "${5:-synthetic}" "$2" "$3" "$4" $((${LIN_RATE:-2000} * secs))
	echo filename=/dev/mapper/lin >> /tmp/demo.fio
	for o in $(LIN_SEED=$2 lin_fio_opts $secs); do echo "${o#--}"; done >> /tmp/demo.fio
}
# replay WORKLOAD ROUND MODE: the round's seed of a trace (mixed: the three
# merged), one I/O at a time on its timestamps (with libaio, fio's replay
# reaps completions only when the queue fills, so latencies would be its own
# backlog); a read delayed by a burst delays the I/O behind it.
replay() {
	log=$traces/$1-$2.log
	offered=$(awk -v us=$((wsecs * 1000000)) '$3 == "read" && $1 < us { n++ } END { print n + 0 }' $log)
	job "w$2-$1-$3" "$1" "$2" "$3" $slow "$offered"
	printf 'read_iolog=%s\nreplay_redirect=/dev/mapper/lin\nioengine=psync\ndirect=1\nruntime=%s\n' \
		$log $wsecs >> /tmp/demo.fio
}

# Round by round, so that a budget cut on a slow host leaves some of each.
r=1
while [ $r -le $rounds ]; do
	if [ $((r % 2)) = 1 ]; then order="off shadow cpu gpu"; else order="gpu cpu shadow off"; fi
	for m in $order; do synthetic s$r-$m $r $m $slow; done
	# Outside slow periods: a run with no bursts at all; every redirect is spurious.
	[ $r = 1 ] && synthetic quiet-cpu 1 cpu 0 synthetic-quiet
	if [ $r -le $wrounds ]; then
		for w in azure bing cosmos mixed; do
			if [ $((r % 2)) = 1 ]; then order="off cpu"; else order="cpu off"; fi
			for m in $order; do replay $w $r $m; done
		done
	fi
	r=$((r + 1))
done

say "replicas: two $((LIN_SECTORS / 2048)) MiB RAM disks under lake_slow: bursts of 20-60 ms on one replica at a time, ${slow}% of the time, each I/O in a burst delayed 3 ms +-50%, the schedule restarted from the round's seed before every run"
say "synthetic: 4 KiB random reads at 2000/s and writes at 105/s, Poisson arrivals (seeded by the round), libaio depth 32, ${secs} s a run, ${rounds} rounds; NN model, slow threshold ${thr} us"
say "runs: $(wc -l < /tmp/runs), one fio invocation"
# A slow host must still get its tables within the boot's timeout: past
# the budget fio is interrupted (it reports what ran) and the runs left
# out are said.
(cd /tmp && exec fio --output-format=json /tmp/demo.fio > /tmp/fio.json 2> /tmp/fio.err) &
fio_pid=$!
stopped=
while kill -0 $fio_pid 2> /dev/null; do
	if [ $(($(date +%s) - t0)) -ge $budget ]; then
		stopped=$(cat /tmp/current)
		kill -TERM $fio_pid
		say "time budget (${budget} s in the guest) spent: fio stopped; the runs not finished are left out"
		break
	fi
	sleep 1
done
wait $fio_pid
lin_fio_jobs < /tmp/fio.json > /tmp/fio-runs
[ -s /tmp/fio-runs ] || say "fio failed: $(tail -n 1 /tmp/fio.err)"
sh /tmp/pre "$(cat /tmp/current)" off 1 3 -
kill %1 2> /dev/null

# One CSV row per run: the target's read latencies (map to completion:
# what a reader waits in the block layer, prediction and batching
# included), fio's count of reads, the target's counters (accuracy: each
# read judged on the replica it went to, every read at home in shadow mode;
# the always-fast baseline on the same reads), the share of the target's
# reads above the threshold, lake_slow's delayed I/Os, and fio's read
# latencies (submission to reaping: fio's own scheduling under TCG
# included, milliseconds of it at p99 on a quiet run).
echo "workload,round,seed,mode,p50_us,p99_us,p999_us,reads,offered,slow_pct,delayed,delayed_pct,accuracy,fast_base,f_submit,f_revoke,redirected_pct,probes,cpu_inf,gpu_inf,ns_per_inf,fio_p50_us,fio_p99_us,fio_p999_us" > $csv
while read -r name wl round mode offered; do
	res=$(awk -v n="$name" '$1 == n && $5 > 0 { print $2, $3, $4, $5 }' /tmp/fio-runs)
	if [ -z "$res" ] || [ ! -s /tmp/snap-$name ] || [ "$name" = "$stopped" ]; then
		echo "$name" >> /tmp/left-out
		continue
	fi
	{ echo "$wl $round $round $mode $offered ${res:-0 0 0 0}"; cat /tmp/snap-$name 2> /dev/null; } | awk '
		NR == 1 { split($0, a, " "); next }
		NR == 2 { split($0, c, " "); next }
		{ v[$1] = $2 }
		END {
			judged = v["true_slow"] + v["true_fast"] + v["false_submit"] + v["false_revoke"]
			slow = c[4] ? 100 * c[3] / c[4] : 0
			if (a[4] == "off" || !judged) {
				acc = fs = fr = "-"
				base = sprintf("%.1f", 100 - slow)
			} else {
				acc = sprintf("%.1f", 100 * (v["true_slow"] + v["true_fast"]) / judged)
				base = sprintf("%.1f", 100 * (v["true_fast"] + v["false_revoke"]) / judged)
				fs = sprintf("%.2f", 100 * v["false_submit"] / judged)
				fr = sprintf("%.2f", 100 * v["false_revoke"] / judged)
			}
			red = v["reads"] ? sprintf("%.1f", 100 * v["redirected"] / v["reads"]) : 0
			ns = v["gpu_inferences"] ? v["gpu_ns_per_inference"] : v["cpu_ns_per_inference"]
			printf "%s,%s,%s,%s,%d,%d,%d,%d,%d,%.2f,%d,%.2f,%s,%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d\n",
				a[1], a[2], a[3], a[4] == "gpu" ? "gpu-hostdev" : a[4],
				v["p50_us"], v["p99_us"], v["p999_us"], a[9], a[5],
				slow, c[2], c[1] ? 100 * c[2] / c[1] : 0, acc, base, fs, fr, red,
				v["probes"], v["cpu_inferences"], v["gpu_inferences"],
				a[4] == "off" ? 0 : ns, a[6], a[7], a[8]
		}' >> $csv
done < /tmp/runs
sed 's/^/demo-csv: /' $csv
[ -s /tmp/left-out ] && say "left out: $(tr '\n' ' ' < /tmp/left-out)"

# summary: per workload and mode, the median and range of each column.
# med FIELD: "median (min-max)" of CSV field FIELD over the rows on stdin.
summary() {
	awk -F, -v wl="$1" -v fields="$2" '
		function sort(x, n,  i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && x[j - 1] + 0 > x[j] + 0; j--) {
					t = x[j]; x[j] = x[j - 1]; x[j - 1] = t
				}
		}
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == wl { if (!($4 in n)) order[++modes] = $4; k = ++n[$4]; row[$4, k] = $0 }
		END {
			nf = split(fields, f, " ")
			for (m = 1; m <= modes; m++) {
				md = order[m]
				line = sprintf("%-12s", md)
				for (j = 1; j <= nf; j++) {
					c = col[f[j]]
					for (k = 1; k <= n[md]; k++) {
						split(row[md, k], r, ",")
						x[k] = r[c]
					}
					sort(x, n[md])
					med = x[int((n[md] + 1) / 2)]
					cell = x[1] == x[n[md]] ? med : med " (" x[1] "-" x[n[md]] ")"
					line = line sprintf(" %-19s", cell)
				}
				print line
			}
		}' $csv
}

say ""
# done_rounds WORKLOAD: how many rounds of WORKLOAD ran.
done_rounds() { awk -F, -v w="$1" '$1 == w { r[$2] = 1 } END { for (k in r) n++; print n + 0 }' $csv; }
say "synthetic, median (range) over the $(done_rounds synthetic) rounds run; read latency in us at the target (map to completion: what a reader waits in the block layer, prediction and batching included), and p99 as fio saw it (submission to reaping); accuracy online (each read judged on the replica it went to; shadow: every read predicted and judged at home, none moved), always-fast: the accuracy of predicting every one of those reads fast"
say "$(printf '%-12s %-19s %-19s %-19s %-19s %-19s %-19s %-19s %-19s' mode p50_us p99_us p99.9_us accuracy always_fast redirected_pct reads fio_p99_us)"
summary synthetic "p50_us p99_us p999_us accuracy fast_base redirected_pct reads fio_p99_us" | sed 's/^/demo: /'
say "true share of slow reads (prediction off): $(summary synthetic 'slow_pct' | awk '$1 == "off" { $1 = ""; print substr($0, 2) }')% of the target's reads above ${thr} us; lake_slow delayed $(summary synthetic 'delayed_pct' | awk '$1 == "off" { $1 = ""; print substr($0, 2) }')% of the I/Os it passed"
awk -F, '$1 == "synthetic" { k = $2; if (!(k in seen)) { seen[k] = 1; ks[++n] = k }; d[k, $4] = $11 }
	END {
		for (i = 1; i <= n; i++)
			if (d[ks[i], "off"] != "" && d[ks[i], "cpu"] != "")
				s = s sprintf("%s%d -> %d", s != "" ? ", " : "", d[ks[i], "off"], d[ks[i], "cpu"])
		printf "I/Os the bursts delayed (lake_slow'"'"'s ground truth), off -> cpu, per round: %s\n", s == "" ? "not measured" : s
	}' $csv | sed 's/^/demo: /'
say "gpu-hostdev is laked's host device: the GPU side's path (a netlink round trip to laked per batch, under TCG) with its kernels run on the CPU; this guest has no GPU, so the row measures the round trip's cost, not a GPU's"

# per round: "ROUND P99_OFF P99_CPU P99_GPU READS_GPU OFFERED ACC_SHADOW
# BASE_SHADOW FIO_P99_OFF FIO_P99_CPU"
awk -F, 'function d(x) { return x == "" ? "-" : x }
	$1 == "synthetic" {
		k = $2; if (!(k in seen)) { seen[k] = 1; ks[++n] = k }
		p[k, $4] = $6; rd[k, $4] = $8; of[k] = $9; acc[k, $4] = $13; base[k, $4] = $14
		fp[k, $4] = $23
	}
	END {
		# only rounds with prediction off; "-" where a mode did not run
		for (i = 1; i <= n; i++) {
			k = ks[i]
			if (p[k, "off"] == "")
				continue
			print k, p[k, "off"], d(p[k, "cpu"]), d(p[k, "gpu-hostdev"]), d(rd[k, "gpu-hostdev"]),
				of[k], d(acc[k, "shadow"]), d(base[k, "shadow"]), fp[k, "off"], d(fp[k, "cpu"])
		}
	}' $csv > /tmp/rounds

# verdict PCT: how a mode's PCT compares with off's across rounds (stdin:
# "OFF ON" per round): lowered or raised only when every round agrees by
# more than 5%.
verdict() {
	awk -v pct="$1" '
		$1 == "-" || $2 == "-" { next }
		{ n++; r = $1 ? $2 / $1 : 1; if (r < 0.95) lo++; else if (r > 1.05) hi++
		  s = s sprintf("%s%d -> %d us", n > 1 ? ", " : "", $1, $2) }
		END {
			if (!n) v = "was not measured on read " pct
			else if (lo == n) v = "lowered read " pct " in every round run (" n ")"
			else if (hi == n) v = "raised read " pct " in every round run (" n "; it hurts)"
			else v = "had no consistent effect on read " pct " (the rounds disagree)"
			printf "%s (%s)", v, s
		}'
}

say ""
say "targets (make demo; they depend on the model's weights):"
awk '$3 == "-" { next } { r = $2 ? $3 / $2 : 99; ok = ok && r <= 0.5; s = s sprintf("%s%.2fx", s != "" ? ", " : "", r) }
	BEGIN { ok = 1 } END { printf "read p99 at the target on the CPU at most 0.5x off in every round: %s: %s\n", s, s == "" ? "not measured" : ok ? "met" : "missed" }' \
	/tmp/rounds | sed 's/^/demo:   /'
awk '$10 == "-" { next } { s = s sprintf("%s%.2fx", s != "" ? ", " : "", $9 ? $10 / $9 : 99) }
	END { printf "(read p99 as fio saw it, cpu / off: %s; fio reaps completions late under TCG, by milliseconds at p99 with no burst at all)\n", s == "" ? "not measured" : s }' \
	/tmp/rounds | sed 's/^/demo:   /'
awk -F, '$1 == "synthetic-quiet" { printf "reads redirected outside slow periods (a run with no bursts) under 10%%: %s%%: %s\n", $17, $17 < 10 ? "met" : "missed" }' \
	$csv | sed 's/^/demo:   /'
awk '$7 == "-" { next } { ok = ok && $7 >= $8; s = s sprintf("%s%s%% vs %s%%", s != "" ? ", " : "", $7, $8) }
	BEGIN { ok = 1 } END { printf "accuracy as LinnOS judges it (shadow: every read predicted and judged at home) at least the always-fast baseline in every round: %s: %s\n", s, s == "" ? "not measured" : ok ? "met" : "missed" }' \
	/tmp/rounds | sed 's/^/demo:   /'
awk -F, '$1 == "synthetic" && $4 == "off" { if ($8 < 0.95 * $9) behind++; s = s sprintf("%s%d of %d", s == "" ? "" : ", ", $8, $9) }
	END { printf "with prediction off the guest issued %s reads offered: %s\n", s,
		behind ? "it fell behind by itself (a busy host?): those rounds compare backlogs, not prediction" : "it kept up" }' \
	$csv | sed 's/^/demo:   /'
awk '$5 == "-" { next } { if ($5 < 0.95 * $6) behind++; s = s sprintf("%s%d of %d", s != "" ? ", " : "", $5, $6) }
	END { printf "gpu-hostdev labelled (above); it issued %s reads offered: %s\n", s,
		behind ? "it fell behind the offered load, so its latencies are those of a backlog" : "it kept up" }' \
	/tmp/rounds | sed 's/^/demo:   /'

say ""
say "LAKE's synthetic traces replayed (sizes log-normal, capped at 1 MiB to fit the replicas, split by the target into 4 KiB reads, each predicted; arrivals spread out to fit one emulated CPU: Azure, Bing-I, Cosmos $(tr '\n' ' ' < $traces/scale.txt | awk '{ printf "%sx, %sx, %sx", $2, $4, $6 }') slower than published; mixed: the three merged on their timestamps; fio replays one I/O at a time), median (range) over the $(done_rounds azure) rounds run, off against the CPU; read latency at the target (each 4 KiB piece, map to completion), and p99 as fio saw it (the whole read):"
say "$(printf '%-12s %-12s %-19s %-19s %-19s %-19s %-19s' workload mode p50_us p99_us p99.9_us reads fio_p99_us)"
for w in azure bing cosmos mixed; do
	summary $w "p50_us p99_us p999_us reads fio_p99_us" | sed "s/^/demo: $(printf '%-12s ' $w)/"
done
for w in azure bing cosmos mixed; do
	line=
	for p in 5 6 7; do
		name=$(echo $p | sed 's/5/p50/; s/6/p99/; s/7/p99.9/')
		v=$(awk -F, -v w=$w -v f=$p '$1 == w { v[$2, $4] = $f; ks[$2] = 1 }
			END { for (k in ks) print v[k, "off"], v[k, "cpu"] }' $csv | verdict "$name")
		line="$line${line:+; }$v"
	done
	say "$w: LinnOS on the CPU $line"
done

off99=$(summary synthetic p99_us | awk '$1 == "off" { print $2 }')
say ""
say "linnos predicted, for each read, from its replica's last four reads whether it would be slow, and sent the reads predicted slow to the other replica. Synthetic workload, latency at the target: on the CPU it $(cut -d' ' -f2,3 /tmp/rounds | verdict p99) against prediction off (median ${off99} us); on laked's host device it $(cut -d' ' -f2,4 /tmp/rounds | verdict p99). Demo time in the guest: $(($(date +%s) - t0)) s."
