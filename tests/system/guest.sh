#!/bin/bash
# usage: guest.sh PHASE   (in the system layer's guest, from the payload;
#        lake_next= and lake_kver= on the kernel command line)
# One phase of an administrator's life with lake on a Debian 12 server;
# tests/system/run boots the guest once per phase and reads these lines:
#   install   apt installs the two packages built from the tree (6.1)
#   boot      after a reboot: modules, the service and its confinement,
#             lakectl, a module built against the installed lake, restart
#             and kill -9 under load, LinnOS over two loop devices with the
#             packaged weights; then the next step, named by lake_next=:
#             upgrade (install the 6.12 kernel) or purge (apt purge)
#   clean     a boot after the purge: nothing of lake is left running
# Prints "ok - NAME" / "not ok - NAME: why"; every wait is bounded.
set -u
phase=$1
next=$(sed -n 's/.*lake_next=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
want_kver=$(sed -n 's/.*lake_kver=\([^ ]*\).*/\1/p' /proc/cmdline)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/info"
kver=$(uname -r)
arch=$(uname -m)
dbg=/sys/kernel/debug/lake
ex=$dbg/example_vadd
log=/root/lake-test
mkdir -p "$log"
export DEBIAN_FRONTEND=noninteractive

pass() { echo "ok - $1"; }
fail() { echo "not ok - $1${2:+: $2}"; }
# check NAME CMD...: pass if CMD exits 0, else fail with its last lines.
check() {
	local n=$1 rc
	shift
	"$@" > /tmp/check.out 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$n"
	else
		tail -n 5 /tmp/check.out | sed 's/^/# /'
		fail "$n" "$(tail -n 1 /tmp/check.out | cut -c1-160) (exit $rc)"
	fi
	return $rc
}
refuse() {
	local n=$1
	shift
	if "$@" > /tmp/check.out 2>&1; then
		fail "$n" "unexpectedly succeeded"
	else
		pass "$n"
	fi
}
# wait_for SECONDS CMD...: CMD every 0.2 s until it succeeds or time is up.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	while ! "$@" > /dev/null 2>&1; do
		[ $SECONDS -lt $end ] || { "$@"; return 1; }
		sleep 0.2
	done
}
# timed NAME CMD...: check, and say how long CMD took.
timed() {
	local t0=$SECONDS
	check "$@"
	echo "# $1: $((SECONDS - t0)) s"
}

# The state systemd and laked are in.
main_pid() { systemctl show -p MainPID --value laked; }
restarts() { systemctl show -p NRestarts --value laked; }
active() { [ "$(systemctl show -p ActiveState --value laked)" = active ] &&
	[ "$(systemctl show -p SubState --value laked)" = running ]; }
# laked serving: systemd has its READY=1 and lakelib has it registered.
serving() { active && lakectl status | grep -q "^laked: *registered, pid $(main_pid) "; }
# serves_anew PID: a laked other than PID serves, within a minute.
serves_anew() { wait_for 60 serving && [ "$(main_pid)" != "$1" ]; }
in_flight() { [ "$(lakectl status | sed -n 's/^in flight: \([0-9]*\) calls$/\1/p')" -gt 0 ]; }
status_of() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"; }
# laked's confinement as the kernel sees it, from /proc/PID/status.
confined() {
	local pid uid
	pid=$(main_pid)
	uid=$(id -u laked) || return 1
	[ "$(status_of "$pid" Uid)" = "$(printf '%s\t%s\t%s\t%s' $uid $uid $uid $uid)" ] ||
		{ echo "Uid: $(status_of "$pid" Uid), laked is $uid"; return 1; }
	for c in CapInh CapPrm CapEff CapBnd CapAmb; do
		[ "$(status_of "$pid" $c)" = 0000000000000000 ] ||
			{ echo "$c: $(status_of "$pid" $c)"; return 1; }
	done
	[ "$(status_of "$pid" NoNewPrivs)" = 1 ] || { echo "NoNewPrivs off"; return 1; }
	[ "$(status_of "$pid" Seccomp)" = 2 ] || { echo "Seccomp: $(status_of "$pid" Seccomp)"; return 1; }
}
exposure() {
	local s
	s=$(systemd-analyze security laked.service 2>&1 |
		sed -n 's/.*Overall exposure level for laked.service: \([0-9.]*\).*/\1/p')
	echo "# systemd-analyze security laked.service: ${s:-none}"
	[ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s <= 2.5) }'
}

