# LinnOS's percentiles: dmsetup status's p50_us, p99_us and p999_us must be
# the nearest-rank percentiles of the histogram debugfs status prints
# (latency_hist_us), recomputed here bucket by bucket. lake_slow's bursts
# spread the reads over many buckets, so a percentile one bucket off, or
# ranked wrong, differs from the recomputed one.
. /lib/lake/vmlib.sh
. /lib/lake/linnos.sh
# An earlier case may have left the RAM disks and device mapper loaded.
for m in brd dm_mod; do
	grep -q "^$m " /proc/modules && rmmod $m
done
LIN_SLOW_ARGS="slow_pct=20"
check linnospct.up linnos_up 2000 mode=off
check linnospct.fio sh -c ". /lib/lake/linnos.sh; LIN_RATE=1000 lin_fio 3 > /tmp/pct-fio.out"
pct=$(lin_hist_pct 500 990 999)
status="$(lin_stat p50_us) $(lin_stat p99_us) $(lin_stat p999_us)"
echo "# linnospct: status $status, recomputed $pct, reads $(lin_stat reads)"
check linnospct.reads [ "$(lin_stat reads)" -gt 200 ]
# Fast and slow reads both: p50 and p99.9 in different buckets.
check linnospct.spread sh -c "set -- $pct; [ \$1 -lt \$3 ]"
check linnospct.status_matches_histogram [ "$status" = "$pct" ]
dmsetup message lin 0 reset
check linnospct.reset_zero [ "$(lin_stat p50_us) $(lin_stat p99_us) $(lin_stat p999_us)" = "0 0 0" ]
check linnospct.remove sh -c "dmsetup remove lin && dmsetup remove slow1 && dmsetup remove slow0"
check linnospct.rmmod sh -c "rmmod lake_linnos && rmmod lake_slowdisk && rmmod brd && rmmod lakelib && rmmod lakeshm"
