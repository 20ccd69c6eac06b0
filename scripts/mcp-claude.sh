#!/bin/sh
# mcp-claude.sh — starts ski-mcp for the Claude Code plugin (hooks/mcp.json):
# the one scripts/setup.sh built into the plugin's bin/, else the one on
# PATH, as the plugin's server (--plugin: it offers no tools while
# scripts/install.sh registered ski's own in ~/.claude.json).
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
if [ -x "$here/../bin/ski-mcp" ]; then
	exec "$here/../bin/ski-mcp" --plugin
fi
exec ski-mcp --plugin
