// Package index builds and locates ski's vector index: it embeds the skills
// a scan found, reusing the vectors of skills whose content did not change.
package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/embcache"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/intent"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/vecfile"
)

// Stats says what a build did.
type Stats struct {
	Embedded int // texts run through the model
	Cached   int // skills whose vector came from the embedding cache
	Reused   int // vectors kept from the old index
	Removed  int // skills in the old index that are gone
}

func (s Stats) String() string {
	return fmt.Sprintf("%d embedded, %d from the embedding cache, %d reused, %d removed", s.Embedded, s.Cached, s.Reused, s.Removed)
}

// Options tune a build.
type Options struct {
	// Cache, when set, holds vectors by the text embedded: texts found in
	// it are not embedded again, and every batch embedded is written to it
	// before the next starts, so a build killed half way keeps its work.
	Cache *embcache.Cache
	// Batch is how many texts go to the model (and to the cache) at once;
	// 0 means 8.
	Batch int
	// Progress, when set, is told how many of the texts to embed are done.
	Progress func(done, total int)
	// First, when set, picks the skills whose texts are embedded before the
	// others (those that changed while a build ran).
	First func(record.Skill) bool
	// Stop, when set, is asked after each batch whether to stop; BuildWith
	// then returns ErrStopped, what it embedded kept in the cache.
	Stop func() bool
}

// ErrStopped is BuildWith's error when Options.Stop stopped it.
var ErrStopped = errors.New("build stopped")

// Build embeds skills with emb and counts the terms of their text for BM25.
// Vectors and terms of skills with the same id and hash in old are reused
// when old was built by the same model under the same TextRules.
func Build(skills []record.Skill, old *vecfile.Index, emb embed.Embedder, now time.Time) (*vecfile.Index, Stats, error) {
	return BuildWith(skills, old, emb, now, Options{})
}

// BuildWith is Build with options: an embedding cache, batches, progress.
// Identical texts are embedded once.
func BuildWith(skills []record.Skill, old *vecfile.Index, emb embed.Embedder, now time.Time, o Options) (*vecfile.Index, Stats, error) {
	m := emb.Model()
	// Old entries that can be kept, by id and hash, with their position:
	// their body terms are taken from the old body field in one walk
	// after the loop (a map per document cost ~70 kB a skill).
	reuse := map[string]int{}
	if old != nil && old.Header.Model == m.ID && old.Header.Dim == m.Dim && old.Header.Text == TextRules &&
		old.Body != nil && old.Body.Len() == len(old.Entries) {
		for i, e := range old.Entries {
			reuse[e.Skill.ID+"\x00"+e.Skill.Hash] = i
		}
	}
	idx := &vecfile.Index{Header: vecfile.Header{
		Model: m.ID, Embedder: m.Backend, Dim: m.Dim, Created: now.UTC().Format(time.RFC3339), Text: TextRules,
	}}
	var stats Stats
	// The texts still to embed, each once, and the entries waiting for it.
	var texts []string
	var keys []embcache.Key
	textAt := map[embcache.Key]int{}
	first := map[int]bool{} // texts of the skills o.First picked
	waiting := map[embcache.Key][]int{}
	var bodies bm25.Collector
	// Old position -> new + 1 for kept entries (0: not kept); a slice, not
	// a map: the walk below looks up every posting of the old bodies.
	var moved []int
	if len(reuse) > 0 {
		moved = make([]int, len(old.Entries))
	}
	kept := 0
	for _, s := range skills {
		at := len(idx.Entries)
		bodies.Document(at)
		var e vecfile.Entry
		if i, ok := reuse[s.ID+"\x00"+s.Hash]; ok {
			e = old.Entries[i]
			e.Skill = s // path, mtime or root may have moved
			moved[i] = at + 1
			kept++
			stats.Reused++
		} else {
			raw := readBody(s.Path)
			text := DocumentText(s, raw)
			key := embcache.KeyOf(embed.Document, text)
			e = vecfile.Entry{Skill: s, Terms: bm25.Terms(text)}
			for t, n := range BodyTerms(raw) {
				bodies.Add(at, t, n)
			}
			if v, ok := o.Cache.Lookup(key); ok && len(v) == m.Dim {
				e.Vector = v
				stats.Cached++
			} else {
				if _, ok := waiting[key]; !ok {
					textAt[key] = len(texts)
					texts, keys = append(texts, text), append(keys, key)
				}
				if o.First != nil && o.First(s) {
					first[textAt[key]] = true
				}
				waiting[key] = append(waiting[key], at)
			}
		}
		idx.Entries = append(idx.Entries, e)
	}
	if kept > 0 {
		old.Body.Walk(func(t string, d, n int) {
			if at := moved[d]; at > 0 {
				bodies.Add(at-1, t, n)
			}
		})
	}
	if err := embedAll(emb, texts, keys, first, o, func(k embcache.Key, v []float32) {
		for _, at := range waiting[k] {
			idx.Entries[at].Vector = v
		}
	}); err != nil {
		o.Cache.Sync()
		return nil, stats, err
	}
	if err := o.Cache.Sync(); err != nil {
		return nil, stats, err
	}
	stats.Embedded = len(texts)
	if old != nil {
		stats.Removed = countGone(old, skills)
	}
	var oldIntents map[string]vecfile.Concept
	if len(reuse) > 0 {
		oldIntents = old.Header.Intents
	}
	intents, err := intentConcepts(emb, oldIntents)
	if err != nil {
		return nil, stats, err
	}
	idx.Header.Intents = intents
	body, err := bodies.Inverted()
	if err != nil {
		return nil, stats, fmt.Errorf("index skill bodies: %w", err)
	}
	idx.Body = body
	idx.Header.Count = len(idx.Entries)
	return idx, stats, nil
}

