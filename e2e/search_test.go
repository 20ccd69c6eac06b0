package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// devPositives are the prompts of ../shared/eval/dev.tsv that expect a
// skill.
func devPositives(t testing.TB) []string {
	t.Helper()
	shared := os.Getenv("SKI_SHARED")
	if shared == "" {
		shared = filepath.Join(filepath.Dir(repo), "shared")
	}
	b, err := os.ReadFile(filepath.Join(shared, "eval", "dev.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) < 3 || strings.TrimSpace(f[2]) == "" {
			continue
		}
		out = append(out, f[1])
	}
	return out
}

// ski search (skill_search's ranking) orders the shared corpus's skills as
// ski why does with the reader off (search never asks it), on every prompt
// of dev.tsv that expects a skill, with the real model through the embed
// server.
func TestSearchOrdersAsWhy(t *testing.T) {
	w := corpusWorld(t)
	w.readerConfig(false)
	w.sessionStart("claude")
	if w.serverPID(60_000_000_000) == 0 {
		t.Fatal("no embed server came up")
	}
	prompts := devPositives(t)
	if len(prompts) < 100 {
		t.Fatalf("only %d positive rows in dev.tsv", len(prompts))
	}
	for _, p := range prompts {
		r := w.ski("search", "--json", "--limit", "10", p)
		var got struct {
			Model  string
			Note   string
			Skills []struct{ ID, Band string }
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
			t.Fatalf("ski search %q: %d %s %s", p, r.code, r.stdout, r.stderr)
		}
		if got.Model != "bge-small-en-v1.5-q" || got.Note != "" {
			t.Fatalf("ski search %q ranked with %q (%s)", p, got.Model, got.Note)
		}
		r = w.ski("why", "--json", "--top", "20", p)
		var why struct {
			Candidates []struct {
				ID                     string
				Band                   string
				DisableModelInvocation bool `json:"disable_model_invocation"`
			}
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &why) != nil {
			t.Fatalf("ski why %q: %d %s", p, r.code, r.stderr)
		}
		var want, have []string
		for _, c := range why.Candidates {
			if !c.DisableModelInvocation {
				band := c.Band
				if band == "silent" {
					band = "weak"
				}
				want = append(want, c.ID+" "+band)
			}
		}
		for _, s := range got.Skills {
			have = append(have, s.ID+" "+s.Band)
		}
		want = want[:min(len(want), len(have))]
		if len(have) == 0 || !slices.Equal(have, want) {
			t.Fatalf("%q:\nski search %v\nski why    %v", p, have, want)
		}
	}
}
