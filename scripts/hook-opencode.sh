#!/bin/sh
# hook-opencode.sh prompt|observe|session-start|mcp — ski for the opencode plugin.
#   prompt         reads {"session_id","cwd","prompt"}; prints {"skills":[...],"inject":"..."} or nothing
#   observe        reads {"session_id","tool","args","output"?} from tool.execute.after; for a
#                  repeated skill_load prints {"output":"<short note>"}
#   session-start  reads {"session_id","source"}; starts a background index build when needed, re-arms on "compact"
#   mcp            runs ski-mcp --host opencode (skill_search, skill_load) on stdin and stdout
# Fail-open: any failure prints nothing and exits 0; SKI_DEBUG=1 prints a
# one-line reason on stderr.
SKI_HOST=opencode
case $0 in */*) . "${0%/*}/hook-lib.sh" || exit 0 ;; *) . ./hook-lib.sh || exit 0 ;; esac
ski_main
