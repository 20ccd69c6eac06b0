// Package background measures where a skill catalog's best scores fall for
// generic prompts (judge.Prompts), which the judge reads every score
// against, and keeps it in the catalog's index.
package background

import (
	"fmt"

	"github.com/skill-inject/ski/internal/embcache"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/rank"
	"github.com/skill-inject/ski/internal/vecfile"
)

// Attach measures idx's background and keeps it in its header when the
// model has a judge, or always when always is set (to train one). cache,
// which may be nil, holds the generic prompts' vectors between builds.
func Attach(idx *vecfile.Index, emb embed.Embedder, cache *embcache.Cache, always bool) error {
	j, err := judge.For(idx.Header.Model)
	if err != nil {
		return err
	}
	if (j == nil && !always) || len(idx.Entries) == 0 {
		return nil
	}
	// Scored as ski-rank will score them: from the vectors as the index
	// file stores them, whether they were embedded now or kept from an
	// older file.
	idx.Quantize()
	bg, err := measure(idx, emb, cache)
	if err != nil {
		return err
	}
	bg.Scoring = Scoring(idx.Header.Model)
	stored := vecfile.Background(bg)
	idx.Header.Background = &stored
	return nil
}

// Scoring names the default ranking weights of the model id, under which
// a background is measured: an index whose background was measured under
// others is measured again.
func Scoring(model string) string {
	m, err := embed.Lookup(model)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("lexical %g body %g keyword %g intent %g small-edit %g",
		m.LexicalWeight, m.BodyWeight, m.KeywordBoost, m.IntentBoost, m.SmallEditPenalty)
}

// Keys are the embedding cache's keys of the generic prompts' vectors,
// which a cache's gc keeps: every build ranks them.
func Keys() map[embcache.Key]bool {
	keys := map[embcache.Key]bool{}
	for _, p := range judge.Prompts() {
		keys[embcache.KeyOf(embed.Query, prompt.Read(p).Text)] = true
	}
	return keys
}

// measure ranks the judge's generic prompts against idx, under the
// model's default ranking, and returns where their best scores fall. Their
// vectors come from the cache when it has them.
func measure(idx *vecfile.Index, emb embed.Embedder, cache *embcache.Cache) (judge.Background, error) {
	prompts := judge.Prompts()
	readings := make([]prompt.Reading, len(prompts))
	vecs := make([][]float32, len(prompts))
	var missing []int
	var texts []string
	for i, p := range prompts {
		readings[i] = prompt.Read(p)
		if v, ok := cache.Lookup(embcache.KeyOf(embed.Query, readings[i].Text)); ok && len(v) == idx.Header.Dim {
			vecs[i] = v
			continue
		}
		missing = append(missing, i)
		texts = append(texts, readings[i].Text)
	}
	if len(texts) > 0 {
		got, err := embed.Queries(emb, texts)
		if err != nil {
			return judge.Background{}, fmt.Errorf("embed the background prompts: %w", err)
		}
		keys := make([]embcache.Key, len(texts))
		for j, i := range missing {
			vecs[i] = got[j]
			keys[j] = embcache.KeyOf(embed.Query, texts[j])
		}
		if cache != nil {
			if err := cache.Append(keys, got); err != nil {
				return judge.Background{}, err
			}
		}
	}
	cat := rank.NewCatalog(idx)
	tops := make([]float64, 0, len(prompts))
	for i, p := range prompts {
		cands, err := cat.Rank(rank.Query{Prompt: p, Model: idx.Header.Model, Vector: vecs[i], Reading: &readings[i]}, rank.Settings{Top: 3, NoJudge: true})
		if err != nil {
			return judge.Background{}, fmt.Errorf("rank the background prompts: %w", err)
		}
		top := 0.0 // no skill scored above 0
		for _, c := range cands {
			if c.Mention == "" {
				top = c.Score
				break
			}
		}
		tops = append(tops, top)
	}
	return judge.Quantiles(tops), nil
}
