package eval

import (
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/record"
)

// ReaderText is the text of a skill the reader reads: what the index keeps
// of it (its name, description, keywords, aliases and tags), as the
// embedded text has them; set by the caller (index.DocumentText without a
// body).
type ReaderText func(record.Skill) string

// WriteReaderPairs writes, for every row, the prompt as ski reads it and
// its ranked candidates with the text of each skill the reader would read:
// what a reader is trained and checked on.
func WriteReaderPairs(path string, rows []Labelled, skills map[string]record.Skill, text ReaderText) error {
	type cand struct {
		ID         string   `json:"id"`
		Rank       int      `json:"rank"`
		Score      float64  `json:"score"`
		Cosine     float64  `json:"cosine"`
		Confidence *float64 `json:"confidence"`
		Mention    string   `json:"mention,omitempty"`
		Text       string   `json:"text"`
	}
	return writeLines(path, len(rows), func(i int) any {
		r := rows[i]
		row := struct {
			Line     int        `json:"line"`
			Category string     `json:"category"`
			Prompt   string     `json:"prompt"`
			Text     string     `json:"text"`
			Expected [][]string `json:"expected"`
			Cands    []cand     `json:"cands"`
		}{r.Case.Line, r.Case.Category, r.Case.Prompt, prompt.Read(r.Case.Prompt).Text, r.Case.Groups, []cand{}}
		for _, c := range r.Cands {
			row.Cands = append(row.Cands, cand{ID: c.ID, Rank: c.Rank, Score: c.Score, Cosine: c.Cosine,
				Confidence: c.Confidence, Mention: c.Mention, Text: text(skills[c.ID])})
		}
		return row
	})
}