# examples/vadd through its debugfs file (examples/vadd/vadd.c).
ex_of() { grep "^$1 " $ex | cut -d' ' -f2; }
# run_on SIDE COUNT: COUNT more requests, all completed on SIDE, none wrong.
run_on() {
	local r s
	r=$(ex_of requests) s=$(ex_of "$1")
	echo "run $2" > $ex || return 1
	[ "$(ex_of requests)" = $((r + $2)) ] && [ "$(ex_of "$1")" = $((s + $2)) ] &&
		[ "$(ex_of wrong)" = 0 ] && [ "$(ex_of failed)" = 0 ] ||
		{ tr '\n' ' ' < $ex; echo; return 1; }
}
# After a new laked the module's first batch meets its stale handles, fails
# and is redone on the CPU (right, counted as cpu); it sets up anew.
warm_up() { echo "run 64" > $ex && all_done; }
# Every request so far completed, right, on one side or the other.
all_done() {
	[ "$(ex_of requests)" = $(($(ex_of cpu) + $(ex_of gpu))) ] &&
		[ "$(ex_of wrong)" = 0 ] && [ "$(ex_of failed)" = 0 ] ||
		{ tr '\n' ' ' < $ex; echo; return 1; }
}
# wait_writer PID SECONDS: a background run of the module ended in time.
wait_writer() {
	wait_for "$2" sh -c "! kill -0 $1 2> /dev/null" || return 1
	wait "$1"
}

phase_install() {
	# What the administrator has before lake: a user of their own, and a
	# note of theirs where lake's configuration goes.
	check install.fresh sh -c '! getent passwd laked && ! systemctl cat laked.service'
	id tester > /dev/null 2>&1 || useradd -m -s /bin/bash tester
	mkdir -p /etc/lake
	echo "# the administrator's own notes" > /etc/lake/admin-notes
	# The command the README gives; apt resolves what the packages need.
	timed install.apt sh -c "cd '$here/debs' && apt-get install -y ./lake-dkms_${version}_all.deb \
		./laked_${version}_$(dpkg --print-architecture).deb > $log/install.log 2>&1 ||
		{ tail -n 20 $log/install.log; exit 1; }"
	check install.user sh -c "getent passwd laked | grep -q ':/usr/sbin/nologin\$' &&
		[ \$(id -u laked) -lt 1000 ] && [ \$(id -u laked) -gt 0 ]"
	check "install.dkms [$kver]" sh -c "dkms status lake | grep -qx 'lake/$version, $kver, $arch: installed'"
	check install.symvers test -s "/var/lib/dkms/lake/$version/$kver/$arch/Module.symvers"
	check install.modules sh -c "modinfo -k $kver -n lakeshm | grep -q /updates/dkms/ &&
		modinfo -k $kver -n lakelib | grep -q /updates/dkms/"
	check install.enabled sh -c '[ "$(systemctl is-enabled laked)" = enabled ]'
	check install.headers test -e /usr/include/lake/cuda.h
}

