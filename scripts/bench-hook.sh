#!/usr/bin/env bash
# bench-hook.sh — what the prompt hook costs, end to end: scripts/hook-claude.sh
# prompt on realistic payloads (testdata/payloads/claude-prompt.json with the
# prompts of testdata/bench/prompts.txt, one new session each) against a
# skills root (default ../shared/skills-corpus), in isolated XDG directories.
# Prints p50/p95/p99 latency and peak RSS for:
#   cold     nothing running, index built (the model is loaded in process)
#   warm     the embed server is running (ski-embed --serve)
#   reader   warm, the reader off and on in turn on dev.tsv's prompts
#            (scripts/bench-reader.py): each side's latency, the share of
#            prompts the reader read and its time, the server's peak RSS
#   lexical  no model installed: the lexical fallback
#   building warm, while a background builder builds the index from
#            nothing (prompts answered from the lexical index meanwhile)
# and the index build by hand (ski-embed --refresh; its peak RSS and the
# index's size), the no-change check the session-start hook runs
# (ski-embed --refresh --background), and ski-rank on one query, reading
# the index itself and with the warm server running (which ranks against
# an index of ~4,000 skills or more). Needs
# scripts/setup.sh and hyperfine (installed with apt-get when missing and
# run as root). SKI_BENCH_RUNS prompts per measurement (30), SKI_BENCH_BUILDS
# timed index builds (3).
#   scripts/bench-hook.sh [ROOT]
# With --reader first, only the reader's measurement (the index built once
# by hand, the server started as hosts start it, then the reader off and
# on), with the server's peak RSS: no hyperfine needed.
#   scripts/bench-hook.sh --reader [ROOT]
set -euo pipefail
# --stop DIR (internal): stop the embed server of a benchmark directory,
# then the background builders it or a hook started (their progress files
# name them), so that the directory can be removed.
if [ "${1:-}" = --stop ]; then
	pid=$(cat "$2"/run/ski/*.lock 2>/dev/null || true)
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
	while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
	for f in "$2"/cache/ski/index/*.progress; do
		[ -f "$f" ] || continue
		pid=$(grep -o '"pid":[0-9]*' "$f" | cut -d: -f2)
		kill "$pid" 2>/dev/null || true
		while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
	done
	exit 0
fi
reader_only=
if [ "${1:-}" = --reader ]; then
	reader_only=1
	shift
fi
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
repo=$PWD
root=$(cd "${1:-../shared/skills-corpus}" && pwd)
runs=${SKI_BENCH_RUNS:-30}

if [ -z "$reader_only" ] && ! command -v hyperfine >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y hyperfine >/dev/null
	else
		echo "bench-hook.sh: needs hyperfine (apt-get install hyperfine)" >&2
		exit 1
	fi
fi
go build -o bin/ ./cmd/...

tmp=$(mktemp -d)
server_pid() { cat "$tmp"/run/ski/*.lock 2>/dev/null || true; }
stop_server() { "$repo/scripts/bench-hook.sh" --stop "$tmp"; }
trap 'stop_server; rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/run"
# The installed model and runtime stay where scripts/setup.sh put them.
export XDG_DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
export HOME=$tmp/home XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state \
	XDG_CONFIG_HOME=$tmp/config XDG_RUNTIME_DIR=$tmp/run SKI_ROOTS=$root
mkdir -p "$HOME"
start="$repo/testdata/payloads/claude-session-startup.json"

# start_server: the embed server, started by the session-start hook as a
# host starts it (with the hook's environment, GOMAXPROCS=1 included).
start_server() {
	sh "$repo/scripts/hook-claude.sh" session-start <"$start" >/dev/null
	for _ in $(seq 500); do [ -S "$(ls "$tmp"/run/ski/*.sock 2>/dev/null | head -1)" ] && break; sleep 0.01; done
}
# reader: with the warm server, the prompts of dev.tsv (its skills are the
# shared corpus's) with the reader off and on in turn, one new session
# each, timed pair by pair (scripts/bench-reader.py); the server's counts
# say how many it read; then the server's peak RSS.
reader() {
	"$repo/scripts/bench-reader.py" --hook "$repo/scripts/hook-claude.sh" --ski bin/ski \
		--payload "$repo/testdata/payloads/claude-prompt.json" --prompts "$repo/../shared/eval/dev.tsv" \
		--config "$XDG_CONFIG_HOME/ski/config.toml" --pairs "${SKI_BENCH_READER_PAIRS:-0}"
	local pid
	pid=$(server_pid)
	echo "embed server: peak RSS $(awk '/VmHWM/ {printf "%.1f MB", $2/1024}' /proc/"$pid"/status), now $(awk '/VmRSS/ {printf "%.1f MB", $2/1024}' /proc/"$pid"/status)"
	rm -f "$XDG_CONFIG_HOME/ski/config.toml"
}
if [ -n "$reader_only" ]; then
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "reader benchmark: $(bin/ski-scan | grep -c '"kind":"skill"') skills from $root, $(nproc) cores"
	SKI_EMBED_SERVER=0 bin/ski-embed --refresh <"$start" >/dev/null
	start_server
	reader
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi

# Payloads: each prompt once per round, a new session each time, so the
# ledger never makes a run trivially silent.
python3 - "$repo/testdata/payloads/claude-prompt.json" "$repo/testdata/bench/prompts.txt" "$tmp/payloads" "$runs" <<'PY'
import json, os, sys, uuid
base = json.load(open(sys.argv[1]))
prompts = [l.strip() for l in open(sys.argv[2]) if l.strip()]
os.makedirs(sys.argv[3])
for i in range(int(sys.argv[4])):
    p = dict(base, prompt=prompts[i % len(prompts)], session_id=str(uuid.uuid4()), prompt_id=str(uuid.uuid4()))
    json.dump(p, open(os.path.join(sys.argv[3], "%d.json" % i), "w"))
PY
# next: copy the next payload to cur.json (a hyperfine --prepare step).
cat >"$tmp/next" <<SH
#!/bin/sh
n=\$(cat "$tmp/n" 2>/dev/null || echo 0)
cp "$tmp/payloads/\$((n % $runs)).json" "$tmp/cur.json"
echo \$((n + 1)) >"$tmp/n"
SH
chmod +x "$tmp/next"
# As the installed hooks run it (ski-install, hooks/hooks.json).
hook="sh $repo/scripts/hook-claude.sh prompt <$tmp/cur.json >/dev/null"

# stats NAME JSON: p50 and p95 of hyperfine's times.
stats() {
	python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))["results"][0]
t = sorted(x * 1000 for x in r["times"])
n = len(t)
print("%-26s p50 %7.1f ms  p95 %7.1f ms  p99 %7.1f ms  cpu %6.1f ms  (n=%d)" % (sys.argv[1], t[n // 2], t[min(n - 1, int(n * 0.95))], t[min(n - 1, int(n * 0.99))], (r["user"] + r["system"]) * 1000, n), end="")
PY
}
# rss CMD: peak RSS of the largest process CMD waits for, over 10 runs.
rss() {
	local max=0 kb i
	for i in $(seq 10); do
		"$tmp/next"
		kb=$( { /usr/bin/time -f %M sh -c "$1" >/dev/null; } 2>&1 | tail -n 1)
		[ "$kb" -gt "$max" ] && max=$kb
	done
	printf '  peak RSS %5.1f MB\n' "$(echo "$max" | awk '{print $1/1024}')"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (cpu = user+system time of the hook and its stages, less sensitive to a busy machine)"
echo "ski hook benchmark: $(grep -c . testdata/bench/prompts.txt) prompts, $(bin/ski-scan | grep -c '"kind":"skill"') skills from $root, $(nproc) cores"

# Index build: by hand, in process, from nothing (no embedding cache; the
# optimised-model cache included).
SKI_EMBED_SERVER=0 hyperfine --style none --export-json "$tmp/h.json" --runs "${SKI_BENCH_BUILDS:-3}" \
	--prepare "rm -rf $XDG_CACHE_HOME/ski" "bin/ski-embed --refresh <$start" >/dev/null
stats "index build (by hand)" "$tmp/h.json"
rm -rf "$XDG_CACHE_HOME/ski"
kb=$( { SKI_EMBED_SERVER=0 /usr/bin/time -f %M bin/ski-embed --refresh <"$start" >"$tmp/index.json"; } 2>&1 | tail -n 1)
index=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["path"])' "$tmp/index.json")
printf '  peak RSS %5.1f MB  index %.1f MB\n' "$(echo "$kb" | awk '{print $1/1024}')" "$(stat -c %s "$index" | awk '{print $1/1e6}')"
hyperfine --style none --export-json "$tmp/h.json" --warmup 3 --runs "$runs" "bin/ski-embed --refresh --background <$start" >/dev/null
stats "no-change check" "$tmp/h.json"; echo
# ski-rank alone, on a query record of the first prompt, reading the
# index itself (no server runs yet; below, with the warm server, which
# ranks against indexes of rank.RemoteFrom bytes or more).
"$tmp/next"
SKI_EMBED_SERVER=0 bin/ski-embed --query <"$tmp/cur.json" >"$tmp/query.json"
hyperfine --style none --export-json "$tmp/h.json" --warmup 3 --runs "$runs" "GOMAXPROCS=1 bin/ski-rank <$tmp/query.json" >/dev/null
stats "ski-rank (in process)" "$tmp/h.json"; echo

# Cold: no server, index built; the hook starts a server for next time,
# which is stopped before each run.
echo 0 >"$tmp/n"
hyperfine --style none --export-json "$tmp/h.json" --runs "$runs" --prepare "$tmp/next; $repo/scripts/bench-hook.sh --stop $tmp" "$hook" >/dev/null
stats "cold (no server)" "$tmp/h.json"
rss "$repo/scripts/bench-hook.sh --stop $tmp; $hook"

# Warm: the server started by the session-start hook, as a host starts it.
stop_server
start_server
echo 0 >"$tmp/n"
hyperfine --style none --export-json "$tmp/h.json" --warmup 3 --runs "$runs" --prepare "$tmp/next" "$hook" >/dev/null
stats "warm (server running)" "$tmp/h.json"
rss "$hook"
hyperfine --style none --export-json "$tmp/h.json" --warmup 3 --runs "$runs" "GOMAXPROCS=1 bin/ski-rank <$tmp/query.json" >/dev/null
stats "ski-rank (server running)" "$tmp/h.json"; echo
reader

stop_server

# Lexical fallback: no model installed.
export SKI_MODEL_DIR=$tmp/no-model
bin/ski-embed --refresh <"$start" >/dev/null 2>&1
echo 0 >"$tmp/n"
hyperfine --style none --export-json "$tmp/h.json" --warmup 3 --runs "$runs" --prepare "$tmp/next" "$hook" >/dev/null
stats "lexical fallback" "$tmp/h.json"
rss "$hook"
unset SKI_MODEL_DIR
# Warm while a background builder builds the index from nothing, as after
# a new install or a model change: prompts are answered from the lexical
# index until the model's is ready.
rm -rf "$XDG_CACHE_HOME/ski"
sh "$repo/scripts/hook-claude.sh" session-start <"$start" >/dev/null
for _ in $(seq 500); do ls "$XDG_CACHE_HOME"/ski/index/*.progress >/dev/null 2>&1 && break; sleep 0.01; done
echo 0 >"$tmp/n"
hyperfine --style none --export-json "$tmp/h.json" --warmup 3 --runs "$runs" --prepare "$tmp/next" "$hook" >/dev/null
stats "warm, building" "$tmp/h.json"
if ls "$XDG_CACHE_HOME"/ski/index/*.progress >/dev/null 2>&1; then echo "  (builder still running)"; else echo "  (build finished during the runs)"; fi
stop_server

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
