package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLayers(t *testing.T) {
	cfgDir := filepath.Join(t.TempDir(), "ski")
	write(t, filepath.Join(cfgDir, "config.toml"), "max_skills = 3\nmin_similarity = 0.4\ninject_mode = \"body\"\ndeny = [\"a\"]\n")
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	write(t, filepath.Join(repo, ".ski.toml"), "min_similarity = 0.5\nnotify = true\n")
	sub := filepath.Join(repo, "src", "pkg")
	os.MkdirAll(sub, 0o755)
	var warnings []string
	c := Load(cfgDir, sub, func(s string) { warnings = append(warnings, s) })
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	if Int(c.MaxSkills, 0) != 3 || Float(c.MinSimilarity, 0) != 0.5 || c.InjectMode != "body" ||
		!Bool(c.Notify, false) || len(c.Deny) != 1 || len(c.Files) != 2 {
		t.Fatalf("merged config: %+v", c)
	}
	if Float(c.ScoreMargin, 0.07) != 0.07 {
		t.Errorf("unset key should fall back to the default")
	}
}

// A file that is not TOML, or gives a key a value of the wrong type, is
// ignored as a whole, with a warning naming it.
func TestBadFilesWarnAndFallBack(t *testing.T) {
	for name, text := range map[string]string{
		"syntax":     "max_skills = = 3",
		"wrong type": "max_skills = \"two\"",
	} {
		t.Run(name, func(t *testing.T) {
			cfgDir := t.TempDir()
			write(t, filepath.Join(cfgDir, "config.toml"), text)
			var warnings []string
			c := Load(cfgDir, t.TempDir(), func(s string) { warnings = append(warnings, s) })
			if len(warnings) != 1 || !strings.Contains(warnings[0], "config.toml") {
				t.Fatalf("want one warning naming the file, got %v", warnings)
			}
			if c.MaxSkills != nil || c.InjectMode != "" || len(c.Files) != 0 {
				t.Fatalf("bad file should leave defaults: %+v", c)
			}
		})
	}
}

func TestProjectFileStopsAtRepoRoot(t *testing.T) {
	outer := t.TempDir()
	write(t, filepath.Join(outer, ".ski.toml"), "max_skills = 9\n")
	repo := filepath.Join(outer, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	if p := FindProjectFile(repo); p != "" {
		t.Fatalf("found %s above the repository root", p)
	}
	if p := FindProjectFile("relative/dir"); p != "" {
		t.Fatalf("relative dir: %s", p)
	}
}

// An unknown key, a retired key or a bad value is one warning naming the
// key (and the nearest valid one); the rest of the file applies, and
// Sources says which file set each key in force.
func TestBadKeysWarnAndTheRestApplies(t *testing.T) {
	cfgDir := t.TempDir()
	user := filepath.Join(cfgDir, "config.toml")
	write(t, user, "max_skils = 3\ninject_similarity = 0.6\ndecision_cache_ttl = \"10m\"\n"+
		"inject_mode = \"everything\"\nchar_budget = -1\nnotify = true\n[gates]\nmin = 1\n")
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	project := filepath.Join(repo, ".ski.toml")
	write(t, project, "notify = false\nmax_skills = 1\n")
	var warnings []string
	c := Load(cfgDir, repo, func(s string) { warnings = append(warnings, s) })
	want := []string{
		user + ": unknown key max_skils (did you mean max_skills?)",
		user + ": decision_cache_ttl is no longer used",
		user + ": inject_mode \"everything\": want one of directive, body; ignored",
		user + ": char_budget -1: must not be negative; ignored",
		user + ": unknown key gates (did you mean",
	}
	if len(warnings) != len(want) {
		t.Fatalf("want %d warnings, got %q", len(want), warnings)
	}
	for _, w := range want {
		found := false
		for _, got := range warnings {
			found = found || strings.Contains(got, w)
		}
		if !found {
			t.Errorf("no warning %q in %q", w, warnings)
		}
	}
	if Float(c.InjectSimilarity, 0) != 0.6 || Bool(c.Notify, true) || Int(c.MaxSkills, 0) != 1 ||
		c.InjectMode != "" || c.CharBudget != nil || len(c.Files) != 2 {
		t.Fatalf("merged config: %+v", c)
	}
	wantSources := map[string]string{"inject_similarity": user, "notify": project, "max_skills": project}
	if len(c.Sources) != len(wantSources) {
		t.Fatalf("sources %v, want %v", c.Sources, wantSources)
	}
	for k, f := range wantSources {
		if c.Sources[k] != f {
			t.Errorf("source of %s: %q, want %q", k, c.Sources[k], f)
		}
	}
}

func TestNearest(t *testing.T) {
	for in, want := range map[string]string{"max_skill": "max_skills", "InjectMode": "inject_mode",
		"min-similarity": "min_similarity", "extra_root": "extra_roots", "onnx_runtime": "onnxruntime"} {
		if got := Nearest(in); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", in, got, want)
		}
	}
}

