package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The real host CLIs, installed by scripts/host-tools.sh, driven headless
// against fakeAPI with ski installed by scripts/install.sh into an isolated
// home. scripts/test.sh installs them and sets SKI_REQUIRE_HOSTS=1: then a
// missing CLI fails the test instead of skipping it. Without the variables
// host-tools.sh prints, the tests use what it installed before, if anything.

var (
	hostToolsOnce sync.Once
	hostToolsEnv  map[string]string
	hostToolsErr  string
)

// hostTool returns the path in env var key (from scripts/host-tools.sh), or
// skips — or fails under SKI_REQUIRE_HOSTS=1.
func hostTool(t *testing.T, key string) string {
	t.Helper()
	p := os.Getenv(key)
	if p == "" {
		hostToolsOnce.Do(func() {
			cmd := exec.Command(filepath.Join(repo, "scripts", "host-tools.sh"), "--no-install")
			var errb bytes.Buffer
			cmd.Stderr = &errb
			out, err := cmd.Output()
			if err != nil {
				hostToolsErr = fmt.Sprintf("scripts/host-tools.sh --no-install: %v: %s", err, strings.TrimSpace(errb.String()))
				return
			}
			hostToolsEnv = map[string]string{}
			for _, line := range strings.Split(string(out), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					hostToolsEnv[k] = v
				}
			}
		})
		p = hostToolsEnv[key]
	}
	if p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("%s is not an existing file (%s): run scripts/host-tools.sh first (scripts/test.sh does)", key, hostToolsErr)
	if os.Getenv("SKI_REQUIRE_HOSTS") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// hostHome is an isolated user with the demo skills in ~/.claude/skills and
// ski installed by scripts/install.sh for host.
type hostHome struct {
	t       *testing.T
	home    string
	project string // the working directory the CLIs run in
	skills  string // ~/.claude/skills
	env     []string
}

func newHostHome(t *testing.T, host string, extraSkills ...string) *hostHome {
	t.Helper()
	home := t.TempDir()
	stopServersUnder(t, home)
	h := &hostHome{t: t, home: home, project: filepath.Join(home, "shop"), skills: filepath.Join(home, ".claude", "skills")}
	for _, d := range []string{h.project, h.skills} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Claude Code sees ~/.claude/skills/<name>/SKILL.md, one level deep.
	dirs, _ := filepath.Glob(filepath.Join(repo, "testdata", "skills", "*", "*"))
	for _, d := range append(dirs, extraSkills...) {
		if out, err := exec.Command("cp", "-r", d, h.skills).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	path := os.Getenv("PATH")
	if host == "opencode" { // its skill tool runs rg
		path = filepath.Dir(hostTool(t, "SKI_RG")) + string(os.PathListSeparator) + path
	}
	h.env = []string{
		"HOME=" + home,
		"PATH=" + path,
		"USER=ski-test",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
	}
	install := exec.Command(filepath.Join(repo, "scripts", "install.sh"), host)
	install.Env = append(scriptEnv(t, home), h.env...)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install.sh %s: %v\n%s", host, err, out)
	}
	return h
}

func (h *hostHome) environ(extra ...string) []string {
	return append(append([]string(nil), h.env...), extra...)
}

