package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// suggestConfig sets thresholds that put the test skills' prompts in the
// suggestion band (lexical scores: helm-chart 0.646 and postmortem 0.420
// for bothPrompt, postmortem 0.605 for the postmortem payload's prompt).
func suggestConfig(t *testing.T, w *world, inject string) {
	t.Helper()
	writeFile(t, filepath.Join(w.home, ".config", "ski", "config.toml"),
		"model = \"lexical-v1\"\nscore_margin = 0.5\ninject_similarity = "+inject+"\n")
}

const bothPrompt = "write a blameless postmortem for the checkout outage and create a helm chart for the api service with configurable replicas"

// The suggestion band through hook-claude.sh: additionalContext carries
// the directive of the injected skill, then one short suggestion line; a
// suggested skill is not suggested again in the session, but is injected
// once a prompt fits it well enough.
func TestClaudeSuggestionBand(t *testing.T) {
	w := newWorld(t)
	suggestConfig(t, w, "0.63")
	w.sessionStart("claude")
	prompt := w.payload("claude-prompt.json")

	ctx := claudeContext(t, w.hook("claude", "prompt", withPrompt(t, prompt, bothPrompt)))
	lines := strings.Split(ctx, "\n")
	want := `ski: skills that may help, not loaded: "postmortem". If one fits the task, load it with the Skill tool before you start.`
	if len(lines) != 2 || !strings.Contains(lines[0], `the skill "helm-chart" matches`) || lines[1] != want {
		t.Fatalf("context:\n%s", ctx)
	}
	if n := utf8.RuneCountInString(lines[1]); n > 300 {
		t.Errorf("suggestion line of %d characters", n)
	}

	// Suggested once per session.
	if out := w.hook("claude", "prompt", prompt); out != "" {
		t.Fatalf("postmortem suggested again: %s", out)
	}
	// A prompt that fits it well enough injects it, once.
	suggestConfig(t, w, "0.6")
	if ctx := claudeContext(t, w.hook("claude", "prompt", prompt)); !strings.Contains(ctx, `the skill "postmortem" matches`) || strings.Contains(ctx, "may help") {
		t.Fatalf("later injection: %s", ctx)
	}
	if out := w.hook("claude", "prompt", prompt); out != "" {
		t.Fatalf("injected twice: %s", out)
	}
	show := w.stage(nil, "ski-ledger", "show", "--session", "9b2f6c1e-4a7d-4f3e-8c55-2d0e7f1a6b90")
	var l struct {
		Loaded    map[string]struct{ Source string }
		Suggested map[string]string
		Events    []struct{ Event, ID string }
	}
	if err := json.Unmarshal([]byte(show.stdout), &l); err != nil {
		t.Fatalf("ledger: %v: %s", err, show.stdout)
	}
	var events []string
	for _, e := range l.Events {
		events = append(events, e.Event+" "+e.ID)
	}
	if l.Loaded["writing/postmortem"].Source != "ski" || l.Suggested["writing/postmortem"] == "" || len(l.Suggested) != 1 ||
		strings.Join(events, ", ") != "inject k8s/helm-chart, suggest writing/postmortem, inject writing/postmortem" {
		t.Errorf("ledger: %s", show.stdout)
	}
}

// The suggestion band through hook-opencode.sh: the JSON lists the
// suggested ids beside the injected ones, and the model loading a
// suggested skill counts as following the suggestion.
func TestOpencodeSuggestionBand(t *testing.T) {
	w := newWorld(t)
	suggestConfig(t, w, "0.7")
	w.sessionStart("opencode")
	out := w.hook("opencode", "prompt", withPrompt(t, w.payload("opencode-prompt.json"), bothPrompt))
	var p map[string]any
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("not an opencode payload: %v: %q", err, out)
	}
	want := `ski: skills that may help, not loaded: "helm-chart", "postmortem". If one fits the task, load it with the skill tool before you start.`
	if skills, ok := p["skills"].([]any); !ok || len(skills) != 0 || p["inject"] != want ||
		strings.Join(strs(p["suggest"]), ",") != "k8s/helm-chart,writing/postmortem" {
		t.Fatalf("payload %s", out)
	}

	var load map[string]any
	json.Unmarshal(w.payload("opencode-observe-skill.json"), &load)
	load["args"] = map[string]any{"name": "postmortem"}
	loadJSON, _ := json.Marshal(load)
	w.hook("opencode", "observe", loadJSON)
	r := w.stage(nil, "ski-ledger", "stats")
	if !strings.Contains(r.stdout, `"id":"writing/postmortem","sessions":1,"injected":0,"followed":0,"follow_rate":0,"suggested":1,"suggestions_followed":1,"model_loaded":1`) ||
		!strings.Contains(r.stdout, `"id":"k8s/helm-chart","sessions":1,"injected":0,"followed":0,"follow_rate":0,"suggested":1,"suggestions_followed":0`) {
		t.Errorf("stats:\n%s", r.stdout)
	}
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, x := range list {
		out[i], _ = x.(string)
	}
	return out
}
