#!/bin/sh
# hook-claude.sh prompt|observe|session-start — ski's Claude Code hooks.
#   prompt         UserPromptSubmit: prints {"hookSpecificOutput":...} or nothing
#   observe        PostToolUse (Read|Skill): records skills the model loaded
#   session-start  SessionStart: starts a background index build when needed; re-arms on compact
# (hook-claude.sh MODE plugin: the plugin's hooks, see below)
# Reads the hook payload on stdin. Fail-open: any failure prints nothing and
# exits 0; SKI_DEBUG=1 prints a one-line reason on stderr.
# A second argument "plugin" marks the Claude Code plugin's copy of the
# hooks: it stands down when scripts/install.sh put ski's hooks in
# settings.json too (ski-install leaves a marker), so each hook runs once.
if [ "${2:-}" = plugin ]; then
	case ${XDG_DATA_HOME:-} in /*) ski_marker=$XDG_DATA_HOME ;; *) ski_marker=${HOME:-/nonexistent}/.local/share ;; esac
	[ -f "$ski_marker/ski/claude-hooks-installed" ] && exit 0
fi
SKI_HOST=claude
case $0 in */*) . "${0%/*}/hook-lib.sh" || exit 0 ;; *) . ./hook-lib.sh || exit 0 ;; esac
ski_main
