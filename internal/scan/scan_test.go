package scan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/skill"
)

func TestIDsAndSkips(t *testing.T) {
	root := filepath.Join(tempDir(t), "skills")
	writeSkill(t, root, "") // a SKILL.md in the root itself
	writeSkill(t, filepath.Join(root, "a"), "a")
	writeSkill(t, filepath.Join(root, "a", "b"), "ab") // nested below another skill
	writeSkill(t, filepath.Join(root, "c", "d", "e"), "cde")
	writeSkill(t, filepath.Join(root, ".hidden", "x"), "hidden")
	writeSkill(t, filepath.Join(root, "node_modules", "pkg"), "pkg")
	writeSkill(t, filepath.Join(root, "c", ".git", "y"), "git")
	writeFile(t, filepath.Join(root, "a", "skill.md"), "not the right case")

	res := mustScan(t, Options{Roots: []string{root}, Home: tempDir(t)})
	equal(t, "ids", ids(res.Skills), []string{"a", "a/b", "c/d/e", "skills"})
	if len(res.Errors) != 0 {
		t.Errorf("errors: %+v", res.Errors)
	}
	s := findSkill(t, res, "skills")
	if s.Name != "skills" || s.Path != filepath.Join(root, "SKILL.md") || s.Dir != root || s.Root != root {
		t.Errorf("root-level skill: %+v", s)
	}
	ab := findSkill(t, res, "a/b")
	if ab.Dir != filepath.Join(root, "a", "b") || ab.Name != "ab" || ab.Invoke != "ab" {
		t.Errorf("a/b: %+v", ab)
	}
}

func TestRecordFields(t *testing.T) {
	root := tempDir(t)
	p := writeFile(t, filepath.Join(root, "x", "SKILL.md"), "---\nname: ex\ndescription: Example.\n"+
		"keywords: [k]\naliases: al\ntags: [t]\naffinity: [other]\ndisable-model-invocation: true\n"+
		"user-invocable: false\nautoInject: false\n---\nbody\n")
	res := mustScan(t, Options{Roots: []string{root}, Host: record.HostOpencode, Home: tempDir(t)})
	s := findSkill(t, res, "x")
	data, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	f, _ := skill.ReadFile(p, 0)
	want := record.Skill{
		Kind: record.KindSkill, ID: "x", Name: "ex", Description: "Example.", Invoke: "ex",
		Path: p, Dir: filepath.Dir(p), Root: root, Scope: record.ScopeUser, Host: record.HostOpencode,
		Keywords: []string{"k"}, Aliases: []string{"al"}, Tags: []string{"t"}, Affinity: []string{"other"},
		DisableModelInvocation: true, UserInvocable: false, AutoInject: false,
		Hash: f.Hash(), Mtime: st.ModTime().UTC().Format("2006-01-02T15:04:05Z"), Size: int64(len(data)),
	}
	got, _ := json.Marshal(s)
	exp, _ := json.Marshal(want)
	if !bytes.Equal(got, exp) {
		t.Errorf("record\n got %s\nwant %s", got, exp)
	}
}

