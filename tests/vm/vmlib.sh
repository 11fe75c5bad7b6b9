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
