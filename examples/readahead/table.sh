#!/bin/sh
# usage: table.sh RESULTS   (make demo-readahead's build/demo/readahead.txt)
# One row per phase from "PHASE SETTING KIBPS" lines (SETTING: default, a
# fixed readahead in KiB, or model): the default's throughput, the best
# fixed readahead's, the model's, and the target: the model within 10% of
# the best fixed value in every phase, above the default in the mixed one.
# The "bench:" lines are the same figures for scripts/bench-csv. Exits 1
# when the target is missed.
awk '
	{ t[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	$2 ~ /^[0-9]+$/ && $3 > best[$1] { best[$1] = $3; bkib[$1] = $2 }
	END {
		printf "%-8s %12s %18s %12s %9s %9s\n", "phase", "default", "best fixed",
			"model", "vs best", "vs def."
		ok = 1
		for (i = 1; i <= n; i++) {
			p = order[i]
			d = t[p, "default"]; m = t[p, "model"]; b = best[p]
			rb = b ? 100 * m / b : 0; rd = d ? 100 * m / d : 0
			printf "%-8s %7d KiB/s %7d KiB/s %5s %7d KiB/s %8.1f%% %8.1f%%\n",
				p, d, b, "(" bkib[p] ")", m, rb, rd
			bench = bench sprintf("bench: readahead %s: default %.1f MB/s, best fixed %.1f MB/s, model %.1f MB/s, model/best %.2fx, model/default %.2fx\n", p, d * 1.024 / 1000, b * 1.024 / 1000, m * 1.024 / 1000, rb / 100, rd / 100)
			if (rb < 90) { ok = 0; why = why " " p ": " int(rb) "% of best" }
			if (p == "mixed" && m <= d) { ok = 0; why = why " mixed: not above default" }
		}
		printf "%s", bench
		print ok ? "demo: target met: the model within 10% of the best fixed readahead in every phase, above the default in mixed" : \
			"demo: target missed:" why
		exit !ok
	}' "$1"
