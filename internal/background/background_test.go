package background

import (
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embcache"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/record"
)

// named is the lexical embedder under another model's id, counting the
// prompts it embeds.
type named struct {
	embed.Embedder
	id      string
	queries int
}

func (n *named) Model() embed.Model {
	m := n.Embedder.Model()
	m.ID = n.id
	return m
}

func (n *named) Embed(texts []string, p embed.Purpose) ([][]float32, error) {
	if p == embed.Query {
		n.queries += len(texts)
	}
	return n.Embedder.Embed(texts, p)
}

func skills() []record.Skill {
	var out []record.Skill
	for i, d := range []string{
		"Find the root cause of a failing test, an error or a crash before fixing it.",
		"Write and update the README and other documentation of a project.",
		"Review a pull request: correctness, tests, naming, security.",
		"Create Kubernetes deployments, services and helm charts.",
	} {
		out = append(out, record.Skill{ID: string(rune('a' + i)), Name: string(rune('a' + i)), Description: d, Hash: d})
	}
	return out
}

func TestAttach(t *testing.T) {
	emb := &named{Embedder: embed.NewLexical(), id: embed.DefaultModel()}
	idx, _, err := index.Build(skills(), nil, emb, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cache, err := embcache.Open(t.TempDir(), emb.id, emb.Model().Dim, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	before := emb.queries
	if err := Attach(idx, emb, cache, false); err != nil {
		t.Fatal(err)
	}
	bg := idx.Header.Background
	if bg == nil || !judge.Background(*bg).Valid() || bg.Q90 <= bg.Q50 {
		t.Fatalf("background %+v", bg)
	}
	if got, want := emb.queries-before, len(judge.Prompts()); got != want {
		t.Fatalf("embedded %d generic prompts, want %d", got, want)
	}
	if len(Keys()) != len(judge.Prompts()) {
		t.Fatalf("%d keys for %d prompts", len(Keys()), len(judge.Prompts()))
	}
	// A second build finds the prompts' vectors in the cache.
	idx.Header.Background = nil
	before = emb.queries
	if err := Attach(idx, emb, cache, false); err != nil || emb.queries != before || *idx.Header.Background != *bg {
		t.Fatalf("again: %d prompts embedded, background %+v (was %+v), %v", emb.queries-before, idx.Header.Background, bg, err)
	}
	// A model without a judge gets none, unless asked (to train one).
	plain := &named{Embedder: embed.NewLexical(), id: "no-judge-model"}
	idx2, _, _ := index.Build(skills(), nil, plain, time.Now())
	if err := Attach(idx2, plain, nil, false); err != nil || idx2.Header.Background != nil {
		t.Fatalf("no judge: %+v, %v", idx2.Header.Background, err)
	}
	if err := Attach(idx2, plain, nil, true); err != nil || idx2.Header.Background == nil {
		t.Fatalf("asked: %+v, %v", idx2.Header.Background, err)
	}
}
