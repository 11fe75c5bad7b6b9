# lakectl over the lake genl family: its values equal lakelib's debugfs
# counters, --json parses (jq), a mode or crossover set with it takes
# effect, any user may read and only root may change, and the exit codes
# tell scripts what went wrong.
. /lib/lake/vmlib.sh
dbg=/sys/kernel/debug/lake
stats=$dbg/lakelib_stats
pol=$dbg/policy/example_vadd
ex=$dbg/example_vadd

pol_of() { grep "^$1 " $pol/status | cut -d' ' -f2; }
ex_of() { grep "^$1 " $ex | cut -d' ' -f2; }
# exits WANT CMD...: CMD exits with status WANT.
exits() {
	_want=$1
	shift
	"$@"
	_rc=$?
	[ $_rc = "$_want" ] || { echo "exit $_rc, want $_want"; return 1; }
}
as_nobody() { su -s /bin/sh nobody -c "$*"; }
start_laked() {
	laked --device=host >> /tmp/laked.log 2>&1 &
	pid=$!
	for i in $(seq 50); do registered && return 0; sleep 0.1; done
	return 1
}
# same NAME FILE1 FILE2: equal once sorted, else the difference.
same() {
	sort "$2" > /tmp/a.sorted
	sort "$3" > /tmp/b.sorted
	cmp -s /tmp/a.sorted /tmp/b.sorted && return 0
	echo "$1 differs:"; diff /tmp/a.sorted /tmp/b.sorted | head -n 5
	return 1
}
# Every lakelib_stats counter (calls_X, errors_X: calls and failed calls of
# API X) equals lakectl's.
stats_match() {
	lakectl --json stats > /tmp/stats.json || return 1
	grep -v -e '^daemon_portid ' -e '^load_' $stats > /tmp/stats.dbg
	jq -r '(.counters | to_entries[] | "\(.key) \(.value)"),
		(.calls | to_entries[] | "calls_\(.key) \(.value)"),
		(.errors | to_entries[] | "errors_\(.key) \(.value)")' /tmp/stats.json > /tmp/stats.ctl &&
	[ "$(wc -l < /tmp/stats.ctl)" -gt 40 ] && same stats /tmp/stats.dbg /tmp/stats.ctl
}
# The policy's mode, crossovers, decisions, trips, last reason and every
# reason count agree.
policy_match() {
	lakectl --json policy example_vadd > /tmp/pol.json || return 1
	grep -E '^(mode|crossover|crossover_calibrated|decisions_cpu|decisions_gpu|trips|last_reason|reason_[a-z_]*) ' \
		$pol/status > /tmp/pol.dbg
	jq -r '.[0] | "mode \(.mode)", "crossover \(.crossover // "never")",
		"crossover_calibrated \(.crossover_calibrated // "never")",
		"decisions_cpu \(.decisions.cpu)", "decisions_gpu \(.decisions.gpu)",
		"trips \(.trips)", "last_reason \(.last_reason)",
		(.reasons | to_entries[] | "reason_\(.key) \(.value)")' /tmp/pol.json > /tmp/pol.ctl &&
	same policy /tmp/pol.dbg /tmp/pol.ctl
}
# The registry's header, counters and schema lines, rebuilt from lakectl's JSON.
registry_match() {
	lakectl --json registry smp > /tmp/reg.json || return 1
	grep -E '^(registry|committed|feature) ' $dbg/registry/smp > /tmp/reg.dbg
	jq -r '.[0] | "registry \(.name) capacity \(.capacity) count \(.count) open \(.open)/\(.max_open) vector_bytes \(.vector_bytes)",
		"committed \(.committed) dropped \(.dropped) truncated \(.truncated) aborted \(.aborted) begin_failed \(.begin_failed)",
		(.features | to_entries[] | "feature \(.key) \(.value.name) size \(.value.size) entries \(.value.entries)")' \
		/tmp/reg.json > /tmp/reg.ctl &&
	same registry /tmp/reg.dbg /tmp/reg.ctl
}
# The status, as "key value" lines.
status_is() {
	lakectl --json status > /tmp/st.json
	jq -r '"registered \(.daemon.registered) pid \(.daemon.pid) portid \(.daemon.portid) device \(.daemon.device) size \(.region.size) used \(.region.used) in_flight \(.in_flight) timeout_ms \(.timeout_ms)"' \
		/tmp/st.json > /tmp/st.ctl
	echo "$1" > /tmp/st.want
	same status /tmp/st.want /tmp/st.ctl
}

