/*
Ski-embed turns text into vectors. With --index it reads ski-scan skill
records and writes the vector index; with --query it reads prompt events and
attaches each prompt's vector; with --refresh it brings the automatic index of
each event's project up to date.

# Usage

	ski-scan [flags] | ski-embed --index FILE [--model ID]
	EVENTS | ski-embed --query [--index FILE] [--host claude|opencode]
	EVENT | ski-embed --query --event [--host claude|opencode]
	EVENTS | ski-embed --refresh [--background] [--host claude|opencode]
	ski-embed --serve [--detach] [--idle 30m] [--delay 0s] [--recheck 5m] [--model ID]
	ski-embed --gc

# Input records

	--index    skill and error lines from ski-scan (error lines are counted and
	           passed over).
	--query    events: any JSON object with a string "prompt"; "session_id",
	           "cwd" and "prompt_id" are used when present. Claude Code's
	           UserPromptSubmit payload works as it is. Empty prompts and host
	           control messages (<task-notification>, <system-reminder>, ...)
	           produce no output. What is embedded is the prompt without a
	           leading /command, fenced code and log or stack-trace lines; a
	           bug report ("panics ... find out why") gets a short debugging
	           hint added, so debugging skills rank with the ones it names.
	--refresh  events with "cwd".
	--event    with --query: the input is one event, any JSON object, on one
	           line or pretty-printed, of at most 16 MiB (the prompt hook's
	           input). A prompt longer than 64 KiB is ranked on its first
	           64 KiB, cut at a character boundary, with a warning.

# Output records (docs/records.md)

	--index, --refresh  one "index" line: path, model, count, embedded (texts
	                    run through the model), cached (vectors found in the
	                    embedding cache), reused (kept from the old index),
	                    removed; with --background, state: "current" or
	                    "building".
	--query             the event with kind "query", query_id, host, index,
	                    model and vector added; every other field is kept.

Without --index, --query and --refresh use the automatic index of the
event's project: one file per host, model and set of skill roots under
$XDG_CACHE_HOME/ski/index. The roots are the host's own (see ski-scan), or
SKI_ROOTS (colon-separated) when set.

--query never builds an index. When the event's project has no index of the
model yet (or a damaged one) it starts a background builder and ranks with
the project's lexical index meanwhile, which the builder writes first, in
well under a second for a few hundred skills; before even that exists the
prompt gets no query (ski stays silent). --refresh --background is what
the hooks run at session start: it checks each event's index (the skill
files against the index's stamp, and every checksum of the file) and starts
a builder when the index is missing, stale or damaged, then returns at
once. One builder runs per index (it holds <index>.build.lock), at idle CPU
priority with two threads, and writes how far it is to <index>.progress;
its messages go to $XDG_STATE_HOME/ski/hook.log. A running embed server
watches the projects prompts came from and starts a builder when a skill
is added, edited or removed, so the next prompt uses it, and once every
--recheck (5 minutes) all the same. --refresh without
--background builds in this process and returns when the index is ready
(after waiting for a background builder of the same index, if one runs),
with progress on stderr when that is a terminal: for scripts and
benchmarks that need a ready index.

The index is incremental: a skill whose id and content hash did not change
keeps its vector, and when no SKILL.md was added, removed or changed since
the index was built (a walk and a stat per file, recorded in the index
header as "stamp") a refresh neither scans nor writes. A damaged index
(any checksum failing, a file cut short, a directory or link in its place)
is moved aside to <index>.corrupt-<time> and rebuilt. The query is always
embedded with the model the index was built with.

Every vector a build makes is kept in the embedding cache,
$XDG_CACHE_HOME/ski/embeddings/<model>.vec, keyed by the exact text
embedded and shared by every project and host: a skill seen from two roots
is embedded once, and a build that was killed resumes where it stopped
(each batch is written to the cache before the next, and synced to the
disk at most once a second). The cache is bounded
(256 MiB per model, its oldest vectors dropped first); --gc drops the
vectors that no index uses.

With --serve it keeps the model loaded and embeds for other ski-embed
processes over a unix socket, in $XDG_RUNTIME_DIR/ski (else
$XDG_STATE_HOME/ski/run; created 0700, refused when others may enter it),
until it has had no request for --idle; --detach starts it in the
background and returns at once. There is one server per user and model
install (a lock file beside the socket holds its process id); a second one
exits quietly. --query and --refresh use the server when it answers (after
a handshake on protocol, model and binary versions; a server of another
version exits) and embed in process otherwise, starting a server on their
way out (with --delay 250ms, so its loading does not slow the stages still
working on the prompt); either way the vectors are the same. A server that is there but does
not answer within 0.3 s (busy, stopped) never makes a prompt load the
model: the prompt is ranked with the project's lexical index.
SKI_EMBED_SERVER=0 keeps them from using or starting a server, and
--serve --detach from starting one. A server
also reads host events, one a line, from the FIFO beside its socket
(<socket>.in) and embeds their prompts at once into its cache of recent
queries: --query --event writes its event there first, so the model runs
while the query finds its index. It writes only to a FIFO of its user's,
in a run dir of its user's that no one else may enter, never through a
symlink and never waiting. Server and client check that the other end of
the socket runs as the same user (SO_PEERCRED); a server stops once its
socket or run dir is gone or the dir is open to others.

ski-embed is two binaries acting as one command. ski-embed is a static,
pure-Go program: it answers --query through a running server (after a
handshake that embeds nothing; the server also turns the prompt into the
text it embeds) and hands every other run, and --query when no server
answers, to ski-embed-onnx, which links ONNX Runtime and the tokenizer and
is installed beside it (else found on PATH), by exec before reading any
input. ski-embed-onnx takes the same flags.

When $SKI_STAGE_TIMEOUT is set (whole seconds; the hook scripts set it
from the user's SKI_HOOK_TIMEOUT, default 10), every ski stage stops with
exit status 1 that long after it started; run by hand, stages have no
time limit.

# Exit status

	0 ran (even with no output), 1 error (bad input line, unreadable index),
	2 usage.

# Examples

	ski-scan --root testdata/skills | ski-embed --index /tmp/skills.skv
	echo '{"prompt":"write a postmortem"}' | ski-embed --query --index /tmp/skills.skv | ski-rank | head -3
	ski-embed --serve --detach

# Two binaries

This binary is pure Go and starts fast: it answers prompt queries through
a running embed server and hands everything that needs the model runtime
to ski-embed-onnx, installed beside it, by exec.
*/
package main
