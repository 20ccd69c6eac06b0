/*
Ski-render turns each query's selections into the payload a host reads, or
prints nothing when nothing was selected.

# Usage

	ski-select | ski-ledger record | ski-render --host claude|opencode

# Payloads

	claude    {"hookSpecificOutput":{"hookEventName":"UserPromptSubmit",
	           "additionalContext":TEXT}} plus "systemMessage" (a one-line
	           notice for the person) when config notify = true.
	opencode  {"skills":[IDS],"suggest":[IDS],"inject":TEXT}: the ids of the
	          injected and of the suggested skills, both always present.

# TEXT depends on config inject_mode

	directive  one line per skill telling the model to load it with the host's
	           skill tool; directive_strength soft ("if it applies") or hard
	           ("you MUST"); auto is soft for claude and hard for opencode.
	body       each skill's SKILL.md without frontmatter, its base directory and
	           its bundled files, all bodies within char_budget characters, cut
	           on a character boundary with a visible marker.

Suggested skills are named after them in one line of at most 300
characters, with the host's skill tool to load them by. Skill text is
copied as text: nothing in it is expanded or run.

# Input records

	selection lines from ski-select (or ski-ledger record), grouped by query_id.

# Exit status

	0 ran (even with no output), 1 error (bad input, unreadable SKILL.md in
	body mode), 2 usage.

# Examples

	... | ski-select | ski-render --host opencode | jq .skills
*/
package main
