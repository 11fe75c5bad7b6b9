# examples/linnos's routing, judged where the reads went: replica 0 is slow
# all the time (lake_slow, only_index=0), the model is a stated rule
# (linnos_rule.lnw: slow when two of the four history latencies reach
# 1.5 ms; tests/vm/linnos-rule.py), and lake_slow counts the I/Os each
# replica really got. Reads homed at the slow replica must leave it, save
# one probe per 10 ms; once it is fast again the probes bring its reads
# back. Inline (mode cpu) and on the worker (mode auto, no laked: the CPU
# side), whose inference counts must match the reads they predicted.
. /lib/lake/vmlib.sh
SECTORS=32768	# 16 MiB per replica
P=/sys/module/lake_slowdisk/parameters
loaded() { grep -q "^$1 " /proc/modules; }
st_of() { dmsetup status lin | tr ' ' '\n' | grep -A1 -x "$1" | tail -n 1; }
ios_of() { dmsetup status "$1" | tr ' ' '\n' | grep -A1 -x ios | tail -n 1; }
setup() {
	{ loaded dm_mod || insmod $M/kernel/dm-mod.ko; } &&
		{ loaded brd || insmod $M/kernel/brd.ko rd_nr=2 rd_size=16384; } &&
		insmod $M/lakeshm.ko size_mib=16 && insmod $M/lakelib.ko timeout_ms=2000 &&
		insmod $M/lake_slowdisk.ko slow_us=3000 slow_pct=100 only_index=0 \
			burst_min_ms=1000 burst_max_ms=1000 &&
		insmod $M/lake_linnos.ko &&
		dmsetup create slow0 --table "0 $SECTORS lake_slow /dev/ram0 0" &&
		dmsetup create slow1 --table "0 $SECTORS lake_slow /dev/ram1 1" &&
		dmsetup mknodes &&
		dmsetup create lin --table "0 $SECTORS linnos /dev/mapper/slow0 \
			/dev/mapper/slow1 mode=cpu model=linnos/linnos_rule.lnw" &&
		dmsetup mknodes
}
reset_all() {
	dmsetup message lin 0 reset && dmsetup message slow0 0 reset &&
		dmsetup message slow1 0 reset
}
# reads SECONDS: open-loop 4 KiB random reads, 1000 a second.
reads() {
	fio --name=r --filename=/dev/mapper/lin --rw=randread --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=4 --rate_iops=1000 --rate_process=poisson \
		--randseed=7 --time_based --runtime="$1" --output=/tmp/fio.out > /dev/null 2>&1 &&
		grep -q 'err= 0' /tmp/fio.out
}
show() { echo "# $1: $(dmsetup status lin) | slow0 $(ios_of slow0) slow1 $(ios_of slow1)"; }

check route.setup setup
dd if=/dev/urandom of=/tmp/data bs=1M count=16 2> /dev/null
check route.write dd if=/tmp/data of=/dev/mapper/lin bs=1M oflag=direct

for mode in cpu auto; do
	check route.${mode}_mode dmsetup message lin 0 mode $mode
	echo 100 > $P/slow_pct
	reset_all
	check route.${mode}_slow_reads reads 3
	show "$mode, replica 0 slow"
	r=$(st_of reads) probes=$(st_of probes) s0=$(ios_of slow0) s1=$(ios_of slow1)
	# Every read went to exactly one replica.
	check route.${mode}_each_read_went_once [ $((s0 + s1)) = "$r" ]
	# Under TCG on a loaded host fio may fall well behind its rate.
	check route.${mode}_enough_reads [ "$r" -gt 200 ]
	# Half the reads are homed at replica 0; all but probes and the few
	# issued before two slow reads had completed there went to replica 1.
	check route.${mode}_slow_replica_left [ "$s0" -le $((probes + 16)) ]
	check route.${mode}_redirected [ "$(st_of redirected)" -ge $((r / 2 - probes - 16 - r / 20)) ]
	# Probes: at most one per 10 ms, and they do happen.
	check route.${mode}_probes_bounded [ "$probes" -le 305 ]
	check route.${mode}_probes_sent [ "$probes" -ge 20 ]
	if [ $mode = cpu ]; then
		# Inline: home, and the other replica unless home is fast or probed.
		check route.cpu_inferences_counted [ "$(st_of cpu_inferences)" = \
			$(($(st_of predicted) + $(st_of predicted_slow) - probes)) ]
	else
		check route.auto_inferences_counted [ \
			$(($(st_of cpu_inferences) + $(st_of gpu_inferences))) = $((2 * $(st_of predicted))) ]
	fi
	check route.${mode}_all_predicted [ "$(st_of predicted)" = "$r" ]

	# Fast again: within four probes its reads are back.
	echo 0 > $P/slow_pct
	reset_all
	check route.${mode}_fast_reads reads 3
	show "$mode, both fast"
	r=$(st_of reads) s0=$(ios_of slow0)
	check route.${mode}_recovered [ "$s0" -ge $((r * 2 / 5)) ]
	# TCG's hiccups make a few fast reads slow, and their histories with them.
	check route.${mode}_few_redirects_when_fast [ "$(st_of redirected)" -le $((r / 10)) ]
done

check route.data_right sh -c "[ \"\$(dd if=/dev/mapper/lin bs=1M iflag=direct 2>/dev/null | md5sum)\" = \
	\"\$(md5sum < /tmp/data)\" ]"
check route.remove sh -c "dmsetup remove lin && dmsetup remove slow1 && dmsetup remove slow0"
check route.rmmod sh -c "rmmod lake_linnos && rmmod lake_slowdisk && rmmod lakelib && rmmod lakeshm"
