#!/bin/sh
# Print what a bug report about a uv project needs.
set -eu
uv --version
uv run python --version
if uv lock --check >/dev/null 2>&1; then
	echo "uv.lock: up to date"
else
	echo "uv.lock: out of date (run uv lock)"
fi
