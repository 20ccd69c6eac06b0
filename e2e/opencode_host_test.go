package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type opencodeRun struct {
	h   *hostHome
	api *fakeAPI
	bin string
	env []string
}

func newOpencodeRun(t *testing.T, extraSkills ...string) *opencodeRun {
	bin := hostTool(t, "SKI_OPENCODE")
	h := newHostHome(t, "opencode", extraSkills...)
	api := newFakeAPI(t)
	cfg := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"model":      "fake/fake-model",
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "fake",
			"options": map[string]any{"baseURL": api.url + "/v1", "apiKey": "dummy"},
			"models": map[string]any{"fake-model": map[string]any{
				"name": "fake-model", "tool_call": true, "limit": map[string]any{"context": 100000, "output": 4096}}},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	dir := filepath.Join(h.home, ".config", "opencode")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// opencode npm-installs @opencode-ai/plugin into its config directory on
	// every start when there is a plugin; with the package.json, lock file and
	// node_modules scripts/host-tools.sh made it has nothing to fetch. The
	// registry is pointed at a closed port so that the runs stay offline.
	plugin := hostTool(t, "SKI_OPENCODE_PLUGIN")
	if out, err := exec.Command("cp", "-r", filepath.Join(plugin, "package.json"), filepath.Join(plugin, "package-lock.json"), filepath.Join(plugin, "node_modules"), dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	env := h.environ("OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_SHARE=1",
		"npm_config_registry=http://127.0.0.1:9/", "NPM_CONFIG_REGISTRY=http://127.0.0.1:9/")
	return &opencodeRun{h: h, api: api, bin: bin, env: env}
}

// prompt runs opencode run in a new session (sid "") or continues sid; it
// returns the session id and the request bodies the run sent.
func (o *opencodeRun) prompt(sid, prompt string) (string, []string) {
	o.h.t.Helper()
	args := append([]string{"run"}, strings.Fields(prompt)...)
	args = append(args, "-m", "fake/fake-model", "--format", "json")
	if sid != "" {
		args = append(args, "--session", sid)
	}
	m := o.api.mark()
	out := o.h.cli(o.env, o.bin, args...)
	for _, line := range strings.Split(out, "\n") {
		var ev struct {
			SessionID string `json:"sessionID"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.SessionID != "" {
			sid = ev.SessionID
		}
	}
	if sid == "" {
		o.h.t.Fatalf("no session id in the output of opencode run:\n%s", out)
	}
	return sid, o.api.since(m)
}

// TestOpencodeHost drives the real opencode CLI with ski's plugin installed
// in an isolated home: inject once per session, never again on a repeat,
// never for a skill the model loaded itself, again after compaction; body
// mode.
func TestOpencodeHost(t *testing.T) {
	o := newOpencodeRun(t)
	t.Parallel()

	// 1. A fitting prompt: the directive for postmortem reaches the model.
	// 2. The same prompt again in the same session: not repeated.
	sid, _ := onceThenSilent(t, o.prompt)

	// 4. Compaction re-arms. opencode run has no /compact; opencode compacts
	// on its own when the model reports a context nearly full, which the
	// fake API does for this turn. The plugin sees session.compacted.
	if ev := o.h.ledger(sid).events(); slices.Contains(ev, "rearm") {
		t.Fatalf("rearm before compaction: %v", ev)
	}
	o.api.reportUsage(99_000)
	_, bodies := o.prompt(sid, neutralPrompt)
	if ev := o.h.ledger(sid).events(); !slices.Contains(ev, "rearm") {
		t.Fatalf("no rearm in the ledger after the compaction run (%d requests): %v", len(bodies), ev)
	}
	injectedAgain(t, o.prompt, sid, "compaction")

	// 3. Skills the model loads itself are not injected afterwards; then
	// body mode.
	o.api.queue(toolCall{"skill", map[string]any{"name": "helm-chart"}})
	o.api.queue(toolCall{"read", map[string]any{"filePath": filepath.Join(o.h.skills, "csv-cleaning", "SKILL.md")}})
	selfLoadsThenBody(t, o.h, o.prompt)

	// 5. The suggestion band: with injection out of reach, the plugin adds
	// the line that names the fitting skill, and no directive.
	o.h.config("inject_similarity = 1.5\n")
	_, bodies = o.prompt("", postmortemPrompt)
	if user := lastUserText(onlyMain(t, bodies)); !strings.Contains(user, `ski: skills that may help, not loaded: "postmortem"`) || len(injected(user)) != 0 {
		t.Fatalf("suggestion band: want the suggestion line only in the user message:\n%s", user)
	}
}
