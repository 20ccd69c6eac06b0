package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/record"
)

type result struct {
	code           int
	stdout, stderr string
}

// runCmd runs ski-scan with args and an environment of only vars.
func runCmd(t *testing.T, vars map[string]string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	env := cli.Env{
		Args:    args,
		Stdin:   strings.NewReader(""),
		Stdout:  &out,
		Stderr:  &errOut,
		Environ: environ.FromMap(vars),
	}
	code := cli.Main(name, env, run)
	return result{code, out.String(), errOut.String()}
}

// isolated is an environment with an empty home and config.
func isolated(t *testing.T) map[string]string {
	home := t.TempDir()
	return map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
}

type line struct {
	record.Skill
	Reason string `json:"reason"`
}

func parseLines(t *testing.T, out string) []line {
	t.Helper()
	var lines []line
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var r line
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("bad output line %q: %v", l, err)
		}
		lines = append(lines, r)
	}
	return lines
}

func writeSkill(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDemoSkills(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "skills"))
	r := runCmd(t, isolated(t), "--root", root)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	lines := parseLines(t, r.stdout)
	want := []struct {
		id, name string
		dmi      bool
		auto     bool
	}{
		{"data/csv-cleaning", "csv-cleaning", false, true},
		{"debugging/systematic-debugging", "systematic-debugging", false, true},
		{"docs/pdf-tools", "pdf-tools", false, true},
		{"frontend/react-performance", "react-performance", false, true},
		{"git-tools/git-attribution", "git-attribution", false, true},
		{"k8s/helm-chart", "helm-chart", false, true},
		{"meta/skill-index", "skill-index", false, false},
		{"ops/deploy-prod", "deploy-prod", true, true},
		{"python/uv-setup", "uv-setup", false, true},
		{"release/changelog", "changelog", false, true},
		{"security/secret-scan", "secret-scan", false, true},
		{"testing/pytest-patterns", "pytest-patterns", false, true},
		{"writing/postmortem", "postmortem", false, true},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), r.stdout)
	}
	for i, w := range want {
		l := lines[i]
		if l.Kind != record.KindSkill || l.ID != w.id || l.Name != w.name || l.Invoke != w.name ||
			l.DisableModelInvocation != w.dmi || l.AutoInject != w.auto || !l.UserInvocable ||
			l.Scope != record.ScopeUser || l.Host != record.HostClaude || l.Root != root ||
			l.Path != filepath.Join(root, filepath.FromSlash(w.id), "SKILL.md") ||
			!strings.HasPrefix(l.Hash, "sha256:") || l.Size == 0 || l.Mtime == "" || l.Description == "" {
			t.Errorf("line %d: %+v", i, l)
		}
	}
	// Every line carries the list fields as arrays.
	for _, raw := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.Contains(raw, "null") {
			t.Errorf("null in %s", raw)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	r := runCmd(t, isolated(t), "--help")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, s := range []string{"Ski-scan finds", "Usage:", "Output records:", "Exit status:", "Examples:", "Flags:", "-max-depth"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("--help lacks %q", s)
		}
	}
	for _, s := range []string{"/*", "*/", "package main", "\n# "} {
		if strings.Contains(r.stdout, s) {
			t.Errorf("--help contains %q", s)
		}
	}
	if r := runCmd(t, isolated(t), "--version"); r.code != 0 || !strings.HasPrefix(r.stdout, "ski-scan ") {
		t.Errorf("--version: %+v", r)
	}
}

func TestExitCodes(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"missing root", []string{"--root", filepath.Join(tmp, "nope")}, 1, "ski-scan: root " + filepath.Join(tmp, "nope") + ": stat: no such file or directory\n"},
		{"root is a file", []string{"--root", file}, 1, "not a directory"},
		{"missing cwd", []string{"--cwd", filepath.Join(tmp, "nope")}, 1, "--cwd " + filepath.Join(tmp, "nope") + ": no such directory"},
		{"bad host", []string{"--host", "vim"}, 2, `--host "vim": want claude or opencode`},
		{"bad flag", []string{"--frobnicate"}, 2, "flag provided but not defined"},
		{"argument", []string{"extra"}, 2, `unexpected argument "extra"`},
		{"negative depth", []string{"--max-depth", "-1"}, 2, "--max-depth -1"},
		{"zero size", []string{"--max-size", "0"}, 2, "--max-size 0"},
		{"empty root", []string{"--root", tmp}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, isolated(t), tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) || (tt.stderr == "" && r.stderr != "") {
				t.Errorf("exit %d stderr %q, want exit %d stderr containing %q", r.code, r.stderr, tt.code, tt.stderr)
			}
			// A bad flag makes the flag package print the usage (internal/cli
			// sends it to stdout); every other failure writes nothing there.
			if r.code != 0 && r.stdout != "" && tt.name != "bad flag" {
				t.Errorf("stdout on failure: %q", r.stdout)
			}
		})
	}
}

