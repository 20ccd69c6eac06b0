#!/usr/bin/env bash
# bench-reader.sh [ROOT] — what the reader costs the warm prompt hook, and
# the embed server's memory with it, on a skills root (default
# ../shared/skills-corpus; a ski-synth catalog for 10,000 skills), in
# throw-away XDG directories: the index built once by hand, the server
# started by the session-start hook as hosts start it, then
# scripts/bench-reader.py (dev.tsv's prompts, the reader off and on in
# turn, pair by pair). SKI_BENCH_READER_PAIRS pairs (default: all 285 prompts). Needs
# scripts/setup.sh (the reader included). scripts/bench-hook.sh runs the
# same measurement among its others.
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
repo=$PWD
root=$(cd "${1:-../shared/skills-corpus}" && pwd)
go build -o bin/ ./cmd/...
tmp=$(mktemp -d)
trap '"$repo/scripts/bench-hook.sh" --stop "$tmp"; rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/run"
export XDG_DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
export HOME=$tmp/home XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state \
	XDG_CONFIG_HOME=$tmp/config XDG_RUNTIME_DIR=$tmp/run SKI_ROOTS=$root
mkdir -p "$HOME"
start="$repo/testdata/payloads/claude-session-startup.json"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "reader benchmark: $(bin/ski-scan | grep -c '"kind":"skill"') skills from $root, $(nproc) cores"
SKI_EMBED_SERVER=0 bin/ski-embed --refresh <"$start" >/dev/null
sh "$repo/scripts/hook-claude.sh" session-start <"$start" >/dev/null
for _ in $(seq 500); do [ -S "$(ls "$tmp"/run/ski/*.sock 2>/dev/null | head -1)" ] && break; sleep 0.01; done
"$repo/scripts/bench-reader.py" --hook "$repo/scripts/hook-claude.sh" --ski bin/ski \
	--payload "$repo/testdata/payloads/claude-prompt.json" --prompts "$repo/../shared/eval/dev.tsv" \
	--config "$XDG_CONFIG_HOME/ski/config.toml" --pairs "${SKI_BENCH_READER_PAIRS:-0}"
pid=$(cat "$tmp"/run/ski/*.lock)
echo "embed server: peak RSS $(awk '/VmHWM/ {printf "%.1f MB", $2/1024}' /proc/"$pid"/status), now $(awk '/VmRSS/ {printf "%.1f MB", $2/1024}' /proc/"$pid"/status)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
