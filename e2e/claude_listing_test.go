package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/sjson"
)

// corpusSkills are the first n skill folders of the shared corpus, in
// path order, leaving out names already taken (by the demo skills or an
// earlier folder): ~/.claude/skills holds one folder per name.
func corpusSkills(t *testing.T, n int) []string {
	t.Helper()
	paths, _ := filepath.Glob(corpusSkill(t, "*/*/SKILL.md"))
	sort.Strings(paths)
	taken := map[string]bool{}
	demo, _ := filepath.Glob(filepath.Join(repo, "testdata", "skills", "*", "*"))
	for _, d := range demo {
		taken[filepath.Base(d)] = true
	}
	var out []string
	for _, p := range paths {
		dir := filepath.Dir(p)
		if name := filepath.Base(dir); !taken[name] && len(out) < n {
			taken[name] = true
			out = append(out, dir)
		}
	}
	if len(out) < n {
		t.Fatalf("the shared corpus has %d skills, want %d", len(out), n)
	}
	return out
}

const listingHeader = "The following skills are available for use with the Skill tool:"

var bareLine = regexp.MustCompile(`(?m)^- ([A-Za-z0-9_.:-]+)$`)

// listedBare are the skills Claude Code's listing in a request shows as
// bare names, sorted, leaving out its own commands (ski doctor lists
// skills).
func listedBare(t *testing.T, body string) []string {
	t.Helper()
	all := texts(body)
	i := strings.Index(all, listingHeader)
	if i < 0 {
		t.Fatalf("no skill listing in the request")
	}
	listing, _, _ := strings.Cut(all[i:], "</system-reminder>")
	var out []string
	for _, m := range bareLine.FindAllStringSubmatch(listing, -1) {
		if !slices.Contains([]string{"init", "review", "security-review"}, m[1]) {
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

// doctorBare are the skills ski doctor says Claude Code shows as bare
// names, sorted, and its summary line.
func (h *hostHome) doctorBare() ([]string, string) {
	h.t.Helper()
	cmd := exec.Command(filepath.Join(h.home, ".local", "share", "ski", "bin", "ski"), "doctor")
	cmd.Env, cmd.Dir = h.environ(), h.project
	out, _ := cmd.Output() // a warning may fail a check; the report is there
	var bare []string
	summary := ""
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "    bare names (the model sees no description): "); ok {
			bare = strings.Split(rest, ", ")
		}
		if strings.HasPrefix(line, "  claude: ") {
			summary = line
		}
	}
	if summary == "" {
		h.t.Fatalf("ski doctor reports no listing for claude:\n%s", out)
	}
	sort.Strings(bare)
	return bare, summary
}

// catalogIDs are the ids of the skills ski's catalog holds for Claude Code.
func (h *hostHome) catalogIDs() map[string]bool {
	h.t.Helper()
	cmd := exec.Command(filepath.Join(h.home, ".local", "share", "ski", "bin", "ski-scan"), "--host", "claude")
	cmd.Env, cmd.Dir = h.environ(), h.project
	out, err := cmd.Output()
	if err != nil {
		h.t.Fatalf("ski-scan: %v", err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct{ Kind, ID string }
		if json.Unmarshal([]byte(line), &r) == nil && r.Kind == "skill" {
			ids[r.ID] = true
		}
	}
	return ids
}

// settings sets a key of ~/.claude/settings.json (which install.sh wrote).
func (h *hostHome) settings(key string, value any) {
	h.t.Helper()
	path := filepath.Join(h.home, ".claude", "settings.json")
	b, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatal(err)
	}
	if b, err = sjson.SetBytes(b, key, value); err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

// waitListing waits for the session's listing, which the session-start
// hook works out in the background.
func (h *hostHome) waitListing(sid string) ledgerListing {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if l := h.ledger(sid).Listing; l.Budget > 0 || time.Now().After(deadline) {
			return l
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type ledgerListing struct {
	Model  string            `json:"model"`
	Budget int               `json:"budget"`
	States map[string]string `json:"states"`
}

// TestClaudeListing drives the real Claude Code CLI with ~150 skills of
// the shared corpus, past its listing budget: the skills its listing sends
// the model as bare names are those ski doctor names, and those the
// session's ledger keeps for the prompts, for two models of different
// budgets (the settings' model) and after a usage count in ~/.claude.json
// brings one back to full; a prompt for a bare-name skill gets ski's
// directive with the skill's description, and the Skill tool loads it.
func TestClaudeListing(t *testing.T) {
	c := newClaudeRun(t, corpusSkills(t, 137)...)
	t.Parallel()

	var sid string
	check := func(model string, budget int) []string {
		t.Helper()
		c.model = model
		c.h.settings("model", model)
		var bodies []string
		sid, bodies = c.prompt("", neutralPrompt)
		claude := listedBare(t, onlyMain(t, bodies))
		doctor, summary := c.h.doctorBare()
		if !slices.Equal(doctor, claude) {
			t.Fatalf("%s: ski doctor's bare names differ from the listing Claude Code sent:\nclaude %d: %v\ndoctor %d: %v\n%s",
				model, len(claude), claude, len(doctor), doctor, summary)
		}
		if !strings.Contains(summary, "listing budget of "+itoa(budget)+" characters ("+model+")") {
			t.Errorf("doctor: %s", summary)
		}
		// The ledger keeps ski's skills by id (a user skill's is its
		// folder): those the listing shows bare, less any ski's catalog
		// leaves out (one shadowed by another of the same name).
		var want []string
		ids := c.h.catalogIDs()
		for _, name := range claude {
			if ids[name] {
				want = append(want, name)
			}
		}
		l := c.h.waitListing(sid)
		var kept []string
		for id, state := range l.States {
			if state == "bare" {
				kept = append(kept, id)
			}
		}
		sort.Strings(kept)
		if l.Budget != budget || l.Model != model || !slices.Equal(kept, want) {
			t.Fatalf("%s: the session's ledger keeps budget %d (%s) and bare names %v, want %d (%s) and %v",
				model, l.Budget, l.Model, kept, budget, model, want)
		}
		t.Logf("%s: %d of the listing's skills are bare names; %s", model, len(claude), summary)
		return claude
	}
	sonnet := check("claude-sonnet-4-5", 8000)
	opus := check("claude-opus-4-7", 6000)
	if len(opus) <= len(sonnet) {
		t.Errorf("the smaller budget shows no more bare names: %d against %d", len(opus), len(sonnet))
	}

	// A prompt for a bare-name skill: ski's directive carries its
	// description, which the listing does not; the Skill tool loads it.
	if !slices.Contains(opus, "postmortem") {
		t.Fatalf("postmortem is not a bare name at 6000 characters: %v", opus)
	}
	_, bodies := c.prompt(sid, postmortemPrompt)
	user := lastUserText(onlyMain(t, bodies))
	if !slices.Contains(injected(user), "postmortem") || !strings.Contains(user, `"postmortem" (your skill list shows its name only): Write a blameless incident postmortem`) {
		t.Fatalf("the directive for the bare-name postmortem gives no description:\n%s", user)
	}
	c.api.queue(toolCall{"Skill", map[string]any{"skill": "postmortem"}})
	_, bodies = c.prompt(sid, neutralPrompt)
	toolsRan(t, bodies, "The goal is learning, not fault.")

	// A usage count brings a bare-name skill back to full.
	const used = "csv-cleaning"
	if !slices.Contains(sonnet, used) {
		t.Fatalf("%s is not a bare name at 8000 characters", used)
	}
	path := filepath.Join(c.h.home, ".claude.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = sjson.SetBytes(b, "skillUsage."+used, map[string]any{"usageCount": 5, "lastUsedAt": time.Now().UnixMilli()})
	os.WriteFile(path, b, 0o644)
	if again := check("claude-sonnet-4-5", 8000); slices.Contains(again, used) {
		t.Fatalf("%s is still a bare name after 5 uses", used)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