func TestEmptyListsAreArrays(t *testing.T) {
	root := tempDir(t)
	writeSkill(t, filepath.Join(root, "x"), "x")
	var out bytes.Buffer
	w := ndjson.NewWriter(&out)
	if _, err := Run(Options{Roots: []string{root}, Home: tempDir(t)}, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	line := out.String()
	for _, k := range []string{"keywords", "aliases", "tags", "affinity"} {
		if !strings.Contains(line, `"`+k+`":[]`) {
			t.Errorf("%s is not [] in %s", k, line)
		}
	}
	if strings.Contains(line, "null") || strings.Contains(line, "shadows") {
		t.Errorf("unexpected null or shadows: %s", line)
	}
}

func TestDepthBound(t *testing.T) {
	root := tempDir(t)
	writeSkill(t, root, "top")
	dir := root
	for i := 1; i <= 8; i++ {
		dir = filepath.Join(dir, "d")
		writeSkill(t, dir, "")
	}
	deep := func(n int) []string {
		out := []string{filepath.Base(root)}
		id := ""
		for i := 1; i <= n; i++ {
			id = strings.TrimPrefix(id+"/d", "/")
			out = append(out, id)
		}
		return out
	}
	tests := []struct {
		maxDepth int
		want     []string
	}{
		{0, deep(DefaultMaxDepth)},
		{-1, deep(0)},
		{1, deep(1)},
		{3, deep(3)},
		{20, deep(8)},
	}
	for _, tt := range tests {
		// Names clash ("d" everywhere), so count skills and shadowed ones.
		res := mustScan(t, Options{Roots: []string{root}, MaxDepth: tt.maxDepth, Home: tempDir(t)})
		var got []string
		got = append(got, ids(res.Skills)...)
		got = append(got, errIDs(res.Errors)...)
		slices.Sort(got)
		equal(t, "ids at max depth "+strconv.Itoa(tt.maxDepth), got, tt.want)
	}
}

func TestSymlinkLoopsEnd(t *testing.T) {
	base := tempDir(t)
	root := filepath.Join(base, "root")
	writeSkill(t, filepath.Join(root, "a"), "a")
	symlink(t, root, filepath.Join(root, "a", "up"))                                         // to an ancestor
	symlink(t, filepath.Join(root, "c"), filepath.Join(root, "b"))                           // b -> c
	symlink(t, filepath.Join(root, "b"), filepath.Join(root, "c", "back"))                   // c/back -> b
	symlink(t, filepath.Join(root, "self"), filepath.Join(root, "self"))                     // ELOOP
	symlink(t, filepath.Join(base, "outside"), filepath.Join(root, "linked"))                // a followed link
	symlink(t, filepath.Join(root, "a", "SKILL.md"), filepath.Join(root, "dup", "SKILL.md")) // same file again
	writeSkill(t, filepath.Join(base, "outside"), "outside")

	res := mustScan(t, Options{Roots: []string{root}, Home: tempDir(t)})
	equal(t, "ids", ids(res.Skills), []string{"a", "linked"})
	if len(res.Errors) != 0 {
		t.Errorf("errors: %+v", res.Errors)
	}
}

func TestSameFileTwiceAcrossRoots(t *testing.T) {
	base := tempDir(t)
	home := filepath.Join(base, "home")
	project := filepath.Join(base, "project")
	mkdir(t, filepath.Join(project, ".git"))
	writeSkill(t, filepath.Join(home, ".claude", "skills", "shared"), "shared")
	// The project links one of its skills to the user's copy.
	symlink(t, filepath.Join(home, ".claude", "skills", "shared"), filepath.Join(project, ".claude", "skills", "linked"))

	res := mustScan(t, Options{Cwd: project, Home: home})
	if len(res.Skills) != 1 || len(res.Errors) != 0 {
		t.Fatalf("want one skill, no errors; got %v %+v", ids(res.Skills), res.Errors)
	}
	if s := res.Skills[0]; s.Scope != record.ScopeUser || s.ID != "shared" || len(s.Shadows) != 0 {
		t.Errorf("skill: %+v", s)
	}

	// cwd == home: ~/.claude/skills is both the user and a project root.
	res = mustScan(t, Options{Cwd: home, Home: home})
	if len(res.Skills) != 1 || res.Skills[0].Scope != record.ScopeUser || len(res.Errors) != 0 {
		t.Errorf("cwd=home: %+v %+v", res.Skills, res.Errors)
	}
	// opencode ranks project roots first, but a user root reached as one
	// keeps its skills' ids: they do not change with the cwd.
	res = mustScan(t, Options{Host: record.HostOpencode, Cwd: home, Home: home})
	if len(res.Skills) != 1 || res.Skills[0].ID != "shared" {
		t.Errorf("opencode, cwd=home: %+v", res.Skills)
	}
}

// collisionSetup puts testdata/scan/collision in a fake home and project.
func collisionSetup(t *testing.T) (home, project string) {
	base := tempDir(t)
	home = filepath.Join(base, "home")
	project = filepath.Join(base, "project")
	mkdir(t, filepath.Join(project, ".git"))
	copyTree(t, filepath.Join("..", "..", "testdata", "scan", "collision", "user"), filepath.Join(home, ".claude", "skills"))
	copyTree(t, filepath.Join("..", "..", "testdata", "scan", "collision", "project"), filepath.Join(project, ".claude", "skills"))
	return home, project
}

func TestShadowing(t *testing.T) {
	home, project := collisionSetup(t)
	userPath := filepath.Join(home, ".claude", "skills", "shared-a", "SKILL.md")
	projPath := filepath.Join(project, ".claude", "skills", "shared-b", "SKILL.md")
	tests := []struct {
		host              string
		winner, loser     string
		winScope, loseScp string
	}{
		// Claude Code: personal skills override project ones.
		{record.HostClaude, userPath, projPath, record.ScopeUser, record.ScopeProject},
		// opencode: the project directory is read last and wins.
		{record.HostOpencode, projPath, userPath, record.ScopeProject, record.ScopeUser},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			res := mustScan(t, Options{Host: tt.host, Cwd: project, Home: home, ConfigHome: filepath.Join(home, ".config")})
			if len(res.Skills) != 1 || len(res.Errors) != 1 {
				t.Fatalf("got skills %v errors %+v", ids(res.Skills), res.Errors)
			}
			s, e := res.Skills[0], res.Errors[0]
			if s.Path != tt.winner || s.Scope != tt.winScope {
				t.Errorf("winner %s (%s), want %s (%s)", s.Path, s.Scope, tt.winner, tt.winScope)
			}
			equal(t, "shadows", s.Shadows, []string{tt.loser})
			want := "shadowed by " + tt.winner + `: both are invoked as "shared"; the ` + tt.winScope + " skill wins over the " + tt.loseScp + " one"
			if e.Kind != record.KindError || e.Path != tt.loser || e.Reason != want || e.ShadowedBy != tt.winner {
				t.Errorf("error record %+v\nwant reason %q", e, want)
			}
		})
	}
}

