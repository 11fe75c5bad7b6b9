# Guest-side helpers for the case scripts (sourced; busybox sh).
M=/lib/lake

pass() { echo "ok - $1"; }
fail() { echo "not ok - $1${2:+: $2}"; }

# check NAME CMD...: run CMD, pass if it exits 0, else fail with its last line.
check() {
	_n=$1
	shift
	if "$@" > /tmp/check.out 2>&1; then
		pass "$_n"
	else
		fail "$_n" "$(tail -n 1 /tmp/check.out) (exit $?)"
	fi
}

# refuse NAME CMD...: the inverse, for commands that must fail.
refuse() {
	_n=$1
	shift
	if "$@" > /tmp/check.out 2>&1; then
		fail "$_n" "unexpectedly succeeded"
	else
		pass "$_n"
	fi
}

# prog NAME CMD...: run a guest program that reports checks (vmtest.h) and
# show its results. NAME passes if the program reached its end (its
# LAKE_PROG_END line) and its exit status agrees with what it reported: a
# crash or an early exit fails here, whatever checks it took with it.
prog() {
	_n=$1
	shift
	"$@" > /tmp/prog.out 2>&1
	_rc=$?
	grep -v '^LAKE_PROG_END ' /tmp/prog.out
	_f=$(sed -n 's/^LAKE_PROG_END checks [0-9]* failed \([0-9]*\)$/\1/p' /tmp/prog.out)
	if [ -z "$_f" ]; then
		fail "$_n" "ended early, exit $_rc$([ $_rc -gt 128 ] && echo " (signal $((_rc - 128)))")"
	elif [ $((_f > 0)) != $((_rc != 0)) ] || [ "$_rc" -gt 1 ]; then
		fail "$_n" "exit $_rc with $_f failed"
	elif [ "$_f" = 0 ] && grep -q '^not ok - ' /tmp/prog.out; then
		fail "$_n" "a failure its count missed"
	else
		pass "$_n"
	fi
}

# ctl FILE CMD: send CMD to a test module's debugfs FILE (selftest_ctl.h) and
# print its answer. A command that cannot be sent is a failure, reported on
# stderr so that redirecting the answer cannot hide it.
ctl() {
	if ! echo "$2" > "$1"; then
		fail "ctl.${1##*/}" "cannot send '$2'" >&2
		return 1
	fi
	cat "$1"
}

# ctl_checks FILE CMD: ctl for a command that reports checks; an answer with
# none fails too. Exit 0 iff it reported checks and no failure.
ctl_checks() {
	ctl "$1" "$2" > /tmp/ctl.out || return 1
	cat /tmp/ctl.out
	if ! grep -qE '^(not )?ok - ' /tmp/ctl.out; then
		fail "ctl.${1##*/}.$(echo "$2" | tr ' ' _)" "no result in its answer" >&2
		return 1
	fi
	! grep -q '^not ok - ' /tmp/ctl.out
}

# wait_for SECONDS CMD...: CMD every 0.1 s until it succeeds, or its last try
# when time is up (whose status is returned).
wait_for() {
	_w=$(($1 * 10))
	shift
	while [ $_w -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_w=$((_w - 1))
	done
	"$@"
}

# stop_task PID: SIGSTOP, back once every thread of PID is stopped (kill
# returns while a thread running on another CPU may still take a call).
all_stopped() {
	for _s in /proc/$1/task/*/status; do
		grep -q '^State:.T' "$_s" || return 1
	done
}
stop_task() {
	kill -STOP "$1" && wait_for 5 all_stopped "$1"
}

# Counters of lakelib and lakeshm by name, and whether a laked is registered.
stat_of() { grep "^$1 " /sys/kernel/debug/lake/lakelib_stats | cut -d' ' -f2; }
shm_of() { grep "^$1 " /sys/kernel/debug/lake/shm_stats | cut -d' ' -f2; }
registered() { [ "$(stat_of daemon_portid)" != 0 ]; }
unregistered() { ! registered; }

# Does %p hash pointers on this boot? slub_debug turns hashing off (the
# 2-CPU boots'), so a raw-address check means something only elsewhere.
pointers_hashed() { ! grep -q 'slub_debug=' /proc/cmdline; }
