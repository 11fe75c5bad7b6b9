# The guest half of `make linnos-trace`: record the training trace for
# LinnOS. fio runs the demo's workload with prediction off while the
# exporter (debugfs lake/linnos/lin/trace) is read every second; every CSV
# line goes to the console prefixed "trace: ", where the host collects it.
. /lib/lake/linnos.sh
secs=${lake_trace_secs:-60}
linnos_up 3000 mode=off || exit 1
# Fill the replicas: the reads then read real data through both paths.
dd if=/dev/urandom of=/dev/mapper/lin bs=1M count=16 oflag=direct 2> /dev/null
dmsetup message lin 0 reset
t=/sys/kernel/debug/lake/linnos/lin/trace
exec 3< $t
lin_fio "$secs" --output=/tmp/fio.out > /dev/null 2>&1 &
fio=$!
while kill -0 $fio 2> /dev/null; do
	sed 's/^/trace: /' <&3
	sleep 1
done
sed 's/^/trace: /' <&3
echo "trace-status: $(dmsetup status lin)"
