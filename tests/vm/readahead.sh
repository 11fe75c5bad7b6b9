# Guest helpers for examples/readahead's demo and trace recorder (sourced;
# busybox sh). The disk: a sparse 4 GiB RAM disk (brd allocates only what
# is written; reads of the rest are zeros) under lake_slow with every I/O
# delayed like a disk's: a seek of RA_SEEK_US +-50%, then RA_US_PER_MIB per
# MiB moved. The workload: phases of one-second fio segments, buffered
# (direct=0), the page cache dropped before each and each opening the disk
# afresh (a file's readahead is the bdi's when it is opened).
#
#   seq      sequential read(), 128 KiB requests
#   random   random 4 KiB reads through mmap over the whole disk, no
#            madvise hint (so faults read around, as most programs' do)
#   strided  4 KiB through mmap every 64 KiB, no hint either
#   mixed    seq and random, two segments each, in turn
#
# Every run begins with one unmeasured segment of its phase and a window's
# wait.
#
# A segment's throughput is the bytes fio read over the time it ran: what
# the application got, not what readahead moved.
M=/lib/lake
RA_DEV=/dev/mapper/ra0
RA_SECTORS=8388608		# 4 GiB
RA_SEEK_US=${RA_SEEK_US:-2000}
RA_US_PER_MIB=${RA_US_PER_MIB:-10000}	# 100 MiB/s
RA_SEGS=${RA_SEGS:-8}		# segments per phase
RA_REGION_MIB=256		# each segment reads its own region
ra_dbg=/sys/kernel/debug/lake/readahead
ra_seg=0

ra_disk_up() {
	insmod $M/kernel/dm-mod.ko &&
		insmod $M/kernel/brd.ko rd_nr=1 rd_size=$((RA_SECTORS / 2)) &&
		insmod $M/lake_slowdisk.ko slow_us=$RA_SEEK_US slow_pct=100 only_index=0 \
			us_per_mib=$RA_US_PER_MIB &&
		dmsetup create ra0 --table "0 $RA_SECTORS lake_slow /dev/ram0 0" &&
		dmsetup mknodes
}

ra_sysfs() { echo "/sys/block/$(dmsetup info -c --noheadings -o blkdevname "$RA_DEV")/queue/read_ahead_kb"; }
ra_kib() { cat "$(ra_sysfs)"; }
ra_set_kib() { echo "$1" > "$(ra_sysfs)"; }

# ra_segment KIND: one segment; prints "KB MS" (read, ran).
ra_segment() {
	_off=$(( (ra_seg % 15) * RA_REGION_MIB ))
	ra_seg=$((ra_seg + 1))
	_size=${RA_REGION_MIB}m
	case $1 in
	seq) _o="--rw=read --bs=128k --ioengine=psync" ;;
	# The whole disk: in a region a second of read-around could cache,
	# larger readahead would win by filling the cache, not by reading less.
	random) _o="--rw=randread --bs=4k --ioengine=mmap --fadvise_hint=0 --randseed=$ra_seg"
		_off=0 _size=$((RA_SECTORS / 2048))m ;;
	strided) _o="--rw=read:60k --bs=4k --ioengine=mmap --fadvise_hint=0" ;;
	esac
	sync
	echo 3 > /proc/sys/vm/drop_caches
	# shellcheck disable=SC2086 # one option per word
	fio --name=s --filename=$RA_DEV --readonly --direct=0 $_o --offset=${_off}m \
		--size=$_size --time_based --runtime=1 --minimal 2> /dev/null |
		awk -F';' '{ print $6, $9 }'
}

# ra_kind PHASE I: the kind of segment I (-1: the warm-up) of a phase.
ra_kind() {
	[ "$1" = mixed ] || { echo "$1"; return; }
	[ $(( (($2 + 4) / 2) % 2 )) = 0 ] && echo seq || echo random
}

# ra_phase PHASE [LABEL]: one unmeasured segment and a window's wait (a
# model decides on the window before: a run must not be judged by the one
# segment it starts under another phase's readahead), then RA_SEGS
# segments; prints the phase's KiB/s. With LABEL, the measured segments'
# windows are labelled by the phase (0 seq, 1 random, 2 strided, 3 mixed)
# in the registry.
ra_phase() {
	ra_segment "$(ra_kind "$1" -1)" > /dev/null
	_w=$(($(cat /sys/module/lake_readahead/parameters/window_ms) + 200))
	sleep "$((_w / 1000)).$(((_w % 1000) / 100))"
	if [ -n "${2:-}" ]; then
		case $1 in seq) _l=0 ;; random) _l=1 ;; strided) _l=2 ;; mixed) _l=3 ;; esac
		echo "label $_l" > $ra_dbg/ctl
	fi
	_kb=0
	_ms=0
	_i=0
	while [ $_i -lt "$RA_SEGS" ]; do
		set -- "$1" "${2:-}" $(ra_segment "$(ra_kind "$1" $_i)")
		_kb=$((_kb + ${3:-0}))
		_ms=$((_ms + ${4:-0}))
		set -- "$1" "$2"
		_i=$((_i + 1))
	done
	[ -n "${2:-}" ] && echo "label none" > $ra_dbg/ctl
	[ $_ms -gt 0 ] && echo $((_kb * 1000 / _ms)) || echo 0
}