check lakectl.help lakectl --help
check lakectl.usage_exit2 exits 2 lakectl frobnicate
check lakectl.no_lakelib_exit3 exits 3 lakectl status
check lakectl.insmod_lakeshm insmod $M/lakeshm.ko size_mib=16
check lakectl.insmod_lakelib insmod $M/lakelib.ko timeout_ms=2000
check lakectl.no_daemon_exit6 exits 6 lakectl status
check lakectl.no_daemon_json sh -c 'lakectl --json status > /tmp/st.json; jq -e ".daemon.registered == false" /tmp/st.json'

check lakectl.laked_registers start_laked
check lakectl.status lakectl status
check lakectl.status_text sh -c "lakectl status | grep -q 'registered, pid $pid'"
check lakectl.status_json status_is "registered true pid $pid portid $(stat_of daemon_portid) device host size $((16 << 20)) used $(grep '^used ' $dbg/shm_stats | cut -d' ' -f2) in_flight 0 timeout_ms 2000"

# Work through the example: calls, bytes and decisions to count.
check lakectl.insmod_example insmod $M/lake_example_vadd.ko n=256 max_batch=8 window_us=2000
check lakectl.calibrate sh -c "echo calibrate > $ex"
echo "run 100" > $ex
check lakectl.stats_match_debugfs stats_match
check lakectl.stats_text sh -c "lakectl stats | grep -q '^  cuLaunchKernel  *[1-9]'"
check lakectl.policy_match_debugfs policy_match
check lakectl.policy_text sh -c "lakectl policy | grep -qx example_vadd"

# Changes take effect, from root only.
check lakectl.mode_cpu lakectl policy example_vadd mode cpu
check lakectl.mode_cpu_in_debugfs grep -qx cpu $pol/mode
_c=$(ex_of cpu)
echo "run 40" > $ex
check lakectl.mode_cpu_runs_on_cpu [ "$(ex_of cpu)" = $((_c + 40)) ]
check lakectl.mode_gpu lakectl policy example_vadd mode gpu
_g=$(ex_of gpu)
echo "run 40" > $ex
check lakectl.mode_gpu_runs_on_gpu [ "$(ex_of gpu)" = $((_g + 40)) ]
check lakectl.policy_match_after policy_match
check lakectl.crossover_set lakectl policy example_vadd crossover 4
check lakectl.crossover_in_debugfs [ "$(pol_of crossover_override)" = 4 ]
check lakectl.crossover_calibrated lakectl policy example_vadd crossover calibrated
check lakectl.crossover_back [ "$(pol_of crossover_override)" = 0 ]
check lakectl.mode_auto lakectl policy example_vadd mode auto
check lakectl.unknown_policy_exit5 exits 5 lakectl policy nosuch mode cpu
check lakectl.unknown_policy_list_exit5 exits 5 lakectl policy nosuch
check lakectl.bad_mode_exit2 exits 2 lakectl policy example_vadd mode fast
check lakectl.bad_crossover_exit2 exits 2 lakectl policy example_vadd crossover -3

check lakectl.nobody_status as_nobody lakectl status
nobody_json() {
	as_nobody lakectl --json policy > /tmp/nobody.json &&
		jq -e '.[0].name == "example_vadd"' /tmp/nobody.json
}
check lakectl.nobody_json nobody_json
check lakectl.nobody_change_exit4 exits 4 as_nobody lakectl policy example_vadd mode gpu
check lakectl.nobody_change_refused grep -qx auto $pol/mode

# Registries: schema, fill and losses.
check lakectl.registry_none sh -c "lakectl registry | grep -qx 'no registry'"
check lakectl.insmod_registry insmod $M/lake_registry_selftest.ko
echo run > $dbg/registry_selftest
check lakectl.registry_match_debugfs registry_match
check lakectl.registry_text sh -c "lakectl registry smp | grep -q '^  schema'"
check lakectl.unknown_registry_exit5 exits 5 lakectl registry nosuch
check lakectl.rmmod_registry rmmod lake_registry_selftest

check lakectl.rmmod_example rmmod lake_example_vadd
kill -TERM $pid
wait $pid 2>/dev/null
check lakectl.unregistered_exit6 exits 6 lakectl status
check lakectl.rmmod_lakelib rmmod lakelib
check lakectl.rmmod_lakeshm rmmod lakeshm
