/*
Ski-select applies the gates to each query's ranked candidates and writes
what to do with each: inject it, suggest it in one line, or leave it to the
host because the user invoked it with /name.

# Usage

	ski-rank | ski-select [--all] [--state-dir DIR]

Gates, in order, for each candidate (values from config, else the model's
calibrated defaults; see README "Configuration"):

	   gate                                       decision
	1. /name at the start of the prompt        -> host-loads (recorded, not injected)
	2. @name, $name, "use the NAME skill"       -> inject (unless already loaded)
	3. deny (id or name)                        -> drop
	4. disable-model-invocation: true           -> drop
	5. force (id or name) with a keyword hit    -> passes 6 and 7
	6. score < min_similarity                   -> drop
	7. score < top_score - score_margin         -> drop (top taken before dedup,
	                                               so a handled prompt falls silent)
	8. already loaded in the session ledger     -> drop
	9. score < inject_similarity, or
	   autoInject: false                        -> suggest (once per session)
	10. otherwise                               -> inject

Gates 6, 7 and 9 are the bands of a score: silent, suggest, inject.
At most max_skills skills are injected per prompt; when two injected
skills name each other in "affinity", the cap grows by one, and a skill
over the cap is suggested instead. At most max_suggestions skills are
suggested per prompt, counted apart from max_skills. A suggested skill
can still be injected later in the session.

# Input records

	candidate lines from ski-rank, grouped by query_id.

# Output records (docs/records.md)

	"selection" lines: the candidate plus decision (inject, suggest,
	host-loads; drop with --all) and reason.

The session ledger is read from $XDG_STATE_HOME/ski/sessions (or
DIR/sessions with --state-dir DIR) for the candidate's session_id; ski-select never writes it
(ski-ledger record does).

# Exit status

	0 ran (even with no output), 1 error, 2 usage.

# Examples

	... | ski-rank | ski-select --all | jq -r '[.decision, .id, .reason] | @tsv'
*/
package main
