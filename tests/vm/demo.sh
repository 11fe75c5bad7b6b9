# The guest half of `make demo`: lakeshm's region and allocator at work.
. /lib/lake/vmlib.sh
say() { echo "demo: $*"; }
ctl=/sys/kernel/debug/lake/shm_selftest

say "insmod lakeshm.ko size_mib=16"
insmod $M/lakeshm.ko size_mib=16 || exit 1
insmod $M/lake_shm_selftest.ko || exit 1
say "/dev/lake_shm: $(ls -l /dev/lake_shm | awk '{print $1, $3}')"
for req in "4096 0 1" "100 0 2" "3000 4096 3" "64 0 4"; do
	echo "alloc $req" > $ctl
	say "kernel allocates $(echo $req | cut -d' ' -f1) bytes (align $(echo $req | cut -d' ' -f2)) -> offset $(cat $ctl)"
done
say "region statistics (debugfs lake/shm_stats):"
sed 's/^/demo:   /' /sys/kernel/debug/lake/shm_stats
say "user space maps the region and reads the 3rd buffer (offset 8192):"
shm_peek 8192 32 | sed 's/^/demo:   /'
echo "free 4096" > $ctl
say "free offset 4096 -> $(cat $ctl); free blocks now $(grep free_blocks /sys/kernel/debug/lake/shm_stats | cut -d' ' -f2)"
echo "free 0" > $ctl
say "free offset 0 -> $(cat $ctl); neighbours coalesce: free blocks $(grep free_blocks /sys/kernel/debug/lake/shm_stats | cut -d' ' -f2), largest $(grep largest_free /sys/kernel/debug/lake/shm_stats | cut -d' ' -f2)"
rmmod lake_shm_selftest && rmmod lakeshm && say "modules unloaded cleanly"
