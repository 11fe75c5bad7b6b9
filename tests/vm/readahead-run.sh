# The guest half of `make readahead-trace` and `make demo-readahead`
# (lake_ratrace=1, lake_rademo=1; helpers in readahead.sh).
#
# trace: the model off (decide off), for each readahead class (16, 128,
#   512, 2048 KiB) set by hand, the seq, random, strided and mixed phases
#   with their windows labelled: "ra-sweep PHASE KIB KIBPS" per run, then
#   every record the exporter (lake/readahead/trace) holds as "ra-trace:
#   ROW". Each phase starts on a freshly added disk, so no window's history
#   (RA_F_RECENT) holds another phase. train.py labels each window with its
#   phase's best class in the sweep.
# demo: each phase (mixed too) with the disk's default readahead, with each
#   fixed class (the sweep: the best fixed value per phase), and with the
#   model deciding: "ra-demo PHASE SETTING KIBPS" lines and a table.
. /lib/lake/readahead.sh
mode=demo
[ "${lake_ratrace:-0}" = 1 ] && mode=trace
classes="16 128 512 2048"
say() { echo "demo: $*"; }

insmod $M/lakeshm.ko size_mib=16 && insmod $M/lakelib.ko timeout_ms=2000 || exit 1
ra_disk_up || exit 1
def=$(ra_kib)
if [ "$mode" = trace ]; then
	insmod $M/lake_readahead.ko weights= || exit 1
	echo "decide off" > $ra_dbg/ctl || exit 1
	for kib in $classes; do
		for p in seq random strided mixed; do
			echo "add $RA_DEV" > $ra_dbg/ctl || exit 1
			ra_set_kib "$kib"
			echo "ra-sweep $p $kib $(ra_phase $p label)"
			echo "remove $RA_DEV" > $ra_dbg/ctl
		done
	done
	sed 's/^/ra-trace: /' $ra_dbg/trace
	echo "ra-trace-status: $(tr '\n' ' ' < $ra_dbg/status)"
	exit 0
fi

insmod $M/lake_readahead.ko || exit 1
echo "decide off" > $ra_dbg/ctl && echo "add $RA_DEV" > $ra_dbg/ctl || exit 1
say "disk: 4 GiB sparse RAM disk under lake_slow: every I/O ${RA_SEEK_US} us +-50% plus ${RA_US_PER_MIB} us per MiB; $RA_SEGS one-second fio segments per run, caches dropped before each"
say "$(grep '^model\|^classes' $ra_dbg/status | tr '\n' ' ')"
for p in seq random strided mixed; do
	ra_set_kib "$def"
	echo "ra-demo $p default $(ra_phase $p)"
	for kib in $classes; do
		ra_set_kib "$kib"
		echo "ra-demo $p $kib $(ra_phase $p)"
	done
	# The model starts from the default, on the disk the phase's other runs
	# just read: its history (RA_F_RECENT) is the phase's, as on a disk that
	# has run this workload for a while.
	ra_set_kib "$def"
	echo "decide on" > $ra_dbg/ctl
	echo "ra-demo $p model $(ra_phase $p)"
	echo "decide off" > $ra_dbg/ctl
	echo "ra-demo-changes $p $(sed -n 's/.* changes \([0-9]*\) .*/\1/p' $ra_dbg/status)"
done
sed 's/^/ra-demo-log: /' $ra_dbg/log
echo "remove $RA_DEV" > $ra_dbg/ctl
