package eval

import (
	"fmt"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/rank"
	"github.com/skill-inject/ski/internal/vecfile"
)

// Pipeline is ski's prompt path in one process: embed, rank, gate. The
// session ledger is left out: every case is a fresh session.
type Pipeline struct {
	Embedder embed.Embedder
	Index    *vecfile.Index
	Rank     rank.Settings
	Gate     gate.Settings
	// Previous, when set, embeds each prompt after the prompt of another
	// case (case i after case (i+7) mod n): what a session's earlier,
	// unrelated prompt does to the query if both are embedded together.
	Previous bool
}

// Run scores every case with the pipeline's gate settings.
func (p Pipeline) Run(cases []Case) ([]Outcome, error) {
	rows, err := p.Ranked(cases)
	if err != nil {
		return nil, err
	}
	outs := make([]Outcome, len(rows))
	for i, r := range rows {
		outs[i] = Score(r.Case, gate.Decide(r.Cands, p.Gate, nil))
	}
	return outs, nil
}

// Ranked embeds and ranks every case, leaving the gate to the caller: what a
// calibration fits its values on.
func (p Pipeline) Ranked(cases []Case) ([]Labelled, error) {
	// Each prompt is read once, for its vector and for ranking, as the
	// query record carries the reading through the hook.
	readings := make([]prompt.Reading, len(cases))
	texts := make([]string, len(cases))
	for i, c := range cases {
		readings[i] = prompt.Read(c.Prompt)
		texts[i] = readings[i].Text
		if j := (i + 7) % len(cases); p.Previous && j != i {
			texts[i] = prompt.QueryText(cases[j].Prompt + "\n" + c.Prompt)
		}
	}
	vecs, err := embed.Queries(p.Embedder, texts)
	if err != nil {
		return nil, fmt.Errorf("embed prompts: %w", err)
	}
	// Rank from the vectors as an index file stores them, as ski-rank does.
	p.Index.Quantize()
	cat := rank.NewCatalog(p.Index)
	rows := make([]Labelled, len(cases))
	for i, c := range cases {
		q := rank.Query{ID: fmt.Sprint(c.Line), Prompt: c.Prompt, Model: p.Index.Header.Model, Vector: vecs[i], Reading: &readings[i]}
		cands, err := cat.Rank(q, p.Rank)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", c.Line, err)
		}
		rows[i] = Labelled{Case: c, Cands: cands}
	}
	return rows, nil
}
