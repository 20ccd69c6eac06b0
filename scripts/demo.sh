#!/usr/bin/env bash
# demo.sh — set up ski and run its main job on the demo skills in testdata:
# build into bin/, index testdata/skills, rank a sample prompt, and print the
# payload the Claude Code hook would print. State stays under .cache/demo.
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
scripts/setup.sh

demo=$PWD/.cache/demo
export XDG_STATE_HOME=$demo/state XDG_CACHE_HOME=$demo/cache XDG_CONFIG_HOME=$demo/config
export SKI_ROOTS=$PWD/testdata/skills
export SKI_EMBED_SERVER=0 # no background embed server for a one-off demo
prompt=${1:-"write a blameless postmortem for yesterday's 40 minute checkout outage, the timeline is in incident-notes.md"}
event=$(printf '{"session_id":"demo-%s","cwd":"%s","prompt":"%s"}' "$$" "$PWD" "$prompt")

echo "== index: bin/ski-scan --root testdata/skills | bin/ski-embed --index $demo/skills.skv"
bin/ski-scan --root testdata/skills | bin/ski-embed --index "$demo/skills.skv"

echo "== rank and gate: $prompt"
printf '%s\n' "$event" | bin/ski-embed --query --index "$demo/skills.skv" |
	bin/ski-rank --top 5 | bin/ski-select --all --no-ledger --table

echo "== Claude payload: scripts/hook-claude.sh prompt"
printf '%s\n' "$event" | SKI_DEBUG=1 scripts/hook-claude.sh prompt
