# hook-lib.sh — the body of ski's host hooks, sourced by hook-claude.sh and
# hook-opencode.sh after they set SKI_HOST. It composes the ski stages and is
# fail-open: whatever goes wrong, it prints nothing and exits 0 (never 2,
# which would block the prompt in Claude Code). With SKI_DEBUG=1 a one-line
# reason goes to stderr; stage messages are appended to
# $XDG_STATE_HOME/ski/hook.log.
#
# Plain POSIX sh: hosts run it with sh (dash on Debian and Ubuntu), which
# starts and forks faster than bash. Every fork costs about a millisecond of
# a hook that runs on each prompt, so builtins and parameter expansion stand
# in for dirname, mkdir, date and per-stage timeout processes.

ski_mode=${1:-}
case $0 in
*/*) ski_here=${0%/*} ;;
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
# Each stage gives up SKI_STAGE_TIMEOUT whole seconds after it started (the
# stages of a pipeline start together): one time limit for the pipeline,
# the user's SKI_HOOK_TIMEOUT, without a timeout process per stage.
SKI_STAGE_TIMEOUT=${SKI_HOOK_TIMEOUT:-10}
case $SKI_STAGE_TIMEOUT in '' | *[!0-9]*) SKI_STAGE_TIMEOUT=10 ;; esac
export SKI_STAGE_TIMEOUT
# Where the shell can tell which stage of a pipeline failed, let it.
command set -o pipefail 2>/dev/null || :

# ski_fail REASON [with-log]: give up silently; under SKI_DEBUG=1 say why on
# the host's stderr, with the last line a stage logged when asked.
ski_fail() {
	if [ "${SKI_DEBUG:-}" = 1 ]; then
		ski_last=""
		if [ "${2:-}" = with-log ] && [ -r "$ski_log" ]; then
			ski_last=$(tail -n 1 "$ski_log" 2>/dev/null)
		fi
		printf 'ski hook (%s %s): %s%s\n' "$SKI_HOST" "$ski_mode" "$1" "${ski_last:+: $ski_last}" >&3
	fi
	exit 0
}

# ski_mine PATH: PATH is the user's own and not a symlink (which could make
# ski write to a file someone else chose).
ski_mine() {
	[ ! -L "$1" ] && [ -O "$1" ]
}

# ski_log_usable: the log may be appended to: the state dir is a real
# directory of the user's, and the log is missing or a regular file of
# theirs. Anything else (a directory, a symlink, another user's file) is
# left alone, and the stages' messages are dropped.
ski_log_usable() {
	[ -d "$ski_state" ] || mkdir -p "$ski_state" || return 1
	[ -d "$ski_state" ] && ski_mine "$ski_state" || return 1
	if [ -e "$ski_log" ] || [ -L "$ski_log" ]; then
		[ -f "$ski_log" ] && ski_mine "$ski_log"
	fi
}

# fd 3 keeps the host's stderr for the debug line; stage messages go to the
# log. "command" keeps a failed redirection (a read-only file system, a file
# made unwritable meanwhile) from ending the shell, which dash does for the
# special builtin exec with status 2: Claude Code's "block the prompt".
exec 3>&2 2>/dev/null
if ! { ski_log_usable && command exec 2>>"$ski_log"; }; then
	ski_log=/dev/null
fi

# ski_trim_log: empty a log grown past 1 MiB, only when it is still a
# regular file of the user's (never through a symlink).
ski_trim_log() {
	if [ -f "$ski_log" ] && ski_mine "$ski_log" && [ "$(wc -c <"$ski_log")" -gt 1048576 ]; then
		command : >"$ski_log"
	fi 2>/dev/null
}

# ski_stages: the prompt pipeline, fed the host's event on stdin. The shell
# never reads the event itself: ski-embed reads it (a bounded read, a long
# prompt cut to its first part) and hands it to the embed server first.
ski_stages() {
	ski-embed --query --event --host "$SKI_HOST" | ski-rank | ski-select | ski-ledger record | ski-render --host "$SKI_HOST"
}

ski_prompt() {
	if [ "${SKI_DEBUG:-}" = 1 ]; then ski_logged=$(wc -c <"$ski_log"); fi
	# The stages write only when they have succeeded, so a failed stage
	# leaves the rest of the pipeline with nothing to say; the last
	# stage's status (every stage's, under pipefail) and the shape of the
	# payload are checked before anything reaches the host.
	if ! ski_out=$(ski_stages); then
		# A damaged index fails ranking: have the index of this directory
		# (where hosts run their hooks) checked whole, and set aside and
		# rebuilt in the background, without waiting for that.
		echo '{}' | ski-embed --refresh --background --host "$SKI_HOST" >/dev/null 2>&1 3>&- &
		ski_fail "pipeline failed" with-log
	fi
	case $ski_out in
	'{'*'}') printf '%s\n' "$ski_out" ;;
	'')
		if [ "${SKI_DEBUG:-}" = 1 ] && [ "$(wc -c <"$ski_log")" != "$ski_logged" ]; then
			ski_fail "nothing to inject; the stages logged" with-log
		fi
		;;
	*) ski_fail "unexpected output" ;;
	esac
}

# ski_observe records what the model loaded; for a repeated skill_load it
# prints the host's payload that puts a short note in place of the body.
ski_observe() {
	ski_out=$(ski-ledger observe --host "$SKI_HOST" --reply) || ski_fail "observe failed" with-log
	case $ski_out in
	'{'*'}') printf '%s\n' "$ski_out" ;;
	esac
}

ski_session_start() {
	ski_payload=$(cat) || ski_fail "cannot read stdin"
	# Keep the log from growing without bound.
	ski_trim_log
	# The embed server loads the model in the background (detached, with
	# none of the hook's descriptors) while the index is checked; it
	# starts none with SKI_EMBED_SERVER=0.
	ski-embed --serve --detach --host "$SKI_HOST" </dev/null >/dev/null 3>&- || :
	printf '%s\n' "$ski_payload" | ski-ledger rearm >/dev/null || ski_fail "rearm failed" with-log
	# The index is checked (a walk and a stat per skill, its checksums) in
	# the background and, when it is missing, stale or damaged, built by a
	# detached builder at idle priority: neither is on the hook's clock.
	printf '%s\n' "$ski_payload" | ski-embed --refresh --background --host "$SKI_HOST" >/dev/null 3>&- &
	# What Claude Code's skill listing shows of each skill (it has a
	# budget) is worked out in the background too, and kept in the
	# session's ledger for the prompts.
	if [ "$SKI_HOST" = claude ]; then
		printf '%s\n' "$ski_payload" | ski-ledger listing --host claude >/dev/null 3>&- &
	fi
}

ski_main() {
	command -v ski-rank >/dev/null 2>&1 || ski_fail "ski binaries not found (run the README set-up)"
	case $ski_mode in
	prompt) ski_prompt ;;
	observe) ski_observe ;;
	session-start) ski_session_start ;;
	# ski-mcp, for a plugin that serves ski's tools itself (opencode's):
	# the same binaries as the hooks, its messages in the hook log.
	mcp) exec ski-mcp --host "$SKI_HOST" 3>&- ;;
	*) ski_fail "usage: hook-$SKI_HOST.sh prompt|observe|session-start|mcp" ;;
	esac
	exit 0
}
