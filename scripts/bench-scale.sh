#!/usr/bin/env bash
# bench-scale.sh — ski at catalog sizes: the real corpus (~200 skills) and
# deterministic synthetic catalogs of 1,000 and 10,000 skills (ski-synth,
# learnt from the corpus), each measured by bench-hook.sh with one timed
# index build: build time and peak RSS, index size, the no-change check,
# ski-rank, cold, warm and warm-while-building hook latency, embed server
# RSS. Takes ~15 minutes on two cores, most of it the 10,000-skill builds.
#   scripts/bench-scale.sh [SIZE ...]      # default: 200 1000 10000
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
corpus=$(cd ../shared/skills-corpus && pwd)
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(200 1000 10000)
go build -o bin/ ./cmd/...
cats=${SKI_BENCH_CATALOGS:-${XDG_CACHE_HOME:-$HOME/.cache}/ski-bench}
for n in "${sizes[@]}"; do
	root=$corpus
	if [ "$n" != 200 ]; then
		root=$cats/synth-$n
		[ -d "$root" ] || bin/ski-synth --from "$corpus" --count "$n" --out "$root"
	fi
	echo "=== $n skills ($root)"
	SKI_BENCH_BUILDS=1 scripts/bench-hook.sh "$root"
done
