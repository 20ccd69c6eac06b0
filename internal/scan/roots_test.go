package scan

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/record"
)

// layout makes a fake machine: base/home, and a repository base/work/repo
// with cwd base/work/repo/sub/deeper. base/work is outside the repository.
func layout(t *testing.T) (base, home, repo, cwd string) {
	base = tempDir(t)
	home = mkdir(t, filepath.Join(base, "home"))
	repo = filepath.Join(base, "work", "repo")
	mkdir(t, filepath.Join(repo, ".git"))
	cwd = mkdir(t, filepath.Join(repo, "sub", "deeper"))
	return base, home, repo, cwd
}

func TestClaudeRoots(t *testing.T) {
	base, home, repo, cwd := layout(t)
	for _, d := range []string{
		filepath.Join(home, ".claude", "skills"),
		filepath.Join(cwd, ".claude", "skills"),
		filepath.Join(repo, ".claude", "skills"),
		filepath.Join(base, "work", ".claude", "skills"),          // above the repository: ignored
		filepath.Join(repo, "sub", "nested", ".claude", "skills"), // below cwd's parent, not on the path: ignored
	} {
		mkdir(t, d)
	}
	got := rootList(Roots(Options{Cwd: cwd, Home: home}), base)
	equal(t, "claude roots", got, []string{
		"user:home/.claude/skills",
		"project:work/repo/sub/deeper/.claude/skills",
		"project:work/repo/.claude/skills",
	})

	// CLAUDE_CONFIG_DIR moves the user folder.
	mkdir(t, filepath.Join(base, "cfg", "skills"))
	got = rootList(Roots(Options{Cwd: cwd, Home: home, ClaudeConfigDir: filepath.Join(base, "cfg")}), base)
	equal(t, "with CLAUDE_CONFIG_DIR", got[:1], []string{"user:cfg/skills"})

	// Outside a repository only cwd itself is a project directory.
	plain := mkdir(t, filepath.Join(base, "plain", "a"))
	mkdir(t, filepath.Join(base, "plain", ".claude", "skills"))
	mkdir(t, filepath.Join(plain, ".claude", "skills"))
	got = rootList(Roots(Options{Cwd: plain, Home: home}), base)
	equal(t, "no repository", got, []string{"user:home/.claude/skills", "project:plain/a/.claude/skills"})

	// Explicit roots replace the host's; extra roots come last.
	got = rootList(Roots(Options{Cwd: cwd, Home: home, Roots: []string{"~/x", "rel"}, ExtraRoots: []string{"/abs/e"}}), base)
	equal(t, "explicit", got, []string{"user:home/x", "user:work/repo/sub/deeper/rel", "extra:/abs/e"})
}

func TestOpencodeRoots(t *testing.T) {
	base, home, repo, cwd := layout(t)
	config := filepath.Join(home, ".config")
	for _, d := range []string{
		filepath.Join(cwd, ".opencode", "skill"),
		filepath.Join(cwd, ".claude", "skills"),
		filepath.Join(repo, ".opencode", "skills"),
		filepath.Join(repo, ".agents", "skills"),
		filepath.Join(base, "work", ".opencode", "skills"), // above the repository
		filepath.Join(config, "opencode", "skill"),
		filepath.Join(config, "opencode", "skills"),
		filepath.Join(home, ".opencode", "skills"),
		filepath.Join(home, ".claude", "skills"),
		filepath.Join(home, ".agents", "skills"),
		filepath.Join(base, "ocd", "skills"),
		filepath.Join(cwd, "vendor", "skills"),
		filepath.Join(home, "shared-skills"),
		filepath.Join(base, "abs-skills"),
	} {
		mkdir(t, d)
	}
	// skills.paths: JSONC with comments and trailing commas; relative
	// entries resolve against cwd, as opencode does.
	writeFile(t, filepath.Join(repo, "opencode.jsonc"), `{
  // project config
  "skills": {
    "paths": ["vendor/skills", /* a missing one: */ "nope",],
  },
}`)
	writeFile(t, filepath.Join(config, "opencode", "opencode.json"),
		`{"skills": {"paths": ["~/shared-skills", "`+filepath.Join(base, "abs-skills")+`"]}}`)
	writeFile(t, filepath.Join(cwd, "opencode.json"), `{"skills": `) // broken: warned, skipped

	var warnings []string
	o := Options{Host: record.HostOpencode, Cwd: cwd, Home: home, ConfigHome: config,
		OpencodeConfigDir: filepath.Join(base, "ocd"), Warn: func(s string) { warnings = append(warnings, s) }}
	got := rootList(Roots(o), base)
	equal(t, "opencode roots", got, []string{
		"project:work/repo/sub/deeper/vendor/skills",
		"project:work/repo/sub/deeper/.opencode/skill",
		"project:work/repo/sub/deeper/.claude/skills",
		"project:work/repo/.opencode/skills",
		"project:work/repo/.agents/skills",
		"user:home/shared-skills",
		"user:abs-skills",
		"user:ocd/skills",
		"user:home/.opencode/skills",
		"user:home/.config/opencode/skill",
		"user:home/.config/opencode/skills",
		"user:home/.agents/skills",
		"user:home/.claude/skills",
	})
	if len(warnings) != 2 || !strings.Contains(warnings[0], `skills.paths entry "nope"`) && !strings.Contains(warnings[1], `skills.paths entry "nope"`) {
		t.Errorf("warnings %q", warnings)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), filepath.Join(cwd, "opencode.json")+": ") {
		t.Errorf("no warning about the broken opencode.json: %q", warnings)
	}
}

