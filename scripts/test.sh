#!/usr/bin/env bash
# test.sh — run every check and test: what CI runs (.ci/run calls this).
#
# The set-up writes into the invoking user's set-up cache and
# $XDG_DATA_HOME/ski (and Go's own caches); everything after it runs in a
# home of its own, and the run ends by checking that nothing else under the
# invoking HOME changed.
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
repo=$PWD
export SKI_SHARED=${SKI_SHARED:-$(cd .. && pwd)/shared}

# What the set-up installs for the invoking user, and Go's settings and
# caches, stay where they are when HOME moves.
export SKI_SETUP_CACHE=${SKI_SETUP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ski-setup}
data=${XDG_DATA_HOME:-$HOME/.local/share}/ski
export SKI_MODEL_DIR=${SKI_MODEL_DIR:-$data/models}
export ONNXRUNTIME_SHARED_LIBRARY_PATH=${ONNXRUNTIME_SHARED_LIBRARY_PATH:-$data/runtime/libonnxruntime.so.1}
GOENV=$(go env GOENV) GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOPATH=$(go env GOPATH)
export GOENV GOCACHE GOMODCACHE GOPATH
export STATICCHECK_CACHE=$SKI_SETUP_CACHE/staticcheck
go_telemetry=${XDG_CONFIG_HOME:-$HOME/.config}/go/telemetry

# home_state lists what is under the invoking HOME (type, size and time of
# each file) but for the places a run may write: the set-up cache, ski's
# data folder, Go's caches and telemetry, this checkout and the shared
# folder beside it, and the folders on the way to them.
invoking_home=$HOME
home_state() {
	local p a places=("$SKI_SETUP_CACHE" "$data" "$GOCACHE" "$GOMODCACHE" "$go_telemetry" "$repo" "$SKI_SHARED") prune=()
	for p in "${places[@]}"; do prune+=(-o -path "$p"); done
	for p in "${places[@]}"; do
		for ((a = ${#p}; a > 0; a--)); do
			if [ "${p:a-1:1}" = / ] && [[ "${p:0:a-1}" == "$invoking_home"/* ]]; then
				printf 'd %s\n' "${p:${#invoking_home}+1:a-${#invoking_home}-2}"
			fi
		done
		if [[ "$p" == "$invoking_home"/* ]]; then printf 'd %s\n' "${p:${#invoking_home}+1}"; fi
	done | sort -u >"$run_home/.keep"
	find "$invoking_home" -xdev \( -false "${prune[@]}" \) -prune -o \
		\( -type d -printf 'd %P\n' \) -o -printf '%y %s %T@ %P\n' 2>/dev/null |
		grep -vxF -f "$run_home/.keep" | sort
}
run_home=$(mktemp -d)
trap 'chmod -R u+w "$run_home" 2>/dev/null; rm -rf "$run_home"' EXIT
home_state >"$run_home/before"

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

# From here on, a home of the run's own.
export HOME=$run_home/home XDG_CONFIG_HOME=$run_home/home/.config XDG_CACHE_HOME=$run_home/home/.cache \
	XDG_DATA_HOME=$run_home/home/.local/share XDG_STATE_HOME=$run_home/home/.local/state
unset XDG_RUNTIME_DIR
mkdir -p "$HOME"
if [ "$(id -u)" != 0 ]; then
	echo "test.sh: as uid $(id -u), the tests that need a second user (the other end of a socket, a file given to someone else) skip and say so; run as root to include them" >&2
fi

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

echo "== the invoking HOME is as it was" >&2
if ! changed=$(diff "$run_home/before" <(home_state)); then
	echo "test.sh: the run changed $invoking_home outside the set-up cache and $data:" >&2
	printf '%s\n' "$changed" | head -n 40 >&2
	exit 1
fi
