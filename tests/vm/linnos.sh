# Guest helpers for LinnOS's demo and trace recorder (sourced; busybox sh):
# two 16 MiB RAM disks under lake_slow (GC-like latency bursts that move
# between them), and the linnos target "lin" over them.
M=/lib/lake
LIN_SECTORS=32768

# linnos_up SLOW_US [TABLE OPTIONS...]: lake's modules too.
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
		insmod $M/lake_slowdisk.ko slow_us="$_slow" && insmod $M/lake_linnos.ko &&
		dmsetup create slow0 --table "0 $LIN_SECTORS lake_slow /dev/ram0 0" &&
		dmsetup create slow1 --table "0 $LIN_SECTORS lake_slow /dev/ram1 1" &&
		dmsetup mknodes &&
		dmsetup create lin --table \
			"0 $LIN_SECTORS linnos /dev/mapper/slow0 /dev/mapper/slow1 $*" &&
		dmsetup mknodes
}

# The value after KEY in `dmsetup status lin`.
lin_stat() { dmsetup status lin | tr ' ' '\n' | grep -A1 -x "$1" | tail -n 1; }

# lin_fio SECONDS [FIO OPTIONS...]: 4 KiB random reads with 5% writes,
# LIN_JOBS jobs (4).
lin_fio() {
	_t=$1
	shift
	fio --name=lin --filename=/dev/mapper/lin --rw=randrw --rwmixread=95 --bs=4k \
		--direct=1 --ioengine=psync --numjobs="${LIN_JOBS:-4}" --time_based --runtime="$_t" \
		--group_reporting "$@"
}
