package eval

import (
	"fmt"
	"math"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/vecfile"
)

// WriteFeatures writes one JSON line per row to path: the case and its
// ranked candidates with, when background prompts are given, the mean and
// standard deviation of each candidate skill's cosine over them.
func WriteFeatures(path string, rows []Labelled, emb embed.Embedder, idx *vecfile.Index, background []string) error {
	mean, std, err := BackgroundStats(emb, idx, background)
	if err != nil {
		return err
	}
	pos := map[string]int{}
	for i, e := range idx.Entries {
		pos[e.Skill.ID] = i
	}
	type cand struct {
		ID      string    `json:"id"`
		Rank    int       `json:"rank"`
		Score   float64   `json:"score"`
		Cosine  float64   `json:"cosine"`
		Lexical float64   `json:"lexical"`
		Boost   float64   `json:"boost"`
		Mention string    `json:"mention"`
		Why     []string  `json:"why"`
		Judge   []float64 `json:"judge_features,omitempty"` // judge.FeatureNames
		BgMean  float64   `json:"bg_mean"`
		BgStd   float64   `json:"bg_std"`
	}
	return writeLines(path, len(rows), func(i int) any {
		r := rows[i]
		cands := make([]cand, len(r.Cands))
		for j, c := range r.Cands {
			cands[j] = cand{ID: c.ID, Rank: c.Rank, Score: c.Score, Cosine: c.Cosine, Lexical: c.Lexical, Boost: c.Boost, Mention: c.Mention, Why: c.Why, Judge: c.Features}
			if mean != nil {
				cands[j].BgMean, cands[j].BgStd = mean[pos[c.ID]], std[pos[c.ID]]
			}
		}
		return struct {
			Line     int        `json:"line"`
			Category string     `json:"category"`
			Prompt   string     `json:"prompt"`
			Expected [][]string `json:"expected"`
			Cands    []cand     `json:"cands"`
		}{r.Line, r.Category, r.Prompt, r.Groups, cands}
	})
}

// BackgroundStats embeds the background prompts and returns, per index
// entry, the mean and standard deviation of its cosine over them (nil, nil
// for no prompts).
func BackgroundStats(emb embed.Embedder, idx *vecfile.Index, background []string) (mean, std []float64, err error) {
	if len(background) == 0 {
		return nil, nil, nil
	}
	texts := make([]string, len(background))
	for i, b := range background {
		texts[i] = prompt.QueryText(b)
	}
	vecs, err := embed.Queries(emb, texts)
	if err != nil {
		return nil, nil, fmt.Errorf("embed background prompts: %w", err)
	}
	n := len(idx.Entries)
	mean, std = make([]float64, n), make([]float64, n)
	for i := range n {
		var s, ss float64
		for _, v := range vecs {
			c := idx.Cosine(i, v)
			s += c
			ss += c * c
		}
		m := s / float64(len(vecs))
		mean[i], std[i] = m, math.Sqrt(max(ss/float64(len(vecs))-m*m, 1e-12))
	}
	return mean, std, nil
}