phase_boot() {
	local pid n r wpid
	# modules-load.d, then the unit, whose condition is lakelib.
	check "boot.kernel [$kver]" test "$kver" = "$want_kver"
	check boot.modules_loaded sh -c 'systemctl is-active systemd-modules-load &&
		[ -d /sys/module/lakeshm ] && [ -d /sys/module/lakelib ]'
	check boot.modules_from_dkms sh -c "modinfo -n lakelib | grep -q '^/lib/modules/$kver/updates/dkms/'"
	check boot.laked_active wait_for 120 serving ||
		{ systemctl status --no-pager laked; journalctl -b -u laked --no-pager | tail -n 30; } 2>&1 |
		sed 's/^/# /'
	check boot.laked_notify sh -c '[ "$(systemctl show -p Type --value laked)" = notify ]'
	check boot.laked_no_restart sh -c '[ "$(systemctl show -p NRestarts --value laked)" = 0 ]'
	check boot.laked_confined confined
	check boot.security exposure
	check boot.journal sh -c "journalctl -b -u laked -o cat | grep -q 'registered as \"host\"'"
	check boot.no_failed_unit sh -c '[ -z "$(systemctl list-units --failed --plain --no-legend)" ]'
	check boot.lakectl_user runuser -u tester -- lakectl status
	# Under the unit's filters and laked's own, the calls go over the command ring.
	check boot.transport_ring sh -c "lakectl status | grep -qx 'transport: ring'"

	# A module author's build (README, "Install"): out of tree, against the
	# installed headers and the symbols DKMS kept; its kernel's host build in
	# laked's module directory.
	rm -rf /root/vadd && cp -r "$here/vadd" /root/vadd
	timed boot.vadd_build sh -c "cd /root/vadd && make -C /lib/modules/$kver/build M=\$PWD modules \
		LAKE_INCLUDE=/usr/src/lake-$version/include \
		KBUILD_EXTRA_SYMBOLS=/var/lib/dkms/lake/$version/$kver/$arch/Module.symvers > build.log 2>&1 ||
		{ tail -n 20 build.log; exit 1; }"
	check boot.vadd_kernel cc -x c -shared -fPIC -O2 /root/vadd/vadd.cu \
		-o /usr/lib/lake/kernels/example_vadd.so
	check boot.vadd_insmod insmod /root/vadd/lake_example_vadd.ko n=256 max_batch=8 window_us=2000
	check boot.lakectl_user_refused sh -c 'runuser -u tester -- lakectl policy example_vadd mode gpu;
		[ $? = 4 ]'
	check boot.lakectl_root_mode lakectl policy example_vadd mode gpu
	check boot.vadd_host_device run_on gpu 200 ||
		{ journalctl -b -u laked -o cat --no-pager | tail -n 15; dmesg | grep -i 'lake\|vadd' |
		tail -n 15; } 2>&1 | sed 's/^/# /'

	# systemctl restart with the module's calls in flight: laked is stopped
	# first, so the run's first batch waits on it whatever the speed; the
	# restart's SIGTERM (and systemd's SIGCONT) ends it. Every request
	# completes right, on one side or the other, and laked serves again.
	pid=$(main_pid)
	kill -STOP "$pid"
	echo "run 2000" > $ex &
	wpid=$!
	check boot.restart_in_flight wait_for 30 in_flight
	check boot.restart systemctl restart laked
	check boot.restart_callers_done wait_writer $wpid 300
	check boot.restart_no_wrong_data all_done
	check boot.restart_serves serves_anew "$pid"
	warm_up
	check boot.restart_vadd run_on gpu 200

	# kill -9: Restart=on-failure brings laked back.
	pid=$(main_pid) r=$(restarts)
	kill -9 "$pid"
	check boot.kill9_restarted serves_anew "$pid"
	check boot.kill9_counted sh -c "[ \$(systemctl show -p NRestarts --value laked) = $((r + 1)) ]"
	check boot.kill9_confined confined
	warm_up
	check boot.kill9_vadd run_on gpu 200
	check boot.vadd_rmmod rmmod lake_example_vadd
	linnos

	case $next in
	upgrade) phase_upgrade ;;
	purge) phase_purge ;;
	esac
}

# examples/linnos built as vadd is, over two loop devices, with the weights
# lake-dkms installs in /lib/firmware/linnos: the data stays right, on the
# CPU and on laked's host device.
st_of() { dmsetup status lin | tr ' ' '\n' | grep -A1 -x "$1" | tail -n 1; }
st_gt() { [ "$(st_of "$1")" -gt "$2" ]; }
# lin_same: the target reads back what was written, from the disk.
lin_same() { echo 3 > /proc/sys/vm/drop_caches && cmp /root/lin.data /dev/mapper/lin; }
# gpu_reads: reads until the GPU side has predicted some (a minute at most).
gpu_reads() {
	local end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		lin_same || return 1
		st_gt gpu_inferences 0 && return 0
	done
	dmsetup status lin
	return 1
}
linnos() {
	local k=/root/linnos l0 l1
	rm -rf $k && cp -r "$here/linnos" $k
	timed boot.linnos_build sh -c "cd $k && make -C /lib/modules/$kver/build M=$k modules \
		KCFLAGS=-I/usr/src/lake-$version/include \
		KBUILD_EXTRA_SYMBOLS=/var/lib/dkms/lake/$version/$kver/$arch/Module.symvers > build.log 2>&1 ||
		{ tail -n 20 build.log; exit 1; }"
	check boot.linnos_kernel cc -x c -shared -fPIC -O2 $k/linnos.cu -o /usr/lib/lake/kernels/linnos.so
	check boot.linnos_weights test -s /lib/firmware/linnos/linnos_nn.lnw
	check boot.linnos_insmod insmod $k/lake_linnos.ko
	truncate -s 16M /root/leg0 /root/leg1
	l0=$(losetup -f --show /root/leg0) && l1=$(losetup -f --show /root/leg1)
	check boot.linnos_create sh -c "dmsetup create lin --table \
		'0 32768 linnos $l0 $l1 mode=cpu model=linnos/linnos_nn.lnw' && udevadm settle &&
		[ -b /dev/mapper/lin ]"
	dd if=/dev/urandom of=/root/lin.data bs=1M count=16 2> /dev/null
	check boot.linnos_write dd if=/root/lin.data of=/dev/mapper/lin bs=1M oflag=direct
	# The legs' own page cache may hold what udev's probe read before the writes.
	check boot.linnos_both_legs sh -c "echo 3 > /proc/sys/vm/drop_caches &&
		cmp /root/lin.data $l0 && cmp /root/lin.data $l1"
	check boot.linnos_read_cpu sh -c "$(declare -f lin_same st_of st_gt); lin_same && st_gt predicted 0"
	check boot.linnos_mode_gpu dmsetup message lin 0 mode gpu
	check boot.linnos_read_host_device gpu_reads
	echo "# linnos: $(dmsetup status lin)"
	dmsetup remove lin
	losetup -d "$l0" "$l1"
	check boot.linnos_rmmod rmmod lake_linnos
}

