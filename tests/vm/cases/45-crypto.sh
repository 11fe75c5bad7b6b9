# examples/crypto: xts-aes-lake through the kernel's crypto API. The kernel's
# own self-tests (testmgr) pass when it registers, once on the CPU side (no
# laked) and once on laked's host device (policy_mode=gpu); dm-crypt over a
# RAM disk with "capi:xts-aes-lake-plain64" writes exactly the ciphertext
# the kernel's xts(aes) writes (a second mapping with the CPU driver reads
# it back), both ways; fio with crc32c verification through the mapping
# sees no error while laked is killed with a batch in flight and restarted;
# forced CPU sends nothing to laked; rmmod is refused while a mapping holds
# the driver, and no request is left pending; a queue of two backlogs; with
# its priority raised, dm-crypt's plain aes-xts-plain64 uses it. Lengths
# that need ciphertext stealing, which testmgr's vectors here lack, are
# compared with the kernel's xts directly.
#
# gcm-aes-lake, the module's AEAD: testmgr's gcm(aes) self-tests pass on
# both sides; aead_cmp (tests/vm/progs) drives it and the kernel's gcm(aes)
# through AF_ALG with random shapes, key, tag, AAD and text sizes, and the
# two must agree byte for byte and refuse the same forgeries: on laked's
# host device while rmmod is tried (refused: the program holds a tfm), on
# the CPU side when forced, and through laked's kill -9 (its failed GPU
# batches redone on the CPU). The module's request-shape fuzzer ("fuzz N
# SEED") runs a short round on each side, for both algorithms.
. /lib/lake/vmlib.sh
dbg=/sys/kernel/debug/lake
ex=$dbg/example_xts
pol=$dbg/policy/example_xts
DRIVER=xts-aes-lake
SECTORS=2048		# the 1 MiB mapping
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f	# 2 x 128 bits

