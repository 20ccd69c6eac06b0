#!/bin/sh
# hook-opencode.sh prompt|observe|session-start — ski for the opencode plugin.
#   prompt         reads {"session_id","cwd","prompt"}; prints {"skills":[...],"inject":"..."} or nothing
#   observe        reads {"session_id","tool","args"} from tool.execute.after
#   session-start  reads {"session_id","source"}; starts a background index build when needed, re-arms on "compact"
# Fail-open: any failure prints nothing and exits 0; SKI_DEBUG=1 prints a
# one-line reason on stderr.
SKI_HOST=opencode
case $0 in */*) . "${0%/*}/hook-lib.sh" || exit 0 ;; *) . ./hook-lib.sh || exit 0 ;; esac
ski_main