// max_suggestions takes 0 (no suggestions) to MaxSuggestionsLimit; a value
// out of range is reported and the layer below applies.
func TestMaxSuggestions(t *testing.T) {
	cfgDir, repo := layers(t, "max_suggestions = 0\n")
	for _, tt := range []struct {
		project  string
		want     int
		warnings int
	}{
		{"", 0, 0},
		{"max_suggestions = 2\n", 2, 0},
		{"max_suggestions = 6\n", 0, 1},
		{"max_suggestions = -1\n", 0, 1},
	} {
		write(t, filepath.Join(repo, ".ski.toml"), tt.project)
		var warnings []string
		c := Load(cfgDir, repo, func(s string) { warnings = append(warnings, s) })
		if got := Int(c.MaxSuggestions, DefaultMaxSuggestions); got != tt.want || len(warnings) != tt.warnings {
			t.Errorf("project %q: max_suggestions %d, warnings %q; want %d and %d warnings", tt.project, got, warnings, tt.want, tt.warnings)
		}
		if tt.warnings > 0 && !strings.Contains(warnings[0], "want 0 (no suggestions) to 5; ignored") {
			t.Errorf("warning %q", warnings[0])
		}
	}
	if Int(Load(t.TempDir(), "", func(string) {}).MaxSuggestions, DefaultMaxSuggestions) != 3 {
		t.Error("default max_suggestions is not 3")
	}
}

// inject_confidence and suggest_confidence are confidences, 0 to 1; a
// value out of range is reported and the layer below applies.
func TestConfidences(t *testing.T) {
	cfgDir, repo := layers(t, "inject_confidence = 0.7\n")
	for _, tt := range []struct {
		project       string
		inject, floor float64
		warnings      int
	}{
		{"", 0.7, -1, 0},
		{"inject_confidence = 0.9\nsuggest_confidence = 0.2\n", 0.9, 0.2, 0},
		{"inject_confidence = 1.5\n", 0.7, -1, 1},
		{"suggest_confidence = -0.1\n", 0.7, -1, 1},
	} {
		write(t, filepath.Join(repo, ".ski.toml"), tt.project)
		var warnings []string
		c := Load(cfgDir, repo, func(s string) { warnings = append(warnings, s) })
		if Float(c.InjectConfidence, -1) != tt.inject || Float(c.SuggestConfidence, -1) != tt.floor || len(warnings) != tt.warnings {
			t.Errorf("project %q: %v, %v, warnings %q", tt.project, Float(c.InjectConfidence, -1), Float(c.SuggestConfidence, -1), warnings)
		}
		if tt.warnings > 0 && !strings.Contains(warnings[0], "want a confidence from 0 to 1; ignored") {
			t.Errorf("warning %q", warnings[0])
		}
	}
}

// layers returns a config folder whose config.toml holds user and a
// repository whose .ski.toml a test writes.
func layers(t *testing.T, user string) (cfgDir, repo string) {
	cfgDir = t.TempDir()
	write(t, filepath.Join(cfgDir, "config.toml"), user)
	repo = t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	return cfgDir, repo
}