func TestShadowingSameScope(t *testing.T) {
	root := tempDir(t)
	writeSkill(t, filepath.Join(root, "b"), "same")
	writeSkill(t, filepath.Join(root, "a"), "same")
	other := tempDir(t)
	writeSkill(t, filepath.Join(other, "0"), "same")
	res := mustScan(t, Options{Roots: []string{root, other}, Home: tempDir(t)})
	equal(t, "kept", ids(res.Skills), []string{"a"})
	equal(t, "shadowed", errIDs(res.Errors), []string{"0", "b"})
	if e := findError(t, res, "b"); !strings.Contains(e.Reason, "both are user skills and the earlier root, then the smaller id, wins") {
		t.Errorf("reason %q", e.Reason)
	}
	equal(t, "shadows", findSkill(t, res, "a").Shadows, []string{filepath.Join(root, "b", "SKILL.md"), filepath.Join(other, "0", "SKILL.md")})
}

func TestKeepShadowed(t *testing.T) {
	root := tempDir(t)
	writeSkill(t, filepath.Join(root, "b"), "same")
	writeSkill(t, filepath.Join(root, "a"), "same")
	res := mustScan(t, Options{Roots: []string{root}, Home: tempDir(t), KeepShadowed: true})
	equal(t, "kept", ids(res.Skills), []string{"a", "b"})
	equal(t, "errors", errIDs(res.Errors), nil)
}

