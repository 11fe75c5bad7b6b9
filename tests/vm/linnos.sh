# Guest helpers for LinnOS's demo and trace recorder (sourced; busybox sh):
# two 16 MiB RAM disks under lake_slow (GC-like latency bursts that move
# between them), and the linnos target "lin" over them.
M=/lib/lake
LIN_SECTORS=32768

# linnos_up SLOW_US [TABLE OPTIONS...]: lake's modules too. lake_slow's
# other knobs come from LIN_SLOW_ARGS (its defaults: bursts of 20-60 ms on
# one replica at a time, 3% of the time).
linnos_up() {
	insmod $M/lakeshm.ko size_mib=16 && insmod $M/lakelib.ko timeout_ms=2000 &&
		linnos_dm_up "$@"
}

# linnos_dm_up SLOW_US [TABLE OPTIONS...]: lakeshm and lakelib already in.
linnos_dm_up() {
	_slow=$1
	shift
	insmod $M/kernel/dm-mod.ko &&
		insmod $M/kernel/brd.ko rd_nr=2 rd_size=$((LIN_SECTORS / 2)) &&
		insmod $M/lake_slowdisk.ko slow_us="$_slow" ${LIN_SLOW_ARGS:-} && insmod $M/lake_linnos.ko &&
		dmsetup create slow0 --table "0 $LIN_SECTORS lake_slow /dev/ram0 0" &&
		dmsetup create slow1 --table "0 $LIN_SECTORS lake_slow /dev/ram1 1" &&
		dmsetup mknodes &&
		dmsetup create lin --table \
			"0 $LIN_SECTORS linnos /dev/mapper/slow0 /dev/mapper/slow1 $*" &&
		dmsetup mknodes
}

# lin_slow_reset SEED: restart lake_slow's schedule from SEED, counters zeroed.
lin_slow_reset() {
	echo "$1" > /sys/module/lake_slowdisk/parameters/seed &&
		dmsetup message slow0 0 reset && dmsetup message slow1 0 reset
}

# The value after KEY in `dmsetup status lin`.
lin_stat() { dmsetup status lin | tr ' ' '\n' | grep -A1 -x "$1" | tail -n 1; }

# lin_fio SECONDS [FIO OPTIONS...]: the demo's workload, open-loop: 4 KiB
# random reads at LIN_RATE a second (2000) and writes at a 19th of that,
# both with Poisson arrivals from seed LIN_SEED (1), libaio at up to
# LIN_DEPTH (32) in flight. Every mode is offered the same I/O whatever its
# speed; a closed loop would offer fewer reads to a slower one.
lin_fio() {
	_t=$1
	shift
	# shellcheck disable=SC2046 # one option per word
	fio --name=lin --filename=/dev/mapper/lin $(lin_fio_opts "$_t") --group_reporting "$@"
}

# lin_fio_opts SECONDS: lin_fio's workload as fio options, one per word
# (the demo puts them in a job file).
lin_fio_opts() {
	_r=${LIN_RATE:-2000}
	echo --rw=randrw --rwmixread=95 --bs=4k \
		--direct=1 --ioengine=libaio --iodepth="${LIN_DEPTH:-32}" \
		--rate_iops="$_r,$((_r / 19))" --rate_process=poisson --randseed="${LIN_SEED:-1}" \
		--time_based --runtime="$1"
}

# lin_slow_counts: "IOS DELAYED" over both lake_slow targets since the
# seed was last written: the I/Os they passed and those they delayed (the
# ground truth of slow I/O).
lin_slow_counts() {
	echo "$(cat /sys/module/lake_slowdisk/parameters/ios)" \
		"$(cat /sys/module/lake_slowdisk/parameters/delayed)"
}

# lin_hist_above US: the reads in debugfs status's latency histogram whose
# bucket lies above US, and all of them: "ABOVE TOTAL".
lin_hist_above() {
	grep '^latency_hist_us' /sys/kernel/debug/lake/linnos/lin/status |
		tr ' ' '\n' | awk -F: -v thr="$1" 'NF == 2 { t += $2; if ($1 > thr) a += $2 }
			END { print a + 0, t + 0 }'
}

# lin_hist_pct PERMILLE...: the percentiles recomputed from debugfs status's
# latency histogram (nearest rank, as the target defines them), in us.
lin_hist_pct() {
	grep '^latency_hist_us' /sys/kernel/debug/lake/linnos/lin/status | tr ' ' '\n' |
		awk -F: -v pm="$*" 'NF == 2 { n++; us[n] = $1; c[n] = $2; t += $2 }
			END {
				k = split(pm, p, " ")
				for (j = 1; j <= k; j++) {
					rank = int((t * p[j] + 999) / 1000); seen = 0; v = 0
					for (i = 1; i <= n; i++) {
						seen += c[i]
						if (seen >= rank) { v = us[i]; break }
					}
					printf "%s%d", (j > 1 ? " " : ""), v
				}
				print ""
			}'
}

# lin_fio_jobs: from fio's JSON on stdin (lat_percentiles), per job (or
# group, with group_reporting) "NAME P50 P99 P999 READS": the reads' total
# latency in us, submission to completion (each job's read section comes
# first).
lin_fio_jobs() {
	awk -F: '
		function out() { if (name != "") printf "%s %d %d %d %d\n", name, p50, p99, p999, n }
		/"jobname"/ {
			out(); name = $2; gsub(/[ ",]/, "", name)
			n = p50 = p99 = p999 = ""
		}
		/"total_ios"/ && n == "" { n = $2 + 0 }
		/"50.000000"/ && p50 == "" { p50 = $2 / 1000 }
		/"99.000000"/ && p99 == "" { p99 = $2 / 1000 }
		/"99.900000"/ && p999 == "" { p999 = $2 / 1000 }
		END { out() }'
}