# A new kernel from apt: DKMS builds lake for it from the kernel's hook.
phase_upgrade() {
	timed upgrade.apt sh -c "apt-get update > $log/update.log 2>&1 &&
		apt-get install -y linux-image-$k612 linux-headers-$k612 > $log/upgrade.log 2>&1 ||
		{ tail -n 20 $log/update.log $log/upgrade.log; exit 1; }"
	check "upgrade.dkms [$k612]" sh -c "dkms status lake | grep -qx 'lake/$version, $k612, $arch: installed'"
	check "upgrade.symvers [$k612]" test -s "/var/lib/dkms/lake/$version/$k612/$arch/Module.symvers"
	check upgrade.default_kernel sh -c "[ \$(readlink /vmlinuz) = boot/vmlinuz-$k612 ]"
}

# apt purge: lake goes, what the administrator made stays.
phase_purge() {
	timed purge.apt sh -c "apt-get purge -y lake-dkms laked > $log/purge.log 2>&1 ||
		{ tail -n 20 $log/purge.log; exit 1; }"
	check purge.dkms_empty sh -c '[ -z "$(dkms status)" ]'
	check purge.no_modules sh -c '! ls /lib/modules/*/updates/dkms/lake* 2> /dev/null &&
		[ ! -e /var/lib/dkms/lake ] && ! ls -d /usr/src/lake-* 2> /dev/null'
	check purge.no_unit sh -c '! systemctl cat laked.service &&
		[ ! -e /etc/systemd/system/multi-user.target.wants/laked.service ] &&
		! pgrep -x laked'
	check purge.no_package sh -c '! dpkg-query -W -f="\${Status}\n" lake-dkms laked 2> /dev/null |
		grep -qv not-installed'
	check purge.no_files sh -c '[ ! -e /etc/lake/laked.conf ] && [ ! -e /usr/lib/modules-load.d/lake.conf ] &&
		[ ! -e /usr/lib/modprobe.d/lake.conf ] && [ ! -e /usr/sbin/laked ] &&
		[ ! -e /usr/include/lake ] && [ ! -e /usr/lib/sysusers.d/laked.conf ]'
	check purge.keeps_admin_files sh -c 'grep -q "administrator" /etc/lake/admin-notes &&
		[ -e /usr/lib/lake/kernels/example_vadd.so ]'
	# The user stays (Debian removes no system user: files may still name
	# it), owning nothing.
	check purge.user_owns_nothing sh -c '[ -z "$(find / -xdev -user laked -print -quit)" ]'
}

phase_clean() {
	check clean.no_modules sh -c '[ ! -d /sys/module/lakelib ] && [ ! -d /sys/module/lakeshm ]'
	check clean.no_unit sh -c '! systemctl cat laked.service'
	check clean.no_failed_unit sh -c '[ -z "$(systemctl list-units --failed --plain --no-legend)" ]'
}

# The boot itself: systemd reached the end of its start-up jobs (all but
# this one) without a failed unit.
booted() { [ "$(systemctl list-jobs --no-legend | grep -cv lake-test)" = 0 ]; }
check "$phase.booted" wait_for 300 booted
echo "# $phase: kernel $kver, up $(cut -d' ' -f1 /proc/uptime) s"
case $phase in
install) phase_install ;;
boot) phase_boot ;;
clean) phase_clean ;;
*) fail "$phase" "no such phase" ;;
esac
# Debian's quiet console hides a WARN: the kernel's log is read here.
check "$phase.dmesg_clean" sh -c "! dmesg | grep -E 'Kernel panic|BUG: |WARNING: |Oops|general protection|blocked for more than'"
echo "# $phase: done at $(cut -d' ' -f1 /proc/uptime) s"