func TestBadInputs(t *testing.T) {
	base := tempDir(t)
	root := filepath.Join(base, "bad")
	copyTree(t, filepath.Join("..", "..", "testdata", "scan", "bad"), root)
	writeFile(t, filepath.Join(root, "binary", "SKILL.md"), "---\nname: binary\x00\x01\x02\n---\n")
	writeFile(t, filepath.Join(root, "latin1", "SKILL.md"), "---\nname: latin1\ndescription: caf\xe9 cr\xe8me\n---\n")
	writeFile(t, filepath.Join(root, "oversized", "SKILL.md"), "---\nname: oversized\ndescription: d\n---\n"+strings.Repeat("x", 300<<10))
	mkdir(t, filepath.Join(root, "dir-named", "SKILL.md"))
	symlink(t, filepath.Join(base, "nowhere"), filepath.Join(root, "dangling", "SKILL.md"))
	fifo := filepath.Join(mkdir(t, filepath.Join(root, "fifo")), "SKILL.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// Valid, despite the CRLF endings and BOM.
	writeFile(t, filepath.Join(root, "crlf-bom", "SKILL.md"), "\xef\xbb\xbf---\r\nname: crlf-bom\r\ndescription: Windows file.\r\n---\r\nbody\r\n")

	want := map[string]string{
		"bad-bool":          `autoInject: want true or false, got "sometimes"`,
		"bad-name":          `invalid name "has a space": contains whitespace`,
		"description-list":  "description must be a string, got a list",
		"duplicate-key":     `duplicate frontmatter key "description" (lines 3 and 4)`,
		"empty-description": "empty description",
		"malformed-yaml":    "malformed frontmatter: line 3: mapping values are not allowed in this context",
		"no-description":    "no description",
		"no-frontmatter":    "no frontmatter: the file must begin with a --- line",
		"not-a-mapping":     "frontmatter is not a YAML mapping",
		"unclosed":          "frontmatter is not closed: no --- line after line 1",
		"binary":            "binary file: NUL byte at byte offset 16",
		"latin1":            "invalid UTF-8 at line 3 (byte offset 33)",
		"oversized":         "over the 262144-byte size limit",
		"dir-named":         "SKILL.md is a directory",
		"dangling":          "broken symlink",
		"fifo":              "not a regular file",
	}
	res := mustScan(t, Options{Roots: []string{root}, Home: tempDir(t)})
	equal(t, "skills", ids(res.Skills), []string{"crlf-bom"})
	if len(res.Errors) != len(want) {
		t.Errorf("got %d error records, want %d: %v", len(res.Errors), len(want), errIDs(res.Errors))
	}
	for id, reason := range want {
		e := findError(t, res, id)
		if !strings.Contains(e.Reason, reason) {
			t.Errorf("%s: reason %q, want it to contain %q", id, e.Reason, reason)
		}
		if e.Kind != record.KindError || e.Root != root || e.Path != filepath.Join(root, id, "SKILL.md") {
			t.Errorf("%s: record %+v", id, e)
		}
	}
	// The error records are sorted by id.
	got := errIDs(res.Errors)
	sorted := append([]string(nil), got...)
	slices.Sort(sorted)
	equal(t, "error order", got, sorted)

	// A bigger cap lets the oversized file through.
	res = mustScan(t, Options{Roots: []string{filepath.Join(root, "oversized")}, MaxSize: 1 << 20, Home: tempDir(t)})
	equal(t, "with a bigger cap", ids(res.Skills), []string{"oversized"})
}

func TestUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	root := tempDir(t)
	writeSkill(t, filepath.Join(root, "ok"), "ok")
	locked := mkdir(t, filepath.Join(root, "locked"))
	writeSkill(t, filepath.Join(locked, "x"), "x")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	res := mustScan(t, Options{Roots: []string{root}, Home: tempDir(t)})
	equal(t, "skills", ids(res.Skills), []string{"ok"})
	if e := findError(t, res, "locked"); !strings.Contains(e.Reason, "unreadable directory") {
		t.Errorf("reason %q", e.Reason)
	}
}

