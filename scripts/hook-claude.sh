#!/bin/sh
# hook-claude.sh prompt|observe|session-start — ski's Claude Code hooks.
#   prompt         UserPromptSubmit: prints {"hookSpecificOutput":...} or nothing
#   observe        PostToolUse (Read|Skill): records skills the model loaded
#   session-start  SessionStart: starts a background index build when needed; re-arms on compact
# Reads the hook payload on stdin. Fail-open: any failure prints nothing and
# exits 0; SKI_DEBUG=1 prints a one-line reason on stderr.
SKI_HOST=claude
case $0 in */*) . "${0%/*}/hook-lib.sh" || exit 0 ;; *) . ./hook-lib.sh || exit 0 ;; esac
ski_main