func TestOpencodeScan(t *testing.T) {
	_, home, repo, cwd := layout(t)
	writeSkill(t, filepath.Join(repo, ".opencode", "skills", "from-opencode"), "")
	writeSkill(t, filepath.Join(cwd, ".agents", "skills", "tools", "from-agents"), "")
	writeSkill(t, filepath.Join(home, ".claude", "skills", "from-claude"), "")
	writeSkill(t, filepath.Join(cwd, "extra", "paths-skill"), "")
	writeFile(t, filepath.Join(cwd, "opencode.json"), `{"skills":{"paths":["extra"]}}`)
	res := mustScan(t, Options{Host: record.HostOpencode, Cwd: cwd, Home: home})
	equal(t, "ids", ids(res.Skills), []string{"project:from-opencode", "project:paths-skill", "project:tools/from-agents", "from-claude"})
	for _, s := range res.Skills {
		if s.Host != record.HostOpencode || s.Invoke != s.Name {
			t.Errorf("%+v", s)
		}
	}
	if s := findSkill(t, res, "from-claude"); s.Scope != record.ScopeUser {
		t.Errorf("scope %q", s.Scope)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
}

func TestClaudePlugins(t *testing.T) {
	base, home, repo, cwd := layout(t)
	claude := filepath.Join(home, ".claude")
	cache := filepath.Join(claude, "plugins", "cache", "market")

	// toolkit: enabled, manifest with a name and an extra skills folder.
	toolkit := filepath.Join(cache, "toolkit", "1.0.0")
	writeJSON(t, filepath.Join(toolkit, ".claude-plugin", "plugin.json"), map[string]any{"name": "toolkit", "skills": "./more"})
	writeSkill(t, filepath.Join(toolkit, "skills", "lint"), "lint")
	writeSkill(t, filepath.Join(toolkit, "more", "fmt"), "fmt")
	writeSkill(t, filepath.Join(toolkit, "skills", "review"), "review")
	// nomanifest: enabled, no plugin.json: named after its key.
	nomanifest := filepath.Join(cache, "nomanifest", "abc")
	writeSkill(t, filepath.Join(nomanifest, "skills", "hello"), "hello")
	// disabled: installed but turned off in the project's local settings.
	disabled := filepath.Join(cache, "disabled", "1")
	writeSkill(t, filepath.Join(disabled, "skills", "off"), "off")
	// scoped: installed twice, for this repository and for another one.
	here := filepath.Join(cache, "scoped", "here")
	there := filepath.Join(cache, "scoped", "there")
	writeSkill(t, filepath.Join(here, "skills", "pick"), "pick-here")
	writeSkill(t, filepath.Join(there, "skills", "pick"), "pick-there")
	// gone: enabled, but its install folder was deleted.
	// user skill with the same name as a plugin skill: no collision.
	writeSkill(t, filepath.Join(claude, "skills", "review"), "review")

	writeJSON(t, filepath.Join(claude, "settings.json"), map[string]any{
		"enabledPlugins": map[string]any{
			"toolkit@market": true, "nomanifest@market": true, "disabled@market": true,
			"scoped@market": true, "gone@market": true, "notinstalled@market": true, "weird@market": "yes",
		},
	})
	writeFile(t, filepath.Join(repo, ".claude", "settings.local.json"), `{"enabledPlugins": {"disabled@market": false}}`)
	writeJSON(t, filepath.Join(claude, "plugins", "installed_plugins.json"), map[string]any{
		"version": 2,
		"plugins": map[string]any{
			"toolkit@market":    []any{map[string]any{"scope": "user", "installPath": toolkit, "version": "1.0.0"}},
			"nomanifest@market": []any{map[string]any{"scope": "user", "installPath": nomanifest}},
			"disabled@market":   []any{map[string]any{"scope": "user", "installPath": disabled}},
			"scoped@market": []any{
				map[string]any{"scope": "project", "projectPath": filepath.Join(base, "elsewhere"), "installPath": there},
				map[string]any{"scope": "project", "projectPath": repo, "installPath": here},
			},
			"gone@market":  []any{map[string]any{"scope": "user", "installPath": filepath.Join(cache, "gone")}},
			"weird@market": []any{map[string]any{"scope": "user", "installPath": toolkit}},
		},
	})

	got := rootList(Roots(Options{Cwd: cwd, Home: home}), base)
	equal(t, "roots", got, []string{
		"user:home/.claude/skills",
		"plugin:home/.claude/plugins/cache/market/nomanifest/abc/skills:nomanifest",
		"plugin:home/.claude/plugins/cache/market/scoped/here/skills:scoped",
		"plugin:home/.claude/plugins/cache/market/toolkit/1.0.0/skills:toolkit",
		"plugin:home/.claude/plugins/cache/market/toolkit/1.0.0/more:toolkit",
	})

	res := mustScan(t, Options{Cwd: cwd, Home: home})
	var invokes []string
	for _, s := range res.Skills {
		invokes = append(invokes, s.Scope+":"+s.Invoke)
	}
	equal(t, "invokes", invokes, []string{
		"user:review", "plugin:nomanifest:hello", "plugin:scoped:pick-here", "plugin:toolkit:fmt",
		"plugin:toolkit:lint", "plugin:toolkit:review",
	})
	if len(res.Errors) != 0 {
		t.Errorf("errors %+v", res.Errors)
	}
	// opencode does not load Claude Code plugins.
	res = mustScan(t, Options{Host: record.HostOpencode, Cwd: cwd, Home: home})
	equal(t, "opencode", ids(res.Skills), []string{"review"})
}

func TestClaudePluginsV1AndBrokenFiles(t *testing.T) {
	base, home, _, cwd := layout(t)
	claude := filepath.Join(home, ".claude")
	p := filepath.Join(base, "plug")
	writeSkill(t, filepath.Join(p, "skills", "s"), "s")
	writeFile(t, filepath.Join(p, ".claude-plugin", "plugin.json"), `{"name": "old", "skills": ["./skills", "../escape"]}`)
	writeFile(t, filepath.Join(claude, "settings.json"), `{"enabledPlugins": {"old@m": true}}`)
	writeJSON(t, filepath.Join(claude, "plugins", "installed_plugins.json"), map[string]any{
		"version": 1, "plugins": map[string]any{"old@m": map[string]any{"installPath": p, "version": "0.1"}},
	})
	mkdir(t, filepath.Join(base, "escape"))
	got := rootList(Roots(Options{Cwd: cwd, Home: home}), base)
	equal(t, "v1", got, []string{"plugin:plug/skills:old"})

	// Broken JSON anywhere: warn, skip the plugins, keep scanning.
	writeFile(t, filepath.Join(claude, "plugins", "installed_plugins.json"), `{"plugins": [`)
	writeSkill(t, filepath.Join(claude, "skills", "u"), "u")
	var warnings []string
	res := mustScan(t, Options{Cwd: cwd, Home: home, Warn: func(s string) { warnings = append(warnings, s) }})
	equal(t, "ids", ids(res.Skills), []string{"u"})
	if len(warnings) != 1 || !strings.Contains(warnings[0], "installed_plugins.json") {
		t.Errorf("warnings %q", warnings)
	}
}

func TestStripJSONC(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{"{\"a\": 1, // c\n}", "{\"a\": 1      \n}"},
		{`{"a": "x // not a comment", "b": "/* nor this */",}`, `{"a": "x // not a comment", "b": "/* nor this */" }`},
		{`{"a": [1, 2, /* c */ ], }`, `{"a": [1, 2          ]  }`},
		{`{"a": "esc \" // still string"}`, `{"a": "esc \" // still string"}`},
	}
	for _, tt := range tests {
		got := string(stripJSONC([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("stripJSONC(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		var v any
		if err := json.Unmarshal([]byte(got), &v); err != nil {
			t.Errorf("%q: not JSON after stripping: %v", tt.in, err)
		}
	}
}

// Places lists the folders a scan looks in, those that do not exist too;
// Roots only those that do.
func TestPlaces(t *testing.T) {
	home := tempDir(t)
	cwd := filepath.Join(home, "proj")
	o := Options{Host: record.HostClaude, Cwd: cwd, Home: home}
	if r := Roots(o); len(r) != 0 {
		t.Fatalf("roots of an empty machine: %+v", r)
	}
	want := []string{filepath.Join(home, ".claude", "skills"), filepath.Join(cwd, ".claude", "skills")}
	if got := Places(o); strings.Join(got, ":") != strings.Join(want, ":") {
		t.Fatalf("places: %v, want %v", got, want)
	}
}
