#!/usr/bin/env bash
# bench-embed.sh — what embedding costs: index build time for a skills root
# (default ../shared/skills-corpus), the per-query latency of ski-embed
# --query in a new process (cold: runtime, tokenizer and session loaded every
# time), and in-process per-query latency (Go benchmark). Needs scripts/setup.sh.
#   scripts/bench-embed.sh [ROOT] [MODEL]
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
root=${1:-../shared/skills-corpus}
model=${2:-bge-small-en-v1.5-q}
runs=${SKI_BENCH_RUNS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config

ms() { python3 -c "import sys; xs=sorted(float(x) for x in sys.stdin.read().split()); n=len(xs); print('p50 %.1f ms  p95 %.1f ms  min %.1f ms  (n=%d)' % (xs[n//2], xs[min(n-1,int(n*0.95))], xs[0], n))"; }
now() { date +%s.%N; }

bin/ski-scan --root "$root" >"$tmp/skills.ndjson"
n=$(grep -c '"kind":"skill"' "$tmp/skills.ndjson")
t0=$(now)
bin/ski-embed --model "$model" --index "$tmp/index.skv" <"$tmp/skills.ndjson" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
t1=$(now)
echo "index build ($model, $n skills from $root): $(python3 -c "print('%.2f s' % ($t1-$t0))")"
t0=$(now)
bin/ski-embed --model "$model" --index "$tmp/index.skv" <"$tmp/skills.ndjson" >/dev/null 2>&1
t1=$(now)
echo "index rebuild, nothing changed: $(python3 -c "print('%.0f ms' % (($t1-$t0)*1000))")"

event='{"prompt":"the helm chart fails to lint because of a missing values key"}'
for i in $(seq "$runs"); do
	t0=$(now)
	printf '%s\n' "$event" | bin/ski-embed --query --index "$tmp/index.skv" >/dev/null
	t1=$(now)
	python3 -c "print(($t1-$t0)*1000)"
done | { printf 'query, new process (cold): '; ms; }
echo "query, in process:"
SKI_REQUIRE_MODEL=1 go test -run '^$' -bench 'BenchmarkQuery|BenchmarkOpen' -benchtime 50x ./internal/onnx/ | grep -E '^Benchmark'