func TestExplicitAndExtraRoots(t *testing.T) {
	base := tempDir(t)
	_, err := Scan(Options{Roots: []string{filepath.Join(base, "missing")}, Home: base})
	if err == nil || !strings.Contains(err.Error(), "root "+filepath.Join(base, "missing")) {
		t.Errorf("missing explicit root: err = %v", err)
	}
	file := writeFile(t, filepath.Join(base, "file"), "x")
	if _, err := Scan(Options{Roots: []string{file}, Home: base}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as root: err = %v", err)
	}
	if _, err := Scan(Options{Host: "vim", Home: base}); err == nil || !strings.Contains(err.Error(), `unknown host "vim"`) {
		t.Errorf("bad host: err = %v", err)
	}

	root := filepath.Join(base, "r")
	writeSkill(t, filepath.Join(root, "a"), "a")
	extra := filepath.Join(base, "extra")
	writeSkill(t, filepath.Join(extra, "e"), "e")
	writeSkill(t, filepath.Join(extra, "a"), "a") // loses to the user-scope one
	var warnings []string
	res := mustScan(t, Options{
		Cwd:        base,
		Roots:      []string{"r"}, // relative to Cwd
		ExtraRoots: []string{extra, filepath.Join(base, "nope")},
		Home:       base,
		Warn:       func(s string) { warnings = append(warnings, s) },
	})
	equal(t, "skills", ids(res.Skills), []string{"a", "extra:e"})
	if s := findSkill(t, res, "extra:e"); s.Scope != record.ScopeExtra {
		t.Errorf("extra scope: %+v", s)
	}
	equal(t, "shadowed", errIDs(res.Errors), []string{"extra:a"})
	if len(warnings) != 1 || !strings.Contains(warnings[0], "extra root "+filepath.Join(base, "nope")) {
		t.Errorf("warnings %q", warnings)
	}
}

func TestRunOrderAndDeterminism(t *testing.T) {
	home, project := collisionSetup(t)
	writeSkill(t, filepath.Join(project, ".claude", "skills", "p"), "p")
	writeFile(t, filepath.Join(project, ".claude", "skills", "broken", "SKILL.md"), "nope")
	o := Options{Cwd: project, Home: home}
	run := func() string {
		var out bytes.Buffer
		w := ndjson.NewWriter(&out)
		if _, err := Run(o, w); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	first := run()
	if second := run(); first != second {
		t.Errorf("two runs differ:\n%s\n%s", first, second)
	}
	var kinds, keys []string
	for _, line := range strings.Split(strings.TrimSpace(first), "\n") {
		var r struct{ Kind, ID, Scope string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		kinds = append(kinds, r.Kind)
		keys = append(keys, r.Scope+":"+r.ID)
	}
	equal(t, "kinds", kinds, []string{"skill", "skill", "error", "error"})
	// Claude: user before project, then by id.
	equal(t, "order", keys[:2], []string{"user:shared-a", "project:project:p"})
	equal(t, "error order", keys[2:], []string{":project:broken", ":project:shared-b"})
}

func TestCorpus(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "skills-corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("skills corpus not found at %s (it lives beside the repository in ../shared)", corpus)
	}
	abs, _ := filepath.Abs(corpus)
	res := mustScan(t, Options{Roots: []string{abs}, Home: tempDir(t)})
	n := 0
	for _, e := range res.Errors {
		// Different repositories reuse a few names; that is shadowing,
		// not a parse failure.
		if !strings.HasPrefix(e.Reason, "shadowed by ") {
			t.Errorf("%s: %s", e.Path, e.Reason)
		}
		n++
	}
	n += len(res.Skills)
	files, _ := filepath.Glob(filepath.Join(abs, "*", "*", "SKILL.md"))
	if n != len(files) || n == 0 {
		t.Errorf("scanned %d SKILL.md files, the corpus has %d", n, len(files))
	}
	for _, s := range res.Skills {
		if s.Description == "" || s.Name == "" {
			t.Errorf("%s: empty name or description", s.Path)
		}
	}
}

func TestDemoSkills(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "skills"))
	res := mustScan(t, Options{Roots: []string{root}, Home: tempDir(t)})
	if len(res.Errors) != 0 {
		t.Errorf("errors: %+v", res.Errors)
	}
	equal(t, "ids", ids(res.Skills), []string{
		"data/csv-cleaning", "debugging/systematic-debugging", "docs/pdf-tools",
		"frontend/react-performance", "git-tools/git-attribution", "k8s/helm-chart",
		"meta/skill-index", "ops/deploy-prod", "python/uv-setup", "release/changelog",
		"security/secret-scan", "testing/pytest-patterns", "writing/postmortem",
	})
	for _, s := range res.Skills {
		if want := filepath.Base(s.ID); s.Name != want {
			t.Errorf("%s: name %q, want %q", s.ID, s.Name, want)
		}
		dmi := s.ID == "ops/deploy-prod"
		auto := s.ID != "meta/skill-index"
		if s.DisableModelInvocation != dmi || s.AutoInject != auto || !s.UserInvocable {
			t.Errorf("%s: policy %v %v %v", s.ID, s.DisableModelInvocation, s.AutoInject, s.UserInvocable)
		}
	}
	equal(t, "uv affinity", findSkill(t, res, "python/uv-setup").Affinity, []string{"pytest-patterns"})
	equal(t, "pytest affinity", findSkill(t, res, "testing/pytest-patterns").Affinity, []string{"uv-setup"})
	if kw := findSkill(t, res, "k8s/helm-chart").Keywords; len(kw) == 0 || kw[0] != "helm" {
		t.Errorf("helm keywords %q", kw)
	}
}

