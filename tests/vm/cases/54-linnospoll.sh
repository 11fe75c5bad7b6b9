# examples/linnos under polled I/O: io_uring with IOPOLL through the target
# over two NVMe legs with a poll queue each (QEMU's nvme devices, the
# driver's poll_queues=1). dm polls the bios it cloned for the target,
# whoever submits them (reads the worker sends on after map() returned
# included), and no other: a bio the target makes itself (a write's copy to
# the other leg) must not be a polled one, or nobody polls it and nvme's
# timeout (30 s) completes it. fio's verified random reads and writes, in
# cpu and in gpu mode, end in seconds (on 6.12; 6.1 refuses them, below).
. /lib/lake/vmlib.sh
fw=linnos
S=32768	# 16 MiB, the size of each drive (tests/vm/run)
BOUND_S=20	# a polled run of 3 s ends within this, or something waited

loaded() { grep -q "^$1 " /proc/modules; }
ours=""
kmod() { loaded "$1" || { insmod $M/kernel/$2.ko $3 && ours="$1 $ours"; }; }
insmod_nvme() {
	for m in $(cat $M/kernel/nvme.order); do
		if [ "$m" = nvme ]; then
			kmod nvme nvme poll_queues=1 || return 1
		else
			kmod "$(echo "$m" | tr - _)" "$m" || return 1
		fi
	done
}
drives_up() {
	for i in $(seq 50); do
		[ -b /dev/nvme0n1 ] && [ -b /dev/nvme1n1 ] && return 0
		sleep 0.1
	done
	return 1
}
check linnospoll.insmod_nvme insmod_nvme
check linnospoll.drives drives_up
check linnospoll.drives_poll sh -c "[ \$(cat /sys/block/nvme0n1/queue/io_poll) = 1 ] && [ \$(cat /sys/block/nvme1n1/queue/io_poll) = 1 ]"
kmod dm_mod dm-mod
check linnospoll.insmod_lake sh -c "insmod $M/lakeshm.ko size_mib=16 && insmod $M/lakelib.ko timeout_ms=3000 && insmod $M/lake_linnos.ko"
check linnospoll.zero sh -c "dd if=/dev/zero of=/dev/nvme0n1 bs=1M count=16 oflag=direct 2> /dev/null &&
	dd if=/dev/zero of=/dev/nvme1n1 bs=1M count=16 oflag=direct 2> /dev/null"
check linnospoll.create sh -c "dmsetup create lin --table '0 $S linnos /dev/nvme0n1 /dev/nvme1n1 mode=cpu model=$fw/linnos_nn.lnw' && dmsetup mknodes"
dm=$(dmsetup info -c -o blkdevname --noheadings lin)
check linnospoll.target_polls sh -c "[ \$(cat /sys/block/$dm/queue/io_poll) = 1 ]"

# run_fio MODE: 3 s of fio through the target in MODE; its wall time in /tmp/poll.secs.
run_fio() {
	dmsetup message lin 0 mode "$1" || return 1
	dmesg -c > /dev/null
	_t0=$(date +%s)
	timeout 90 fio --name=p --filename=/dev/mapper/lin --ioengine=io_uring --hipri=1 \
		--direct=1 --rw=randrw --rwmixread=70 --bs=4k --iodepth=8 --size=8M \
		--verify=crc32c --verify_backlog=64 --time_based --runtime=3 \
		--output=/tmp/fio.out > /dev/null 2>&1
	_rc=$?
	echo $(($(date +%s) - _t0)) > /tmp/poll.secs
	[ $_rc = 0 ] && grep -q 'err= 0' /tmp/fio.out && ! grep -q 'err= *[1-9]' /tmp/fio.out && return 0
	grep -m 1 -iE 'error|err=' /tmp/fio.out
	return 1
}
# QEMU's emulated NVMe (Debian's 7.2) now and then stops answering a poll
# queue on 6.12: every command there times out at 30 s with no completion
# even when the driver polls the queue itself ("timeout, aborting"), until
# the reset at 60 s. A bio nobody polls is another thing: the device did
# complete it, and the driver's poll finds it ("timeout, completion
# polled"). Only the device's stall is run again, once, and said so.
device_stalled() {
	[ "$(cat /tmp/poll.secs)" -ge $BOUND_S ] &&
		dmesg | grep -q 'nvme.* timeout, aborting' && ! dmesg | grep -q 'completion polled'
}
# polled MODE: run_fio, again after a device stall (noted in /tmp/poll.again).
polled() {
	rm -f /tmp/poll.again
	run_fio "$1"
	_r=$?
	device_stalled || return $_r
	echo "# linnospoll: the emulated NVMe stalled ($(cat /tmp/poll.secs) s):" \
		"$(dmesg | grep -m 1 'timeout, aborting'); once more" > /tmp/poll.again
	run_fio "$1"
}
# After a run's checks: a stall run again, and a run past the bound with
# what the kernel said.
run_says() {
	cat /tmp/poll.again 2>/dev/null
	[ "$(cat /tmp/poll.secs)" -lt $BOUND_S ] || dmesg | tail -n 40 | sed 's/^/# dmesg: /'
}
laked --device=host > /tmp/laked-poll.log 2>&1 &
pid=$!
check linnospoll.laked wait_for 20 registered
case $(uname -r) in
6.1.*)
	# 6.1 marks async polled bios REQ_NOWAIT too, and the target takes no
	# nowait I/O (no DM_TARGET_NOWAIT: a mirror's write could not be
	# failed back whole): dm refuses them at once, a clear EOPNOTSUPP.
	refuse linnospoll.polled_refused polled cpu
	check linnospoll.refused_eopnotsupp grep -q 'err=95' /tmp/fio.out
	check linnospoll.refused_at_once sh -c "[ $(cat /tmp/poll.secs) -lt $BOUND_S ]"
	;;
*)
	check linnospoll.cpu_fio polled cpu
	echo "# cpu mode: fio ran $(cat /tmp/poll.secs) s; $(dmsetup status lin | cut -d' ' -f4-9)"
	check linnospoll.cpu_in_seconds sh -c "[ $(cat /tmp/poll.secs) -lt $BOUND_S ]"
	run_says
	check linnospoll.gpu_fio polled gpu
	echo "# gpu mode: fio ran $(cat /tmp/poll.secs) s; $(dmsetup status lin | tr ' ' '\n' | grep -A1 -x gpu_inferences | tr '\n' ' ')"
	check linnospoll.gpu_in_seconds sh -c "[ $(cat /tmp/poll.secs) -lt $BOUND_S ]"
	run_says
	check linnospoll.gpu_side_ran sh -c "[ \$(dmsetup status lin | tr ' ' '\n' | grep -A1 -x gpu_inferences | tail -n 1) -gt 0 ]"
	;;
esac
check linnospoll.legs_equal sh -c "cmp /dev/nvme0n1 /dev/nvme1n1"

check linnospoll.remove dmsetup remove lin
check linnospoll.rmmod rmmod lake_linnos
kill -TERM $pid
wait $pid 2> /dev/null
check linnospoll.rmmod_lake sh -c "rmmod lakelib && rmmod lakeshm"
check linnospoll.rmmod_kernel_modules sh -c "for m in $ours; do rmmod \$m || exit 1; done"
