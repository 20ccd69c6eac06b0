#!/usr/bin/env bash
# demo.sh — set up ski and run its main job on the demo skills in testdata,
# as a user meets it on a fresh machine: build into bin/, build the
# project's automatic index of testdata/skills (what scripts/install.sh
# does for your skills), rank a sample prompt, and print the payload the
# Claude Code hook prints. State stays under .cache/demo, emptied first, so
# every run is a first run.
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
scripts/setup.sh

demo=$PWD/.cache/demo
rm -rf "$demo"
export XDG_STATE_HOME=$demo/state XDG_CACHE_HOME=$demo/cache XDG_CONFIG_HOME=$demo/config
export SKI_ROOTS=$PWD/testdata/skills
export SKI_EMBED_SERVER=0 # no background embed server for a one-off demo
prompt=${1:-"write a blameless postmortem for yesterday's 40 minute checkout outage, the timeline is in incident-notes.md"}
event=$(printf '{"session_id":"demo-%s","cwd":"%s","prompt":"%s"}' "$$" "$PWD" "$prompt")

echo "== index: bin/ski-embed --refresh (the automatic index of this project and testdata/skills)"
printf '{"cwd":"%s"}\n' "$PWD" | bin/ski-embed --refresh

echo "== rank and gate: $prompt"
printf '%s\n' "$event" | bin/ski-embed --query | bin/ski-rank --top 5 | bin/ski-select --all --no-ledger --table

echo "== Claude payload: scripts/hook-claude.sh prompt"
payload=$(printf '%s\n' "$event" | SKI_DEBUG=1 scripts/hook-claude.sh prompt)
if [ -z "$payload" ]; then
	echo "demo: the hook printed no payload for this prompt" >&2
	exit 1
fi
printf '%s\n' "$payload"