func TestErrorRecordsExitZero(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, filepath.Join(root, "good"), "good")
	if err := os.MkdirAll(filepath.Join(root, "bad"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bad", "SKILL.md"), []byte("no frontmatter"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, isolated(t), "--root", root)
	lines := parseLines(t, r.stdout)
	if r.code != 0 || len(lines) != 2 || lines[0].Kind != "skill" || lines[1].Kind != "error" || !strings.Contains(lines[1].Reason, "no frontmatter") {
		t.Errorf("exit %d, lines %+v", r.code, lines)
	}
}

// A usable skill that breaks a host's documented rule is a skill record and
// a warning record after the error records, for the host asked about.
func TestWarningRecords(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, filepath.Join(root, "good"), "good")
	long := "---\nname: Long_Name\ndescription: " + strings.Repeat("x", 1100) + "\n---\nbody\n"
	os.MkdirAll(filepath.Join(root, "long"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "long", "SKILL.md"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]int{"claude": 2, "opencode": 3} {
		r := runCmd(t, isolated(t), "--root", root, "--host", host)
		lines := parseLines(t, r.stdout)
		var warnings []string
		for _, l := range lines[2:] {
			if l.Kind != "warning" || l.ID != "long" {
				t.Errorf("%s: line after the skills: %+v", host, l)
			}
			warnings = append(warnings, l.Reason)
		}
		if r.code != 0 || lines[0].Kind != "skill" || lines[1].Kind != "skill" || len(warnings) != want ||
			!strings.Contains(warnings[0], `name "Long_Name"`) || !strings.Contains(warnings[1], "description is 1100 characters") {
			t.Errorf("%s: exit %d, warnings %q", host, r.code, warnings)
		}
	}
}

func TestRootsFromEnvAndConfig(t *testing.T) {
	vars := isolated(t)
	a, b, extra := t.TempDir(), t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(a, "one"), "one")
	writeSkill(t, filepath.Join(b, "two"), "two")
	writeSkill(t, filepath.Join(extra, "three"), "three")
	cfg := filepath.Join(vars["XDG_CONFIG_HOME"], "ski", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("extra_roots = [\""+extra+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars["SKI_ROOTS"] = a + string(os.PathListSeparator) + filepath.Join(a, "missing") + string(os.PathListSeparator) + b

	ids := func(r result) []string {
		var out []string
		for _, l := range parseLines(t, r.stdout) {
			out = append(out, l.Scope+":"+l.ID)
		}
		return out
	}
	cwd := t.TempDir()
	r := runCmd(t, vars, "--cwd", cwd)
	if got := strings.Join(ids(r), " "); r.code != 0 || got != "user:one user:two extra:extra:three" {
		t.Errorf("SKI_ROOTS: exit %d, got %q", r.code, got)
	}
	if !strings.Contains(r.stderr, "ski-scan: warning: SKI_ROOTS entry "+filepath.Join(a, "missing")) {
		t.Errorf("stderr %q", r.stderr)
	}
	// --root wins over SKI_ROOTS.
	r = runCmd(t, vars, "--cwd", cwd, "--root", b)
	if got := strings.Join(ids(r), " "); got != "user:two extra:extra:three" {
		t.Errorf("--root: got %q", got)
	}
}

func TestHostDiscovery(t *testing.T) {
	vars := isolated(t)
	home := vars["HOME"]
	project := t.TempDir()
	if err := os.Mkdir(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(home, ".claude", "skills", "mine"), "mine")
	writeSkill(t, filepath.Join(project, ".claude", "skills", "ours"), "ours")
	writeSkill(t, filepath.Join(project, ".opencode", "skills", "oc"), "oc")
	writeSkill(t, filepath.Join(vars["XDG_CONFIG_HOME"], "opencode", "skill", "global-oc"), "global-oc")
	for _, tt := range []struct{ host, want string }{
		{"claude", "user:mine project:project:ours"},
		{"opencode", "project:project:oc project:project:ours user:global-oc user:mine"},
	} {
		r := runCmd(t, vars, "--host", tt.host, "--cwd", project)
		var got []string
		for _, l := range parseLines(t, r.stdout) {
			got = append(got, l.Scope+":"+l.ID)
			if l.Host != tt.host {
				t.Errorf("host %q in %+v", l.Host, l)
			}
		}
		if r.code != 0 || strings.Join(got, " ") != tt.want {
			t.Errorf("%s: exit %d got %q want %q (stderr %q)", tt.host, r.code, got, tt.want, r.stderr)
		}
	}
}

func TestMaxDepthZero(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "top")
	writeSkill(t, filepath.Join(root, "sub"), "sub")
	r := runCmd(t, isolated(t), "--root", root, "--max-depth", "0")
	lines := parseLines(t, r.stdout)
	if len(lines) != 1 || lines[0].Name != "top" {
		t.Errorf("lines %+v", lines)
	}
}

func TestRelativeRootIsFromWorkingDirectory(t *testing.T) {
	base := t.TempDir()
	writeSkill(t, filepath.Join(base, "skills", "here"), "here")
	elsewhere := t.TempDir()
	t.Chdir(base)
	r := runCmd(t, isolated(t), "--cwd", elsewhere, "--root", "skills")
	lines := parseLines(t, r.stdout)
	if r.code != 0 || len(lines) != 1 || lines[0].Name != "here" || !filepath.IsAbs(lines[0].Root) {
		t.Errorf("exit %d stderr %q lines %+v", r.code, r.stderr, lines)
	}
}
