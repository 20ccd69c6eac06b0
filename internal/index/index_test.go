package index

import (
	"github.com/skill-inject/ski/internal/bm25"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/record"
)

// counting wraps the lexical embedder and counts what it embeds.
type counting struct {
	embed.Embedder
	texts int
}

func (c *counting) Embed(texts []string, p embed.Purpose) ([][]float32, error) {
	c.texts += len(texts)
	return c.Embedder.Embed(texts, p)
}

func TestBuildIncremental(t *testing.T) {
	skills := []record.Skill{
		{ID: "a", Name: "a", Description: "alpha things", Hash: "sha256:a1"},
		{ID: "b", Name: "b", Description: "beta things", Hash: "sha256:b1"},
		{ID: "c", Name: "c", Description: "gamma things", Hash: "sha256:c1"},
	}
	emb := &counting{Embedder: embed.NewLexical()}
	first, stats, err := Build(skills, nil, emb, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Embedded != 3 || emb.texts != 4 { // three skills, one intent concept
		t.Fatalf("first build: %v, embedded %d texts", stats, emb.texts)
	}
	// b changes, c goes away, d arrives.
	next := []record.Skill{skills[0], {ID: "b", Name: "b", Description: "beta, changed", Hash: "sha256:b2"},
		{ID: "d", Name: "d", Description: "delta", Hash: "sha256:d1"}}
	emb.texts = 0
	second, stats, err := Build(next, first, emb, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if stats != (Stats{Embedded: 2, Reused: 1, Removed: 1}) || emb.texts != 2 {
		t.Fatalf("second build: %+v, embedded %d texts", stats, emb.texts)
	}
	if embed.Dot(second.Entries[0].Vector, first.Entries[0].Vector) < 0.9999 {
		t.Error("unchanged skill lost its vector")
	}
	// Another model: nothing is reused.
	first.Header.Model = "other"
	_, stats, _ = Build(next, first, emb, time.Now())
	if stats.Reused != 0 {
		t.Errorf("reused vectors of another model: %+v", stats)
	}
}

func TestDocumentText(t *testing.T) {
	s := record.Skill{Name: "helm-chart", Description: "Build charts.", Keywords: []string{"helm", "k8s"}}
	if got := DocumentText(s, ""); got != "helm chart: Build charts. (helm, k8s)" {
		t.Errorf("got %q", got)
	}
	body := "# Helm\n\nIntro.\n\n## When to Use This Skill\n\n- a new chart\n- chart\n  values\n\n### Examples\nhelm create\n\n## Steps\n\nrun it\n"
	if got := DocumentText(s, body); got != "helm chart: Build charts. (helm, k8s) - a new chart - chart values ### Examples helm create" {
		t.Errorf("with body: got %q", got)
	}
}

func TestWhenSection(t *testing.T) {
	for body, want := range map[string]string{
		"":                               "",
		"# Title\nno section\n":          "",
		"## Use cases\nA\n## Other\nB\n": "A",
		"# Triggers\nx y\n":              "x y",
		"## Use when\n" + strings.Repeat("é", 900): strings.Repeat("é", maxWhenChars),
	} {
		if got := WhenSection(body); got != want {
			t.Errorf("WhenSection(%.30q) = %.30q, want %.30q", body, got, want)
		}
	}
}

func TestBuildReadsBodyAndCountsTerms(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(path, []byte("---\nname: pg\ndescription: Tune queries.\n---\n## When to use\nslow postgres queries\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	skills := []record.Skill{{ID: "pg", Name: "pg", Description: "Tune queries.", Path: path, Hash: "h"}, {ID: "b", Name: "b", Description: "Other."}}
	idx, _, err := Build(skills, nil, embed.NewLexical(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if idx.Entries[0].Terms[bm25.Stem("postgres")] != 1 || idx.Entries[0].Terms["query"] != 2 {
		t.Errorf("terms: %v", idx.Entries[0].Terms)
	}
	if c := idx.Header.Intents["bug-hunt"]; len(c.Vector) != idx.Header.Dim || c.Text == "" {
		t.Errorf("bug-hunt concept: %q, %d dims", c.Text, len(c.Vector))
	}
	if idx.Body.Len() != 2 {
		t.Errorf("body field: %d documents", idx.Body.Len())
	}
	if idx.Header.Text != TextRules {
		t.Errorf("header: %+v", idx.Header)
	}
	// Other text rules: nothing is reused.
	idx.Header.Text = "old"
	if _, stats, _ := Build(skills, idx, embed.NewLexical(), time.Now()); stats.Reused != 0 {
		t.Errorf("reused vectors made under other text rules: %+v", stats)
	}
}

func TestPathFor(t *testing.T) {
	a := PathFor("/c", "claude", "m", []string{"/x", "/y"})
	b := PathFor("/c", "claude", "m", []string{"/x"})
	c := PathFor("/c", "opencode", "m", []string{"/x", "/y"})
	if a == b || a == c || !strings.HasPrefix(a, "/c/index/claude-") {
		t.Errorf("paths not distinct or misplaced: %s %s %s", a, b, c)
	}
}
