package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	postmortemPrompt = "write a blameless postmortem for yesterday's 40 minute checkout outage, the timeline is in incident-notes.md"
	helmPrompt       = "create a helm chart for our api service with configurable replicas and ingress"
	csvPrompt        = "clean up this messy csv export: duplicate rows, mixed date formats and stray whitespace"
	neutralPrompt    = "hello, what can you do?"

	// Lines of the skills' bodies.
	helmBody = "Put every environment-specific value in `values.yaml`"
	csvBody  = "# Cleaning CSV files"
)

type claudeRun struct {
	h     *hostHome
	api   *fakeAPI
	bin   string
	env   []string
	model string // --model (default claude-sonnet-4-5)
}

func newClaudeRun(t *testing.T, extraSkills ...string) *claudeRun {
	bin := hostTool(t, "SKI_CLAUDE")
	h := newHostHome(t, "claude", extraSkills...)
	api := newFakeAPI(t)
	env := h.environ("ANTHROPIC_BASE_URL="+api.url, "ANTHROPIC_API_KEY=dummy",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	return &claudeRun{h: h, api: api, bin: bin, env: env}
}

// prompt runs claude -p in a new session (sid "") or resumes sid; it
// returns the session id and the request bodies the run sent.
func (c *claudeRun) prompt(sid, prompt string) (string, []string) {
	c.h.t.Helper()
	model := c.model
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	args := []string{"-p", prompt, "--output-format", "json", "--model", model, "--allowedTools", "Read,mcp__ski"}
	if sid != "" {
		args = append(args, "--resume", sid)
	}
	m := c.api.mark()
	out := c.h.cli(c.env, c.bin, args...)
	var r struct {
		SessionID string `json:"session_id"`
		IsError   bool   `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || r.SessionID == "" {
		c.h.t.Fatalf("claude output: %v: %s", err, out)
	}
	return r.SessionID, c.api.since(m)
}

// TestClaudeHost drives the real Claude Code CLI with ski installed in an
// isolated home: inject once per session, never again on a repeat, never
// for a skill the model loaded itself, again after /compact; body mode.
func TestClaudeHost(t *testing.T) {
	c := newClaudeRun(t)
	t.Parallel()

	// 1. A fitting prompt: the directive for postmortem reaches the model.
	// 2. The same prompt again in the same session: not repeated.
	sid, req := onceThenSilent(t, c.prompt)
	if !strings.Contains(texts(req), filepath.Join(c.h.skills, "postmortem", "SKILL.md")) {
		t.Errorf("the note does not name the SKILL.md")
	}

	// 4. /compact re-arms: the postmortem note comes again.
	_, bodies := c.prompt(sid, "/compact")
	if len(bodies) == 0 {
		t.Fatal("/compact sent no request")
	}
	if ev := c.h.ledger(sid).events(); !slices.Contains(ev, "rearm") {
		t.Fatalf("/compact: no rearm in the ledger (SessionStart compact hook): %v", ev)
	}
	injectedAgain(t, c.prompt, sid, "/compact")

	// 3. Skills the model loads itself are not injected afterwards: the Skill
	// tool (helm-chart) and a Read of SKILL.md (csv-cleaning), each in answer
	// to a prompt nothing fits; then body mode.
	c.api.queue(toolCall{"Skill", map[string]any{"skill": "helm-chart"}})
	c.api.queue(toolCall{"Read", map[string]any{"file_path": filepath.Join(c.h.skills, "csv-cleaning", "SKILL.md")}})
	sid = selfLoadsThenBody(t, c.h, c.prompt)
	_, bodies = c.prompt(sid, helmPrompt)
	if user := lastUserText(onlyMain(t, bodies)); strings.Contains(user, "values.yaml") {
		t.Fatalf("body mode: helm-chart body repeated:\n%s", user)
	}
}