// config writes ~/.config/ski/config.toml.
func (h *hostHome) config(text string) {
	h.t.Helper()
	dir := filepath.Join(h.home, ".config", "ski")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// cli runs a host CLI in the project directory and returns its stdout.
func (h *hostHome) cli(env []string, name string, args ...string) string {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Dir = h.project
	cmd.WaitDelay = 5 * time.Second // children holding the pipes must not hang the test
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	h.t.Logf("%s %s: %v in %v", filepath.Base(name), strings.Join(args, " "), err, time.Since(start).Round(time.Millisecond))
	if err != nil {
		h.t.Fatalf("%s %v: %v\nstdout: %s\nstderr: %s\nhook log: %s", filepath.Base(name), args, err, out.String(), errb.String(), h.hookLog())
	}
	return out.String()
}

func (h *hostHome) hookLog() string {
	b, _ := os.ReadFile(filepath.Join(h.home, ".local", "state", "ski", "hook.log"))
	return string(b)
}

// texts returns every string in a JSON request body, one per line, so that
// tests can search the text the model sees without JSON escaping.
func texts(body string) string {
	var v any
	if json.Unmarshal([]byte(body), &v) != nil {
		return body
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// mainRequests keeps the request bodies that offer tools: the agent's turns
// (not title generation or summaries).
func mainRequests(bodies []string) []string {
	var out []string
	for _, b := range bodies {
		var r struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal([]byte(b), &r) == nil && len(r.Tools) > 0 {
			out = append(out, b)
		}
	}
	return out
}

// lastUserText is the text of the last user message of a request: what the
// current prompt added (Anthropic or OpenAI shape).
func lastUserText(body string) string { return lastText(body, "user") }

// lastText is the text of a request's last message in role.
func lastText(body, role string) string {
	var r struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal([]byte(body), &r)
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == role {
			return texts(string(r.Messages[i].Content))
		}
	}
	return ""
}

var skiNote = regexp.MustCompile(`ski: [^\n]*?the skill "([a-z0-9-]+)"`)

// injected returns the skills ski's notes in text name, in order, repeats kept.
func injected(text string) []string {
	var out []string
	for _, m := range skiNote.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func count(list []string, s string) int {
	n := 0
	for _, e := range list {
		if e == s {
			n++
		}
	}
	return n
}

// ledger returns the parsed session ledger ski keeps for sid, read with the
// installed ski-ledger.
func (h *hostHome) ledger(sid string) ledgerFile {
	h.t.Helper()
	cmd := exec.Command(filepath.Join(h.home, ".local", "share", "ski", "bin", "ski-ledger"), "show", "--session", sid)
	cmd.Env = h.environ()
	out, err := cmd.Output()
	if err != nil {
		h.t.Fatalf("ski-ledger show --session %s: %v", sid, err)
	}
	var l ledgerFile
	if err := json.Unmarshal(out, &l); err != nil {
		h.t.Fatalf("ledger of %s: %v: %s", sid, err, out)
	}
	return l
}

type ledgerFile struct {
	Loaded map[string]struct {
		Source string `json:"source"`
	} `json:"loaded"`
	Events []struct {
		Event string `json:"event"`
		ID    string `json:"id"`
	} `json:"events"`
	Listing ledgerListing `json:"listing"`
}

// events lists the ledger's events as "event id".
func (l ledgerFile) events() []string {
	var out []string
	for _, e := range l.Events {
		out = append(out, strings.TrimSpace(e.Event+" "+e.ID))
	}
	return out
}

// onlyMain returns the one main request of a prompt's run.
func onlyMain(t *testing.T, bodies []string) string {
	t.Helper()
	main := mainRequests(bodies)
	if len(main) != 1 {
		t.Fatalf("want one main request, got %d of %d requests", len(main), len(bodies))
	}
	return main[0]
}

// toolsRan checks that a run answered the queued tool calls, one request
// each, and that what each loaded (containing want[i], which the first
// request does not) reached the model.
func toolsRan(t *testing.T, bodies []string, want ...string) {
	t.Helper()
	main := mainRequests(bodies)
	if len(main) != len(want)+1 {
		t.Fatalf("want %d requests (prompt and one per tool result), got %d", len(want)+1, len(main))
	}
	for i, w := range want {
		if strings.Contains(texts(main[0]), w) || !strings.Contains(texts(main[i+1]), w) {
			t.Fatalf("tool call %d: %q did not reach the model with request %d only", i+1, w, i+2)
		}
	}
}

// selfLoadsThenBody is the part of a host's session both hosts share. The
// fake model has been told to load helm-chart and csv-cleaning itself in
// answer to a prompt nothing fits; afterwards their prompts get no note.
// Then, in body mode and a new session, the same prompts get the skills'
// bodies, which shows the silence came from the recorded loads. It returns
// the body-mode session.
func selfLoadsThenBody(t *testing.T, h *hostHome, prompt func(sid, text string) (string, []string)) string {
	t.Helper()
	sid, bodies := prompt("", neutralPrompt)
	toolsRan(t, bodies, helmBody, csvBody)
	l := h.ledger(sid)
	for _, id := range []string{"helm-chart", "csv-cleaning"} {
		if l.Loaded[id].Source != "model" {
			t.Fatalf("the observe hook did not record %s as loaded by the model: %+v", id, l)
		}
	}
	for _, p := range []string{helmPrompt, csvPrompt} {
		_, bodies = prompt(sid, p)
		if got := injected(lastUserText(onlyMain(t, bodies))); len(got) != 0 {
			t.Fatalf("%q after the model loaded the skill: want no note, got %v", p, got)
		}
	}
	h.config("inject_mode = \"body\"\n")
	sid, bodies = prompt("", helmPrompt)
	if user := lastUserText(onlyMain(t, bodies)); !strings.Contains(user, helmBody) {
		t.Fatalf("body mode: the helm-chart body is not in the user message:\n%s", user)
	}
	_, bodies = prompt(sid, csvPrompt)
	if user := lastUserText(onlyMain(t, bodies)); !strings.Contains(user, csvBody) {
		t.Fatalf("body mode: the csv-cleaning body is not in the user message:\n%s", user)
	}
	return sid
}

// onceThenSilent is steps 1 and 2 both hosts share: a fitting prompt gets
// one postmortem note; the same prompt again in the session gets none, and
// the first note is in the history once. It returns the session and the
// first main request.
func onceThenSilent(t *testing.T, prompt func(sid, text string) (string, []string)) (string, string) {
	t.Helper()
	sid, bodies := prompt("", postmortemPrompt)
	first := onlyMain(t, bodies)
	if got := injected(lastUserText(first)); count(got, "postmortem") != 1 {
		t.Fatalf("first prompt: want one postmortem note in the user message, got %v\n%s", got, lastUserText(first))
	}
	_, bodies = prompt(sid, postmortemPrompt)
	req := onlyMain(t, bodies)
	if got := injected(lastUserText(req)); len(got) != 0 {
		t.Fatalf("repeat in the same session: want no note, got %v", got)
	}
	if got := injected(texts(req)); count(got, "postmortem") != 1 {
		t.Fatalf("repeat: want the first note once in the history, got %v", got)
	}
	return sid, first
}

// injectedAgain checks that, after the session was re-armed, the fitting
// prompt gets its note again.
func injectedAgain(t *testing.T, prompt func(sid, text string) (string, []string), sid, after string) {
	t.Helper()
	_, bodies := prompt(sid, postmortemPrompt)
	req := onlyMain(t, bodies)
	if got := injected(lastUserText(req)); count(got, "postmortem") != 1 {
		t.Fatalf("after %s: want the postmortem note again, got %v\n%s", after, got, lastUserText(req))
	}
}

// The host tools come from package registries into the set-up's cache, not
// from the system: ripgrep is the pinned release from crates.io, built
// there with cargo, whatever rg the system has (host-tools.sh installs no
// system package).
func TestHostToolsFromTheSetupCache(t *testing.T) {
	cmd := exec.Command(filepath.Join(repo, "scripts", "host-tools.sh"), "--no-install")
	cmd.Env = scriptEnv(t, t.TempDir())
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("host-tools.sh --no-install: %v\n%s", err, errb.String())
	}
	tools := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		tools[k] = v
	}
	for _, k := range []string{"SKI_CLAUDE", "SKI_OPENCODE", "SKI_OPENCODE_PLUGIN", "SKI_RG"} {
		if !strings.HasPrefix(tools[k], setupCache()+string(filepath.Separator)) {
			t.Errorf("%s=%s, not in the set-up cache %s", k, tools[k], setupCache())
		}
	}
	if v, err := exec.Command(tools["SKI_RG"], "--version").Output(); err != nil || !strings.HasPrefix(string(v), "ripgrep 15.2.0") {
		t.Errorf("%s --version: %v %s", tools["SKI_RG"], err, v)
	}
}
