/*
Ski-rank scores every skill in the index against each query record and
writes the best candidates, best first, each saying why it scored what it did.

# Usage

	ski-embed --query | ski-rank [--index FILE] [--top N] [--keyword-boost X] [--lexical-weight X] [--body-weight X]

# Score

	score = cosine(prompt, skill)
	      + lexical_weight × BM25(prompt, skill text)
	      + body_weight × BM25(prompt, skill body)
	      + keyword_boost × (keyword/alias/tag hits, at most 2)
	      + intent_boost × how far the skill stands out near the intent's
	        concept (bug hunts: skills nearest "find the root cause")
	      - small_edit_penalty for a prompt that only asks a small edit
	      + 1.0 when the prompt names the skill
	Naming is @name, $name, "use the NAME skill", "invoke NAME", or a name of
	three or more parts on its own. A prompt that starts with /NAME names the
	skill too (mention "slash"), but gets no bonus: the host loads that skill
	itself, and ski-select records it as loaded instead of injecting it.
	Names inside e-mail addresses, URLs and paths do not count, nor do bare
	names after a leading /NAME, @NAME or $NAME (its arguments). top_score is
	the best score of the query (slash mentions aside), taken before any
	gate, for ski-select's margin. The skill text is what the index holds for
	it (name, description, keywords, the "when to use" section of its body);
	the skill body is the whole SKILL.md body without fenced code. BM25's
	term statistics come from the index too. A prompt that only asks for a
	small edit or an explanation ("just rename", "fix the typo", "what does X
	do?") has small_edit_penalty taken from every score; a bug report
	("panics ... find out why") has a debugging hint added to the text BM25
	matches, as ski-embed adds it to the text it embeds, and the skills whose
	cosine to that hint's vector (stored in the index) stands more than two
	standard deviations above all skills' get intent_boost × the excess. lexical_weight,
	body_weight, intent_boost, keyword_boost and small_edit_penalty default to
	the model's calibrated values (docs/quality.md).

# Input records

	query lines from ski-embed --query (kind "query"). The index named by each
	line's "index" field is used unless --index is given.

# Embed server

	when the embed server of the query's model runs (ski-embed --serve), an
	index of 8 MB or more (~4,000 skills) is ranked there: the server keeps it
	read between prompts, and the candidates are the same bytes. A smaller
	index, no server, or SKI_EMBED_SERVER=0: ski-rank reads the index itself.

# Output records (docs/records.md)

	one "candidate" line per skill, at most --top per query plus any mentioned
	skill; skills scoring 0 or less are left out.

# Exit status

	0 ran (even with no output), 1 error (bad input line, unreadable index,
	query and index of different models), 2 usage.

# Examples

	echo '{"prompt":"the helm chart fails to lint"}' | ski-embed --query | ski-rank --top 3
	... | ski-rank | jq -r '[.rank, .score, .id, (.why|join("; "))] | @tsv'
*/
package main