ex_of() { grep "^$1 " $ex | cut -d' ' -f2; }
gx=$dbg/example_gcm
gpol=$dbg/policy/example_gcm
GCM=gcm-aes-lake
gx_of() { grep "^$1 " $gx | cut -d' ' -f2; }
gx_gt() { [ "$(gx_of "$1")" -gt "$2" ]; }
gcm_done() { [ "$(gx_of pending)" = 0 ] && [ "$(gx_of errors)" = 0 ]; }
# acmp_run NAME COUNT: lake's gcm against the kernel's, from a seed this boot shows.
acmp_run() { prog "crypto.aead_cmp_$1" aead_cmp $GCM 'gcm(aes)' "$2" "$seed" "crypto.gcm_$1"; }
# Kernel arguments (make fuzz-crypto's long run): lake_cfuzz_count, the
# fuzzer's requests per side and algorithm (8: make test's short round), and
# lake_cfuzz_seed (default: the clock; printed, so a run can be replayed).
seed=${lake_cfuzz_seed:-$(date +%s)}
cfuzz=${lake_cfuzz_count:-8}
ex_gt() { [ "$(ex_of "$1")" -gt "$2" ]; }
loaded() { grep -q "^$1 " /proc/modules; }
# Kernel modules an earlier case left loaded stay; those loaded here go.
ours=""
kmods() {
	for m in $(cat $M/kernel/$1.order); do
		_n=$(echo "$m" | tr - _)
		loaded "$_n" || { insmod $M/kernel/$m.ko && ours="$_n $ours"; } || return 1
	done
}
# /proc/crypto's block for lake's driver, and one of its fields.
block() { _d=${1:-$DRIVER}; awk -v d="$_d" '/^name/ { keep = 0 } /^driver/ && $3 == d { keep = 1 } keep' /proc/crypto; }
field() { block "$2" | awk -v f="$1" '$1 == f { print $3 }'; }
selftest_passed() { [ "$(field selftest)" = passed ]; }
gcm_selftest_passed() { [ "$(field selftest $GCM)" = passed ]; }
show_block() { block | grep . | sed 's/^/# /'; }
start_laked() {
	laked --device=host >> /tmp/laked-crypto.log 2>&1 &
	pid=$!
	wait_for 20 registered
}
in_flight() { [ "$(stat_of in_flight)" -gt 0 ]; }
crypt_map() { dmsetup create "$1" --table "0 $SECTORS crypt $2 $KEY 0 /dev/ram0 0" && dmsetup mknodes; }
lake_map() { crypt_map lk capi:$DRIVER-plain64; }
cpu_map() { crypt_map kc 'capi:xts(aes)-plain64'; }
# write MAP FILE / same MAP FILE: through a mapping, bypassing the page cache.
write() { dd if="$2" of=/dev/mapper/"$1" bs=4k oflag=direct conv=fsync 2> /dev/null; }
same() { dd if=/dev/mapper/"$1" bs=4k count=64 iflag=direct 2> /dev/null | cmp - "$2"; }
all_done() { [ "$(ex_of pending)" = 0 ] && [ "$(ex_of errors)" = 0 ]; }
fio_ok() { grep -q 'err= 0' /tmp/fio.out && ! grep -q 'err= [1-9]' /tmp/fio.out; }
# The best other xts(aes) outranks lake's.
below_cpu() {
	_best=$(awk -v d="$DRIVER" '/^name/ { n = $3 } /^driver/ { r = $3 }
		/^priority/ && n == "xts(aes)" && r != d { print $3 }' /proc/crypto | sort -n | tail -n 1)
	echo "# best CPU xts(aes) priority: $_best"
	[ -n "$_best" ] && [ "$(field priority)" -lt "$_best" ]
}
round_trip() { write "$1" "$2" && same "$1" "$2"; }
fio_verify() {
	fio --name=v --filename=/dev/mapper/lk --rw=randwrite --bs=4k --size=1M --direct=1 \
		--ioengine=psync --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output=/tmp/fio.out > /dev/null 2>&1
}

kmods dm-crypt && kmods xts && kmods gcm && kmods algif_aead && { loaded brd || { insmod $M/kernel/brd.ko rd_nr=1 \
	rd_size=1024 && ours="brd $ours"; }; }
check crypto.kmods [ $? = 0 ]
check crypto.insmod_lake sh -c "insmod $M/lakeshm.ko size_mib=16 && insmod $M/lakelib.ko timeout_ms=9000"
echo "# guest CPU has AES-NI: $(grep -qw aes /proc/cpuinfo && echo yes || echo no)"

# No laked: the self-tests run on the CPU side (the kernel's xts behind ours).
check crypto.insmod_cpu insmod $M/lake_example_xts.ko
check crypto.registered wait_for 20 sh -c "[ -n \"\$(awk '\$3 == \"$DRIVER\"' /proc/crypto)\" ]"
check crypto.selftest_cpu_side wait_for 20 selftest_passed
show_block
check crypto.async [ "$(field async)" = yes ]
check crypto.priority_below_cpu below_cpu
check crypto.selftests_on_cpu sh -c "[ $(ex_of cpu) -gt 0 ] && [ $(ex_of gpu) = 0 ]"
check crypto.nothing_pending all_done
check crypto.gcm_selftest_cpu_side wait_for 20 gcm_selftest_passed
block $GCM | grep . | sed 's/^/# /'
check crypto.gcm_async [ "$(field async $GCM)" = yes ]
check crypto.gcm_priority_below_cpu sh -c "[ $(field priority $GCM) -lt 100 ]"
check crypto.gcm_selftests_on_cpu sh -c "[ $(gx_of cpu) -gt 0 ] && [ $(gx_of gpu) = 0 ]"
check crypto.gcm_nothing_pending gcm_done
check crypto.rmmod_unused rmmod lake_example_xts
check crypto.gone sh -c "! grep -q $DRIVER /proc/crypto"

# laked up, the policy forced to the GPU side before registering: testmgr's
# vectors (in place, out of place, split scatterlists) run on the host device.
check crypto.laked_registers start_laked
check crypto.insmod_gpu insmod $M/lake_example_xts.ko policy_mode=gpu
check crypto.selftest_gpu_side wait_for 20 selftest_passed
echo "# after the self-tests: $(tr '\n' ' ' < $ex)"
check crypto.selftests_on_gpu sh -c "[ $(ex_of gpu) -gt 0 ] && [ $(ex_of redone_on_cpu) = 0 ]"
check crypto.constant_time_on_guest sh -c "grep -qw aes /proc/cpuinfo || [ $(ex_of ran_table_free) -gt 0 ]"
check crypto.gcm_selftest_gpu_side wait_for 20 gcm_selftest_passed
echo "# gcm after the self-tests: $(tr '\n' ' ' < $gx)"
check crypto.gcm_selftests_on_gpu sh -c "[ $(gx_of gpu) -gt 0 ] && [ $(gx_of redone_on_cpu) = 0 ]"
check crypto.gcm_constant_time_on_guest sh -c "grep -qw pclmulqdq /proc/cpuinfo || [ $(gx_of ran_table_free) -gt 0 ]"

# AF_ALG: random shapes through lake's gcm (on laked) and the kernel's;
# rmmod meanwhile is refused, and nothing is lost.
echo "# aead_cmp and fuzz seed: $seed (lake_cfuzz_seed=$seed replays), fuzz count $cfuzz"
gpu0=$(gx_of gpu)
acmp_run gpu 16 > /tmp/aead_gpu.out &
acmp=$!
check crypto.gcm_busy wait_for 10 sh -c "[ \$(grep '^pending ' $gx | cut -d' ' -f2) -gt 0 ] || [ \$(grep '^gpu ' $gx | cut -d' ' -f2) -gt $gpu0 ]"
check crypto.gcm_rmmod_in_flight_refused sh -c "kill -0 $acmp && ! rmmod lake_example_xts 2> /dev/null"
wait $acmp
cat /tmp/aead_gpu.out
check crypto.gcm_aead_cmp_on_gpu gx_gt gpu $((gpu0 + 16))
check crypto.gcm_nothing_lost_gpu gcm_done

# The request-shape fuzzer (fuzz.c), lake's drivers on laked's host device:
# random scatterlists (1-8 entries at random offsets), lengths, AAD and tag
# sizes, key sizes, in place or not, against the kernel's drivers.
fuzz() { echo "fuzz $2 $seed" > $1 || return 1; grep "^fuzz" $1; grep -q "^fuzz .* mismatches 0 errors 0$" $1; }
gpu0=$(gx_of gpu) xgpu0=$(ex_of gpu)
check crypto.fuzz_gcm_gpu fuzz $gx $cfuzz
check crypto.fuzz_xts_gpu fuzz $ex $cfuzz
echo "# $(grep '^fuzz' $gx); $(grep '^fuzz' $ex)"
check crypto.fuzz_gpu_side sh -c "[ $(gx_of gpu) -ge $((gpu0 + 3 * cfuzz)) ] && [ $(ex_of gpu) -ge $((xgpu0 + 2 * cfuzz)) ]"

# The kernel's xts(aes) vectors on these kernels are 32 and 512 bytes, so
# testmgr never reaches ciphertext stealing: lake's bytes against the
# kernel's xts for lengths that need it (and two that do not), on laked,
# lake's requests in three uneven scatterlist entries.
compare_all() {
	for _sz in 17 31 100 513 4095 512 4096; do
		echo "compare $_sz 8" > $ex || return 1
		grep -qx "compare size $_sz count 8 differ 0" $ex || { grep '^compare' $ex; return 1; }
	done
}
check crypto.calibrate sh -c "echo calibrate > $ex"
echo "# calibrated crossover: $(grep '^crossover_calibrated ' $pol/status | cut -d' ' -f2)"
refuse crypto.bad_command sh -c "echo fly > $ex"
refuse crypto.bad_bench_size sh -c "echo 'bench 15 1 cpu' > $ex"
gpu0=$(ex_of gpu)
check crypto.stealing_equals_kernel compare_all
check crypto.stealing_on_gpu_side ex_gt gpu $((gpu0 + 7 * 16 - 1))

# dm-crypt: what lake writes, the kernel's xts reads, and back.
dd if=/dev/urandom of=/tmp/a bs=4k count=64 2> /dev/null
dd if=/dev/urandom of=/tmp/b bs=4k count=64 2> /dev/null
check crypto.map_lake lake_map
gpu0=$(ex_of gpu)
check crypto.write_lake write lk /tmp/a
check crypto.written_on_gpu ex_gt gpu $((gpu0 + 511))
check crypto.read_lake same lk /tmp/a
check crypto.ciphertext_not_plaintext sh -c "! dd if=/dev/ram0 bs=4k count=64 iflag=direct 2> /dev/null | cmp -s - /tmp/a"
dmsetup remove lk
check crypto.map_cpu cpu_map
check crypto.cpu_reads_lake same kc /tmp/a
check crypto.write_cpu write kc /tmp/b
dmsetup remove kc
lake_map
check crypto.lake_reads_cpu same lk /tmp/b

# cryptsetup, as the README says (plain mode, the key from a file, no udev
# in the guest): the same table, so lake's mapping reads what it wrote.
for _h in $(echo $KEY | sed 's/../& /g'); do printf "\\$(printf %03o 0x$_h)"; done > /tmp/key
cs_open() {
	mkdir -p /run/cryptsetup
	DM_DISABLE_UDEV=1 cryptsetup open --type plain --cipher capi:$DRIVER-plain64 \
		--key-size 256 --key-file /tmp/key /dev/ram0 cs && dmsetup mknodes
}
dmsetup remove lk
check crypto.cryptsetup_open cs_open
check crypto.cryptsetup_table sh -c "dmsetup table --showkeys cs | grep -q 'crypt capi:$DRIVER-plain64 $KEY '"
check crypto.cryptsetup_reads_lake same cs /tmp/b
check crypto.cryptsetup_close sh -c "DM_DISABLE_UDEV=1 cryptsetup close cs"
lake_map

# kill -9 with a batch in flight: laked is stopped first, so the first GPU
# batch waits on it whatever the host's speed; it fails when laked dies and
# runs again on the CPU; a new laked serves once the policy probes again.
redone=$(ex_of redone_on_cpu)
gredone=$(gx_of redone_on_cpu)
stop_task $pid
fio_verify &
fio=$!
acmp_run kill9 6 > /tmp/aead_kill.out 2>&1 &
acmp=$!
check crypto.gpu_batch_waits wait_for 20 in_flight
kill -9 $pid
wait $pid 2> /dev/null
check crypto.laked_restarts start_laked
check crypto.fio_exit wait $fio
wait $acmp
cat /tmp/aead_kill.out
check crypto.gcm_kill9_redone_on_cpu gx_gt redone_on_cpu "$gredone"
check crypto.gcm_kill9_nothing_lost gcm_done
check crypto.fio_verified fio_ok
check crypto.kill9_batch_redone_on_cpu ex_gt redone_on_cpu "$redone"
check crypto.kill9_nothing_lost all_done
echo "# after kill -9: $(tr '\n' ' ' < $ex)"
gpu0=$(ex_of gpu)
check crypto.gpu_after_restart wait_for 20 sh -c "dd if=/dev/mapper/lk of=/dev/null bs=4k count=16 iflag=direct 2> /dev/null; [ \$(grep '^gpu ' $ex | cut -d' ' -f2) -gt $gpu0 ]"

# Forced CPU: nothing goes to laked.
echo cpu > $pol/mode
echo cpu > $gpol/mode
ggpu0=$(gx_of gpu) gcpu0=$(gx_of cpu)
acmp_run cpu 6
check crypto.gcm_cpu_forced_counts sh -c "[ $(gx_of gpu) = $ggpu0 ] && [ \$(grep '^cpu ' $gx | cut -d' ' -f2) -gt $gcpu0 ]"
check crypto.fuzz_gcm_cpu fuzz $gx $cfuzz
check crypto.fuzz_xts_cpu fuzz $ex $cfuzz
echo "# $(grep '^fuzz' $gx); $(grep '^fuzz' $ex)"
echo gpu > $gpol/mode
gpu0=$(ex_of gpu) cpu0=$(ex_of cpu)
check crypto.cpu_forced round_trip lk /tmp/a
check crypto.cpu_forced_counts sh -c "[ $(ex_of gpu) = $gpu0 ] && [ $(ex_of cpu) -gt $cpu0 ]"
echo gpu > $pol/mode

# rmmod while the mapping holds the driver and fio runs through it: refused,
# and fio still verifies every byte.
fio_verify &
fio=$!
check crypto.rmmod_busy_refused sh -c "! rmmod lake_example_xts 2> /dev/null"
wait $fio
check crypto.fio_during_rmmod_exit [ $? = 0 ]
check crypto.fio_during_rmmod_verified fio_ok
check crypto.still_loaded loaded lake_example_xts
dmsetup remove lk
check crypto.final_nothing_lost all_done
echo "# at the end: $(tr '\n' ' ' < $ex)"
check crypto.rmmod rmmod lake_example_xts

# A queue of two: dm-crypt's requests past it are backlogged
# (-EBUSY, then -EINPROGRESS when taken), none lost, all right. The priority
# raised above the CPU's, plain "aes-xts-plain64" gets lake's driver.
check crypto.insmod_small_queue insmod $M/lake_example_xts.ko policy_mode=gpu max_queue=2 \
	priority=500
check crypto.small_queue_selftest wait_for 20 selftest_passed
crypt_map lk aes-xts-plain64
gpu0=$(ex_of gpu)
check crypto.small_queue_dm round_trip lk /tmp/b
check crypto.raised_priority_is_default ex_gt gpu $((gpu0 + 511))
check crypto.small_queue_backlogged ex_gt backlogged 0
dmsetup remove lk
check crypto.small_queue_nothing_lost all_done
echo "# queue of two: $(tr '\n' ' ' < $ex)"
check crypto.rmmod_small_queue rmmod lake_example_xts
kill $pid
wait $pid 2> /dev/null
check crypto.rmmod_lake sh -c "rmmod lakelib && rmmod lakeshm"
check crypto.rmmod_kernel_modules sh -c "for m in $ours; do rmmod \$m || exit 1; done"
