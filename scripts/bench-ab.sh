#!/usr/bin/env bash
# bench-ab.sh A B [PAIRS] — compares the warm prompt hook of two checkouts
# (each with its binaries built in its bin/, e.g. a `git worktree` of
# another commit) in interleaved pairs, which a machine whose speed drifts
# by several milliseconds from run to run needs. Each checkout runs its own
# embed server (started by its session-start hook, as hosts do) in
# throw-away XDG directories, and the two hooks take turns on fresh prompts
# (testdata/bench/prompts.txt, each pair the same prompt, each run a new
# session), the order swapped every pair, once both have built their
# index. Prints each side's p50 and the
# median and mean of the paired differences B - A, in ms, timed from the
# shell that starts the hook. Two copies of the same code differ by up to
# ~0.3 ms over 100 pairs and ~0.7 ms over 30: use 120 or more.
#   scripts/bench-ab.sh ../ski-old . 150
# A side's hook runs with sh, or with $SHELL_A / $SHELL_B (bash for
# checkouts older than the sh hooks); the skills are $SKI_BENCH_ROOT, else
# ../shared/skills-corpus.
set -euo pipefail
if [ $# -lt 2 ]; then
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
repo=$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
a=$(cd "$1" && pwd)
b=$(cd "$2" && pwd)
pairs=${3:-100}
root=$(cd "${SKI_BENCH_ROOT:-$repo/../shared/skills-corpus}" && pwd)
for side in "$a" "$b"; do
	if [ ! -x "$side/bin/ski-rank" ]; then
		echo "bench-ab.sh: $side/bin has no ski binaries (go build -o bin/ ./cmd/...)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d)
# Each side's servers run in $tmp/SIDE/run, where bench-hook.sh --stop
# finds them.
trap '"$repo/scripts/bench-hook.sh" --stop "$tmp/a"; "$repo/scripts/bench-hook.sh" --stop "$tmp/b"; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/a" "$tmp/b" "$tmp/home"
mkdir -m 700 "$tmp/a/run" "$tmp/b/run"
# The installed model and runtime stay where scripts/setup.sh put them.
export XDG_DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
export HOME=$tmp/home XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config SKI_ROOTS=$root

python3 - "$repo/testdata/payloads/claude-prompt.json" "$repo/testdata/bench/prompts.txt" "$tmp/payloads" "$((2 * pairs + 12))" <<'PY'
import json, os, sys, uuid
base = json.load(open(sys.argv[1]))
prompts = [l.strip() for l in open(sys.argv[2]) if l.strip()]
os.makedirs(sys.argv[3])
for i in range(int(sys.argv[4])):
    p = dict(base, prompt=prompts[(i // 2) % len(prompts)], session_id=str(uuid.uuid4()))
    json.dump(p, open(os.path.join(sys.argv[3], "%d.json" % i), "w"))
PY

# hook SIDE MODE < payload: side a or b's hook, in its own run and cache
# dirs.
hook() {
	local dir=$a sh=${SHELL_A:-sh}
	if [ "$1" = b ]; then dir=$b sh=${SHELL_B:-sh}; fi
	XDG_RUNTIME_DIR=$tmp/$1/run XDG_CACHE_HOME=$tmp/$1/cache SKI_BIN=$dir/bin "$sh" "$dir/scripts/hook-claude.sh" "$2" >/dev/null
}
# Each side's index is built before the runs (until it is, prompts are
# answered from the lexical index, which is not what is compared): a's by
# hand, b's from a copy of a's cache, whose embeddings it reuses (and the
# index itself, when both sides read the same format).
start=$repo/testdata/payloads/claude-session-startup.json
XDG_CACHE_HOME=$tmp/a/cache SKI_EMBED_SERVER=0 "$a/bin/ski-embed" --refresh <"$start" >/dev/null
cp -r "$tmp/a/cache" "$tmp/b/cache"
XDG_CACHE_HOME=$tmp/b/cache SKI_EMBED_SERVER=0 "$b/bin/ski-embed" --refresh <"$start" >/dev/null
for side in a b; do
	hook "$side" session-start <"$repo/testdata/payloads/claude-session-startup.json"
	for _ in $(seq 500); do
		compgen -G "$tmp/$side/run/ski/*.sock" >/dev/null && break
		sleep 0.01
	done
done
# time SIDE N: run side's hook on payload N, appending its wall ms.
time_hook() {
	local s e
	s=$EPOCHREALTIME
	hook "$1" prompt <"$tmp/payloads/$2.json"
	e=$EPOCHREALTIME
	echo "$s $e" >>"$tmp/times-$1"
}
n=0
for _ in 1 2 3 4 5 6; do # warm-up
	hook a prompt <"$tmp/payloads/$n.json"
	hook b prompt <"$tmp/payloads/$((n + 1)).json"
	n=$((n + 2))
done
: >"$tmp/times-a"
: >"$tmp/times-b"
for i in $(seq "$pairs"); do
	if ((i % 2)); then
		time_hook a "$n"
		time_hook b "$((n + 1))"
	else
		time_hook b "$((n + 1))"
		time_hook a "$n"
	fi
	n=$((n + 2))
done
python3 - "$tmp/times-a" "$tmp/times-b" <<'PY'
import statistics, sys
ms = lambda f: [(float(e) - float(s)) * 1000 for s, e in (l.split() for l in open(f))]
a, b = ms(sys.argv[1]), ms(sys.argv[2])
d = [y - x for x, y in zip(a, b)]
print("A p50 %.2f ms  B p50 %.2f ms  B - A: median %.2f ms, mean %.2f ms (%d pairs)"
      % (statistics.median(a), statistics.median(b), statistics.median(d), statistics.mean(d), len(d)))
PY