// embedAll embeds texts as documents in batches, those of first first,
// then shortest first (fewer wasted positions when a model batches),
// persisting each batch to the cache before the next, and hands each
// vector to got.
func embedAll(emb embed.Embedder, texts []string, keys []embcache.Key, first map[int]bool, o Options, got func(embcache.Key, []float32)) error {
	if len(texts) == 0 {
		return nil
	}
	batch := o.Batch
	if batch <= 0 {
		batch = 8
	}
	order := make([]int, len(texts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		if fa, fb := first[order[a]], first[order[b]]; fa != fb {
			return fa
		}
		return len(texts[order[a]]) < len(texts[order[b]])
	})
	for start := 0; start < len(order); start += batch {
		part := order[start:min(start+batch, len(order))]
		bt := make([]string, len(part))
		bk := make([]embcache.Key, len(part))
		for i, at := range part {
			bt[i], bk[i] = texts[at], keys[at]
		}
		vecs, err := emb.Embed(bt, embed.Document)
		if err != nil {
			return fmt.Errorf("embed skills: %w", err)
		}
		if len(vecs) != len(bt) {
			return fmt.Errorf("embed skills: got %d vectors for %d texts", len(vecs), len(bt))
		}
		if o.Cache != nil {
			if err := o.Cache.Append(bk, vecs); err != nil {
				return err
			}
		}
		for i, k := range bk {
			got(k, vecs[i])
		}
		if o.Progress != nil {
			o.Progress(start+len(part), len(texts))
		}
		if o.Stop != nil && start+len(part) < len(order) && o.Stop() {
			return ErrStopped
		}
	}
	return nil
}

// intentConcepts embeds, as queries, the texts that stand for what a
// prompt of each intent needs, reusing the vectors of old (built by the
// same model) whose text did not change.
func intentConcepts(emb embed.Embedder, old map[string]vecfile.Concept) (map[string]vecfile.Concept, error) {
	out := map[string]vecfile.Concept{}
	var kinds, texts []string
	for _, k := range []intent.Kind{intent.BugHunt} {
		text := intent.Concept(k)
		if c, ok := old[string(k)]; ok && c.Text == text && len(c.Vector) == emb.Model().Dim {
			out[string(k)] = c
			continue
		}
		kinds, texts = append(kinds, string(k)), append(texts, text)
	}
	if len(texts) == 0 {
		return out, nil
	}
	vecs, err := embed.Queries(emb, texts)
	if err != nil {
		return nil, fmt.Errorf("embed intent concepts: %w", err)
	}
	for i, k := range kinds {
		out[k] = vecfile.Concept{Text: texts[i], Vector: vecs[i]}
	}
	return out, nil
}

// countGone counts the old entries whose skill id is no longer among skills.
func countGone(old *vecfile.Index, skills []record.Skill) int {
	ids := make(map[string]bool, len(skills))
	for _, s := range skills {
		ids[s.ID] = true
	}
	n := 0
	for _, e := range old.Entries {
		if !ids[e.Skill.ID] {
			n++
		}
	}
	return n
}

// ReadOld reads an existing index for reuse. A missing file is nil; a corrupt
// or foreign one is reported through warn and treated as missing, so it is
// rebuilt rather than trusted.
func ReadOld(path string, warn func(string)) *vecfile.Index {
	idx, err := indexfile.Read(path)
	switch {
	case err == nil:
		return idx
	case errors.Is(err, os.ErrNotExist):
		return nil
	default:
		warn(fmt.Sprintf("%v; rebuilding it", err))
		return nil
	}
}

// Current reports whether the index at path exists, is readable and was
// built by model; a corrupt or foreign file is reported through warn.
func Current(path, model string, warn func(string)) bool {
	h, err := vecfile.ReadHeader(path)
	switch {
	case err == nil:
		return h.Model == model
	case !errors.Is(err, os.ErrNotExist):
		warn(fmt.Sprintf("%v; rebuilding it", err))
	}
	return false
}

// PathFor is where the automatic index for a host, model and set of roots
// lives under cacheDir (ski's cache folder). Different projects see
// different roots, so they get different files.
func PathFor(cacheDir, host, model string, roots []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", host, model)
	for _, r := range roots {
		fmt.Fprintf(h, "%s\x00", r)
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	return filepath.Join(cacheDir, "index", host+"-"+key+".skv")
}
