/*
Ski-ledger keeps ski's per-session ledgers: which skills are already in a
session's context, whether ski injected them, the model loaded them on its
own or the user invoked them, so that ski never puts the same skill in
front of the model twice in one session.

Usage:

	ski-ledger record  [--state-dir DIR] [--max-line N]
	ski-ledger observe --host claude|opencode [--reply] [--verbose] [--state-dir DIR] [--max-line N]
	ski-ledger rearm   [--session ID] [--verbose] [--state-dir DIR] [--max-line N]
	ski-ledger listing --host claude|opencode [--verbose] [--state-dir DIR] [--max-line N]
	ski-ledger show    [--session ID] [--state-dir DIR]
	ski-ledger stats   [--table] [--state-dir DIR]
	ski-ledger gc      [--older-than 720h] [--verbose] [--state-dir DIR]

Run "ski-ledger SUBCOMMAND --help" for one subcommand.

# Ledgers

A session's ledger is $XDG_STATE_HOME/ski/sessions/KEY.json (by default
~/.local/state/ski/sessions; --state-dir DIR uses DIR/sessions). KEY is the
host's session id when that is 1 to 100 characters of A-Z a-z 0-9 . _ -
(and not "." or ".."), otherwise "h-" and the first 32 hex digits of the
id's SHA-256. A ledger holds:

	{"version":1,"session_id":"…",
	 "loaded":{"SKILL-ID":{"source":"ski|model|tool|user","at":"RFC 3339","count":N}},
	 "suggested":{"SKILL-ID":"RFC 3339"},
	 "listing":{"model":"…","budget":N,"states":{"SKILL-ID":"cut|bare|absent"}},
	 "events":[{"at":"…","event":"inject|suggest|load|host-load|rearm|search|found","id":"…","source":"…"}],
	 "updated":"RFC 3339"}

Source ski means ski injected the skill, model that the model loaded it
itself, tool that it did so with ski's skill_load, user that the user
invoked it with /name. A "search" event is a call of skill_search, followed
by a "found" event for each skill it returned. An entry keeps its latest
source and time; count says how often it was marked since the last rearm.
Suggested skills were named in ski's suggestion line: they are not in
context, and a suggested skill can still be injected later, once. The
events list (at most 500, oldest dropped first) keeps the history for
statistics. The listing, written at session start (see Listing), says how
the host lists the skills it does not show the model whole. Ledgers
written before suggestions had their own band, with
"recommended" and "recommend" events, are read as "suggested" and
"suggest".

Writers take an exclusive lock on KEY.lock, write a temporary file, fsync it
and rename it over KEY.json, so concurrent hooks never lose an update and
readers never see half a file; a lock still held after 5 seconds is an
error. Directories are created 0700, files 0600. A
ledger that cannot be used (not JSON, not a ledger, another version, another
session's) is renamed to KEY.json.corrupt-UNIXNANOS with a warning on
stderr, and the session starts empty.

# Record

	ski-ledger record [--state-dir DIR] [--max-line N]

Record reads ski-select records (kind "selection") on stdin and marks them
in their sessions' ledgers: decision "inject" as loaded by ski,
"host-loads" as loaded by the user, "suggest" as suggested; "drop" is
ignored. Every line needs a session_id.

Record reads the whole input and checks every line first, then updates each
session's ledger once, and only then copies its records to stdout
unchanged, one a line. If any line is malformed or an update fails it
writes nothing and exits 1, so a renderer downstream never shows the model
a skill the ledger does not know about.

ski-select decided from the ledger as it read it. Record looks again under
the session's lock: an "inject" of a skill another prompt of the session
put in context meanwhile, or a "suggest" of one it suggested, is
neither recorded nor passed on. However many prompts of a session race, a
skill is injected once.

# Observe

	ski-ledger observe --host claude|opencode [--reply] [--verbose] [--state-dir DIR] [--max-line N]

Observe reads host tool payloads on stdin, one per line, and marks the
skills the model loaded on its own (source model):

	claude    PostToolUse {"session_id","cwd","tool_name","tool_input",...}
	          tool_name "Read":  tool_input.file_path is a SKILL.md
	          tool_name "Skill": tool_input.skill is "name" or "plugin:name"
	          tool_name mcp__ski__skill_load (mcp__plugin_ski_ski__skill_load
	          from the plugin's server): tool_input.name (source tool)
	          tool_name mcp__ski__skill_search: the skills named in
	          tool_response (a search and what it found)
	opencode  tool.execute.after {"session_id","cwd"?,"tool","args","output"?}
	          tool "read":  args.filePath is a SKILL.md
	          tool "skill": args.name
	          tool "skill_load": args.name; "skill_search": output

A SKILL.md path counts when, after resolving symbolic links, it is the
SKILL.md of a skill ski-scan finds for that host and cwd (SKI_ROOTS, a
colon-separated list of directories, replaces the host's own roots; the
config's extra_roots are added). A name matches a skill's invoke name
first, then its name. Anything else, including every other tool, is
ignored. The file named in a payload is never opened: its path is only
compared with the catalog's. Observe writes nothing on stdout, except with
--reply for a skill_load of a skill the session already had (loaded by the
model or the user since the last rearm): then the host's payload that puts
a short "already loaded" note in place of the body, Claude Code's
{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":[...]}}
or, for the opencode plugin, {"output":NOTE}. --verbose prints one summary
line on stderr.

# Rearm

	ski-ledger rearm [--session ID] [--verbose] [--state-dir DIR] [--max-line N]

Rearm reads session-start payloads on stdin, Claude Code's SessionStart
{"session_id","source",...} or the opencode plugin's {"session_id","source"},
and when source is "compact" forgets the session's loaded and suggested
skills (the compaction dropped them from context), logging a rearm event.
Other sources (startup, resume, clear) change nothing. With --session ID it
rearms that session without reading stdin. Rearm writes nothing on stdout.

# Listing

	ski-ledger listing --host claude|opencode [--verbose] [--state-dir DIR] [--max-line N]

Listing reads session-start payloads on stdin ({"session_id","cwd",
"model"?,...}), works out what the host lists of each skill ski finds for
it from cwd (see ski doctor: its description whole or cut, its bare name,
or nothing), and keeps the skills not shown whole in the session's
ledger (replacing what it kept before), for ski-select to read on every
prompt.
Claude Code lists skills under a budget of characters that depends on the
model: the payload's model, else $ANTHROPIC_MODEL, else the settings'
model, else the smallest budget of any model. opencode shows every skill
whole. It scans the skill folders, so the session-start hook runs it in
the background. Listing writes nothing on stdout.

# Show

	ski-ledger show [--session ID] [--state-dir DIR]

Show prints the ledger of one session as indented JSON, or, without
--session, one line per ledger: session id, number of loaded skills and
time of the last update, separated by tabs, oldest first.

# Stats

	ski-ledger stats [--table] [--state-dir DIR]

Stats reads every ledger's event log and prints one record per skill
(kind "stats"): how often ski injected it, how many of those injections
the model followed by loading the skill itself later in the same session
(before the next injection of it or a rearm), the follow rate, how often it
was suggested and how many of those suggestions the model followed (unless
ski injected it in between), how often it was loaded by the model in all,
and invoked by the user with /name, and in how many sessions. --table prints the same for people.

# GC

	ski-ledger gc [--older-than 720h] [--verbose] [--state-dir DIR]

GC removes the ledgers not updated within --older-than, with their lock
files, plus leftover lock and temporary files as old. Ledgers in use
(locked) are kept, and so are set-aside *.corrupt-* files. GC writes nothing
on stdout; --verbose prints what it removed on stderr.

# Exit status

	0  success, even when nothing was recorded
	1  runtime failure: a malformed input line (named by its number), a
	   ledger that cannot be locked or written
	2  usage error: unknown subcommand or flag

# Examples

The hot path, recording what is about to be injected:

	... | ski-select | ski-ledger record | ski-render ...

Claude Code hooks:

	PostToolUse (Read, Skill, ski's tools):  ski-ledger observe --host claude --reply
	SessionStart (matcher "compact"):    ski-ledger rearm
	SessionStart (in the background):    ski-ledger listing --host claude

Looking at a session:

	ski-ledger show --session 4f2c9d1e-0b7a-4c55-9a43-2f1f0e9d7c11
*/
package main
