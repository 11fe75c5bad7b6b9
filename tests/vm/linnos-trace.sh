# The guest half of `make linnos-trace`: record LinnOS's training and
# held-out traces. One segment per seed S in lake_trace_seeds (commas;
# default 101..104 to train on, 201 held out): lake_slow's schedule
# restarts from S and fio runs the demo's own workload (lin_fio) with
# LIN_SEED=S for lake_trace_secs seconds (default 16), prediction off. The
# demo uses seeds 1..5, so no trace shares its bursts or its arrivals. The
# exporter (debugfs lake/linnos/lin/trace) is read every second; each CSV
# row goes to the console as "trace S: ROW", where the host collects it.
. /lib/lake/linnos.sh
secs=${lake_trace_secs:-16}
seeds=$(echo "${lake_trace_seeds:-101,102,103,104,201}" | tr ',' ' ')
linnos_up 3000 mode=off || exit 1
# Fill the replicas: the reads then read real data through both paths.
dd if=/dev/urandom of=/dev/mapper/lin bs=1M count=16 oflag=direct 2> /dev/null
t=/sys/kernel/debug/lake/linnos/lin/trace
exec 3< $t
for s in $seeds; do
	cat <&3 > /dev/null	# what came before this segment (the fill's reads, if any)
	lin_slow_reset "$s" && dmsetup message lin 0 reset || exit 1
	LIN_SEED=$s lin_fio "$secs" --output=/tmp/fio.out > /dev/null 2>&1 &
	fio=$!
	while kill -0 $fio 2> /dev/null; do
		grep -v '^ts_ns' <&3 | sed "s/^/trace $s: /"
		sleep 1
	done
	grep -v '^ts_ns' <&3 | sed "s/^/trace $s: /"
	echo "trace-status $s: $(dmsetup status lin)"
	echo "trace-slow $s: $(dmsetup status slow0 | cut -d' ' -f4-) / $(dmsetup status slow1 | cut -d' ' -f4-)"
done
