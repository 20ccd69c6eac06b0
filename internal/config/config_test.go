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

func TestBadFilesWarnAndFallBack(t *testing.T) {
	for name, text := range map[string]string{
		"syntax":      "max_skills = = 3",
		"unknown key": "max_skils = 3",
		"bad enum":    "inject_mode = \"everything\"",
		"negative":    "max_skills = -1",
		"wrong type":  "max_skills = \"two\"",
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