// A symlink to / (or into a system tree) below a root is not followed, and
// the scan says so; a walk that meets too many entries stops and says so.
func TestWalkBounded(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "good"), 0o755)
	os.WriteFile(filepath.Join(root, "good", "SKILL.md"), []byte("---\nname: good\ndescription: a good skill\n---\n"), 0o644)
	os.Symlink("/", filepath.Join(root, "everything"))
	os.Symlink("/proc", filepath.Join(root, "proc"))
	hits, problems := walk(root, DefaultMaxDepth, nil)
	if len(hits) != 1 || hits[0].id != "good" {
		t.Fatalf("hits %+v", hits)
	}
	if len(problems) != 2 || !strings.Contains(problems[0].reason, "system tree") || !strings.Contains(problems[1].reason, "system tree") {
		t.Fatalf("problems %+v", problems)
	}

	defer func(n int) { maxEntries = n }(maxEntries)
	maxEntries = 500
	wide := t.TempDir()
	for i := range 6 {
		d := filepath.Join(wide, fmt.Sprintf("d%03d", i))
		os.Mkdir(d, 0o755)
		for j := range 100 {
			os.WriteFile(filepath.Join(d, fmt.Sprintf("f%04d", j)), nil, 0o644)
		}
	}
	_, problems = walk(wide, DefaultMaxDepth, nil)
	if len(problems) != 1 || !strings.Contains(problems[0].reason, "walk stopped after 500 entries") {
		t.Fatalf("problems %+v", problems)
	}
}

// A personal, a project and a plugin skill in folders of the same name are
// three skills with three ids; skills under explicit roots keep their
// folder as their id; LegacyID gives back the id ski gave them before.
func TestIDsUniquePerSource(t *testing.T) {
	ids := map[string]string{}
	user := Root{Path: "/home/u/.claude/skills", Scope: record.ScopeUser}
	user2 := Root{Path: "/home/u/.config/opencode/skills", Scope: record.ScopeUser}
	project := Root{Path: "/p/.claude/skills", Scope: record.ScopeProject}
	plugin := Root{Path: "/plugins/kit/skills", Scope: record.ScopePlugin, Plugin: "kit"}
	explicit := Root{Path: "/r", Scope: record.ScopeUser, Explicit: true}
	got := []string{
		sourceID(user, "review", ids), sourceID(project, "review", ids), sourceID(plugin, "review", ids),
		sourceID(user2, "review", ids), sourceID(user, "review", ids),
	}
	want := []string{"review", "project:review", "plugin:kit/review", "review@" + hexPrefix("/home/u/.config/opencode/skills"), "review"}
	equal(t, "ids", got, want)
	if id := sourceID(explicit, "writing/postmortem", map[string]string{}); id != "writing/postmortem" {
		t.Errorf("explicit root: %q", id)
	}
	for _, id := range got {
		if record.LegacyID(id) != "review" {
			t.Errorf("LegacyID(%q) = %q", id, record.LegacyID(id))
		}
	}
}

func hexPrefix(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}
