# lakeshm: the region, its allocator as kernel code sees it, and laked's view.
. /lib/lake/vmlib.sh

refuse shm.insmod_size_zero_refused insmod $M/lakeshm.ko size_mib=0
check shm.insmod insmod $M/lakeshm.ko size_mib=16
check shm.device_mode_0600 sh -c '[ "$(stat -c %a /dev/lake_shm)" = 600 ]'
check shm.sysfs_size sh -c '[ "$(cat /sys/module/lakeshm/parameters/size_mib)" = 16 ]'
check shm.stats_size grep -qx 'size 16777216' /sys/kernel/debug/lake/shm_stats
check shm.selftest_insmod insmod $M/lake_shm_selftest.ko
prog shm.test_all shm_test all
# Pointers in log lines are hashed (%p), never raw kernel addresses.
check shm.log_has_foreign_free sh -c "dmesg | grep -q 'lakeshm: free of .*: not in the shared region'"
if pointers_hashed; then
	refuse shm.log_no_raw_address sh -c "dmesg | grep 'lakeshm: free of' | grep -E 'ffff[0-9a-f]{12}'"
else
	echo "# shm.log_no_raw_address: not checked on this boot (slub_debug unhashes %p); the 1-CPU boot checks it"
fi
refuse shm.rmmod_refused_while_used rmmod lakeshm
check shm.selftest_rmmod rmmod lake_shm_selftest
prog shm.test_rmmod shm_test rmmod
check shm.gone_after_rmmod sh -c '! grep -q "^lakeshm " /proc/modules'
