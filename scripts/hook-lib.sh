# hook-lib.sh — the body of ski's host hooks, sourced by hook-claude.sh and
# hook-opencode.sh after they set SKI_HOST. It composes the ski stages and is
# fail-open: whatever goes wrong, it prints nothing and exits 0 (never 2,
# which would block the prompt in Claude Code). With SKI_DEBUG=1 a one-line
# reason goes to stderr; stage messages are appended to
# $XDG_STATE_HOME/ski/hook.log.

set -uo pipefail
shopt -s lastpipe # a pipeline's last command runs in this shell (ski_stages)

# Every fork costs about a millisecond of a hook that runs on each prompt:
# builtins and parameter expansion stand in for dirname, mkdir and per-stage
# timeout processes.
ski_mode=${1:-}
case ${BASH_SOURCE[0]} in
*/*) ski_here=${BASH_SOURCE[0]%/*} ;;
*) ski_here=. ;;
esac
# Binaries: $SKI_BIN when set, else the repository's bin/ (where the README's
# set-up builds them), else PATH.
if [ -n "${SKI_BIN:-}" ]; then
	PATH="$SKI_BIN:$PATH"
elif [ -x "$ski_here/../bin/ski-rank" ]; then
	PATH="$ski_here/../bin:$PATH"
fi
# The stages are short processes doing one thing at a time: with one P the
# Go runtime starts fewer threads and spins less, which on two cores took
# ~1.5 ms off the prompt hook.
export GOMAXPROCS=1
ski_state=${XDG_STATE_HOME:-${HOME:-/tmp}/.local/state}/ski
ski_log=$ski_state/hook.log
# Where embed servers keep their sockets (embedsrv.RunDir).
case ${XDG_RUNTIME_DIR:-} in
/*) ski_run=$XDG_RUNTIME_DIR/ski ;;
*) ski_run=$ski_state/run ;;
esac
ski_timeout=${SKI_HOOK_TIMEOUT:-10}
case $ski_timeout in '' | *[!0-9]*) ski_timeout=10 ;; esac # whole seconds
# One deadline (Unix ms) for the whole pipeline, honoured by every stage.
if [ -n "${EPOCHREALTIME:-}" ]; then
	ski_now=${EPOCHREALTIME/[.,]/}
	export SKI_DEADLINE=$((${ski_now:0:-3} + ski_timeout * 1000))
else
	export SKI_DEADLINE=$(($(date +%s) * 1000 + ski_timeout * 1000))
fi

# ski_fail REASON [with-log]: give up silently; under SKI_DEBUG=1 say why on
# the host's stderr, with the last line a stage logged when asked.
ski_fail() {
	if [ "${SKI_DEBUG:-}" = 1 ]; then
		local last=""
		if [ "${2:-}" = with-log ] && [ -r "$ski_log" ]; then
			last=$(tail -n 1 "$ski_log" 2>/dev/null)
		fi
		printf 'ski hook (%s %s): %s%s\n' "$SKI_HOST" "$ski_mode" "$1" "${last:+: $last}" >&3
	fi
	exit 0
}

# fd 3 keeps the host's stderr for the debug line; stage messages go to the log.
exec 3>&2
if { { [ -d "$ski_state" ] || mkdir -p "$ski_state"; } && : >>"$ski_log"; } 2>/dev/null; then
	exec 2>>"$ski_log"
else
	ski_log=/dev/null
	exec 2>/dev/null
fi

# ski_stages: the prompt pipeline, event on stdin; the payload is left in
# out. The last stage's output is read by the shell itself (lastpipe):
# one process fewer than $(...).
ski_stages() {
	ski-embed --query --host "$SKI_HOST" | ski-rank | ski-select |
		ski-ledger record | ski-render --host "$SKI_HOST" | IFS= read -r -d '' out
	case ${PIPESTATUS[*]} in
	"0 0 0 0 0 "*) out=${out%$'\n'} ;;
	*) return 1 ;;
	esac
}

ski_prompt() {
	local event="" out="" hint
	# The event, read without a process (it may come on a socket, which
	# /dev/stdin cannot open): all of it when it is short.
	IFS= read -r -d '' -N 4096 event
	if [ ${#event} -lt 4096 ]; then
		# Hand it to the running embed servers first: each reads events
		# from a FIFO beside its socket and embeds the prompt at once, so
		# the model works while the stages start and the query finds the
		# vector in the server's cache. Opening read-write never blocks,
		# and an event this short fits in the FIFO even when no server
		# reads it.
		for hint in "$ski_run"/embed-*.sock.in; do
			if [ -p "$hint" ]; then printf '%s\n' "$event" 1<>"$hint"; fi
		done
		ski_stages <<<"$event" || ski_fail "pipeline failed" with-log
	else
		{ printf '%s' "$event" && exec cat; } | ski_stages || ski_fail "pipeline failed" with-log
	fi
	case $out in
	'') exit 0 ;;
	'{'*'}') printf '%s\n' "$out" ;;
	*) ski_fail "unexpected output" ;;
	esac
}

ski_observe() {
	ski-ledger observe --host "$SKI_HOST" >/dev/null || ski_fail "observe failed" with-log
}

ski_session_start() {
	local payload
	payload=$(cat) || ski_fail "cannot read stdin"
	# Keep the log from growing without bound.
	if [ -f "$ski_log" ] && [ "$(wc -c <"$ski_log")" -gt 1048576 ]; then
		: >"$ski_log"
	fi
	# The embed server loads the model in the background (detached, with
	# none of the hook's descriptors) while the index is checked.
	ski-embed --serve --detach --host "$SKI_HOST" </dev/null >/dev/null 3>&- || :
	printf '%s\n' "$payload" | ski-ledger rearm >/dev/null || ski_fail "rearm failed" with-log
	printf '%s\n' "$payload" | ski-embed --refresh --host "$SKI_HOST" >/dev/null || ski_fail "reindex failed" with-log
}

ski_main() {
	command -v ski-rank >/dev/null 2>&1 || ski_fail "ski binaries not found (run the README set-up)"
	case $ski_mode in
	prompt) ski_prompt ;;
	observe) ski_observe ;;
	session-start) ski_session_start ;;
	*) ski_fail "usage: hook-$SKI_HOST.sh prompt|observe|session-start" ;;
	esac
	exit 0
}
