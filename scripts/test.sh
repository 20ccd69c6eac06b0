#!/usr/bin/env bash
# test.sh — run every check and test: what CI runs (.ci/run calls this).
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
export SKI_SHARED=${SKI_SHARED:-$(cd .. && pwd)/shared}

scripts/setup.sh
# The real-model tests must run, never skip: the set-up installed the model
# and runtime, test-tools.sh the Python reference pipeline.
SKI_PYTHON=$(scripts/test-tools.sh)
export SKI_PYTHON SKI_REQUIRE_MODEL=1
# The real host CLIs (Claude Code, opencode) for the end-to-end host tests,
# which must run, never skip, here.
host_env=$(scripts/host-tools.sh)
eval "$host_env"
export SKI_CLAUDE SKI_OPENCODE SKI_OPENCODE_PLUGIN SKI_RG SKI_REQUIRE_HOSTS=1

echo "== gofmt" >&2
unformatted=$(gofmt -l cmd internal e2e 2>/dev/null || true)
if [ -n "$unformatted" ]; then
	echo "gofmt: these files need formatting:" >&2
	echo "$unformatted" >&2
	exit 1
fi

echo "== go vet" >&2
go vet ./...

echo "== staticcheck" >&2
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

echo "== go test" >&2
# The end-to-end tests drive the real host CLIs, a few seconds a run: on a
# busy two-core machine the package takes more than go test's default 10
# minutes.
go test -count=1 -timeout 40m ./...

# Each fuzz target for a fixed number of inputs (SKI_FUZZTIME, default
# 150000x). A count, not a duration: with a duration, Go 1.26's fuzz
# coordinator can report "context deadline exceeded" as a failure when the
# time runs out while a worker is busy (go.dev/issue/75804). An input that
# fails is written to the package's testdata/fuzz/<target>/, where it stays
# as a regression input that every go test run replays.
echo "== fuzz" >&2
for target in internal/skill:FuzzParse internal/event:FuzzParse internal/vecfile:FuzzDecode internal/ledger:FuzzDecode; do
	go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime "${SKI_FUZZTIME:-150000x}" "./${target%%:*}/"
done

# Quality: dev.tsv's out-of-fold numbers with the default model may not
# fall more than 2 points below the floor line in docs/quality.md.
echo "== quality (dev.tsv, out of fold)" >&2
bin/ski-eval --tsv "$SKI_SHARED/eval/dev.tsv" --root "$SKI_SHARED/skills-corpus" --folds 5 --floor docs/quality.md >/dev/null
