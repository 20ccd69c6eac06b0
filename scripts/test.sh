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
go test -count=1 ./...
