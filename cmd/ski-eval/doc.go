/*
Ski-eval measures how well ski picks skills. It runs labelled prompts
through the real prompt path (embed, rank, gate; every prompt a fresh
session) against a skills root and prints, per category: top-1 accuracy,
gated recall (an expected skill is among what would be injected), precision
of the injected set, false-injection rate on prompts that need no skill, and
the share of rows right as a whole (near-miss correctness, mention
exactness), plus host-value = gated recall - 0.15 x false-injection rate.

# Usage

	ski-eval --tsv FILE --root DIR [--model ID] [--index FILE] [--json] [--plot FILE.svg] [--misses]
	         [--half tune|held] [--min-similarity X] [--inject-similarity X] [--score-margin X]
	         [--keyword-boost X] [--lexical-weight X] [--body-weight X] [--small-edit-penalty X] [--max-skills N]
	         [--top N] [--candidates FILE.ndjson] [--previous] [--bare]

# Input

	a TSV of category, prompt, expected, notes (see shared/eval/README.md):
	expected is "-" or groups separated by "," of alternatives separated by
	"|". A "/name" prompt is right when ski leaves that skill to the host and
	injects nothing else.

Every SKILL.md under the roots is indexed, including skills that another
one shadows (same name in another repository): in a corpus, ids tell them
apart.

Gate values are the model's calibrated defaults unless given as flags, so a
sweep is a loop over, e.g., --min-similarity. --half scores one half of the
rows (alternate rows of each category), to tune on one half and check the
choice on the other.

--previous embeds each prompt after the prompt of another row, as if a
session's earlier, unrelated prompt were part of the query.

The tokens column estimates what ski adds to a prompt for Claude Code
(four characters a token); --bare counts it as when Claude Code's skill
listing shows every skill by name alone, so that each skill ski names
comes with its description.

--candidates writes one JSON line per row (line, category, prompt,
expected groups, and every ranked candidate with the gate's decision), for
analysis outside ski; with --top 0 every skill is ranked.

# Exit status

	0 ran, 1 error, 2 usage.

# Examples

	ski-eval --tsv ../shared/eval/dev.tsv --root ../shared/skills-corpus
	ski-eval --tsv dev.tsv --root corpus --json | jq .positives
	ski-eval --tsv dev.tsv --root corpus --plot scores.svg --misses
*/
package main
