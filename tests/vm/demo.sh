# The guest half of `make demo`: LinnOS on lake. Two RAM-disk replicas
# under lake_slow (GC-like bursts of extra milliseconds that move between
# them), the linnos target over both, and fio's random reads with a few
# writes: first with prediction off, then on the CPU, then with the GPU
# side forced through laked's host device. One table, one sentence.
. /lib/lake/linnos.sh
say() { echo "demo: $*"; }
secs=${lake_demo_secs:-15}
stats=/sys/kernel/debug/lake/lakelib_stats

linnos_up 3000 mode=off model=linnos/linnos_nn.lnw || { say "setup failed"; exit 1; }
dd if=/dev/urandom of=/dev/mapper/lin bs=1M count=16 oflag=direct 2> /dev/null

# run LABEL MODE: one fio run in MODE; its row of the table into /tmp/rows.
run() {
	dmsetup message lin 0 mode "$2" && dmsetup message lin 0 reset && lin_slow_reset 1 || return 1
	lin_fio "$secs" --output=/tmp/fio-$2.out > /dev/null 2>&1 || say "fio failed in mode $2"
	dmsetup status lin | cut -d' ' -f4- | tr ' ' '\n' | awk -v label="$1" '
		NR % 2 == 1 { k = $0; next } { v[k] = $0 }
		END {
			judged = v["true_slow"] + v["true_fast"] + v["false_submit"] + v["false_revoke"]
			if (label == "off") {
				acc = fs = fr = red = "-"
			} else {
				acc = sprintf("%.1f%%", v["accuracy"])
				fs = sprintf("%.2f%%", judged ? 100 * v["false_submit"] / judged : 0)
				fr = sprintf("%.2f%%", judged ? 100 * v["false_revoke"] / judged : 0)
				red = sprintf("%.1f%%", v["reads"] ? 100 * v["redirected"] / v["reads"] : 0)
			}
			ns = v["gpu_inferences"] ? v["gpu_ns_per_inference"] : v["cpu_ns_per_inference"]
			printf "%-14s %7d %8d %9d %9s %8s %8s %6s %8d %8d %8s %7d\n", label,
				v["p50_us"], v["p99_us"], v["p999_us"], acc, fs, fr, red,
				v["cpu_inferences"], v["gpu_inferences"],
				label == "off" ? "-" : ns, v["reads"]
		}' >> /tmp/rows
}

say "fio: 4 KiB random reads, 5% writes, one job, ${secs} s per run, on linnos over two replicas"
say "replicas: 16 MiB RAM disks under lake_slow (3 ms +-50% bursts, one replica at a time)"
: > /tmp/rows
run off off
run cpu cpu
laked --device=host > /tmp/laked.log 2>&1 &
for i in $(seq 50); do
	[ "$(grep '^daemon_portid ' $stats | cut -d' ' -f2)" != 0 ] && break
	sleep 0.1
done
run gpu-hostdev gpu
kill %1 2> /dev/null

say ""
say "$(printf '%-14s %7s %8s %9s %9s %8s %8s %6s %8s %8s %8s %7s' linnos p50_us p99_us p99.9_us \
	accuracy f_submit f_revoke redir cpu_inf gpu_inf ns/inf reads)"
sed 's/^/demo: /' /tmp/rows
off99=$(awk 'NR == 1 { print $3 }' /tmp/rows)
on99=$(awk 'NR == 2 { print $3 }' /tmp/rows)
gpu99=$(awk 'NR == 3 { print $3 }' /tmp/rows)
say ""
say "linnos predicted, for each read, from its replica's last four reads whether it would be slow, and sent the reads predicted slow to the other replica: p99 read latency went from ${off99} us with prediction off to ${on99} us with it on the CPU and ${gpu99} us with it on laked's host device."
