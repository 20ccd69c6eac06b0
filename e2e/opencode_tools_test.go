package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// openaiToolNames are the names of the tools an OpenAI-shaped request
// offers the model.
func openaiToolNames(t *testing.T, body string) []string {
	t.Helper()
	var r struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range r.Tools {
		names = append(names, tool.Function.Name)
	}
	return names
}

// lastToolResult is the text of the last tool result in an OpenAI-shaped
// request.
func lastToolResult(body string) string {
	var r struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal([]byte(body), &r)
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "tool" {
			return texts(string(r.Messages[i].Content))
		}
	}
	return ""
}

// firstHit is the name of the first skill a skill_search result names.
func firstHit(result string) string {
	first := ""
	if i := strings.Index(result, "\n1. "); i >= 0 {
		first, _, _ = strings.Cut(result[i+4:], " ")
	}
	return first
}

// TestOpencodeSkillTools drives the real opencode CLI with ski's plugin
// installed by scripts/install.sh: the plugin's skill_search and
// skill_load are in the tool list the model gets; a scripted skill_search
// for a prompt of the shared corpus's dev set returns one of its expected
// skills first; a scripted skill_load of it returns its body and base
// directory, which the session's ledger records as the model's load (the
// plugin's tool hook knows the session), so the next prompt that fits it
// injects nothing; a second skill_load of it gets a short note instead of
// the body.
func TestOpencodeSkillTools(t *testing.T) {
	expected := []string{"github-actions-templates", "ci-cd-pipeline-builder"}
	o := newOpencodeRun(t, corpusSkill(t, "wshobson__agents/github-actions-templates"), corpusSkill(t, "alirezarezvani__claude-skills/ci-cd-pipeline-builder"),
		corpusSkill(t, "wshobson__agents/python-testing-patterns"), corpusSkill(t, "wshobson__agents/api-design-principles"))
	t.Parallel()

	o.api.queue(toolCall{"skill_search", map[string]any{"query": ciPrompt}})
	sid, bodies := o.prompt("", neutralPrompt)
	main := mainRequests(bodies)
	if len(main) != 2 {
		t.Fatalf("want the prompt's request and the search result's, got %d requests", len(main))
	}
	names := openaiToolNames(t, main[0])
	for _, want := range []string{"skill_search", "skill_load"} {
		if !slices.Contains(names, want) {
			t.Fatalf("%s is not in the tool list sent to the model: %v", want, names)
		}
	}
	result := lastToolResult(main[1])
	first := firstHit(result)
	if !slices.Contains(expected, first) {
		t.Fatalf("skill_search: first skill %q, want one of %v:\n%s", first, expected, result)
	}

	o.api.queue(toolCall{"skill_load", map[string]any{"name": first}})
	_, bodies = o.prompt(sid, neutralPrompt)
	main = mainRequests(bodies)
	if len(main) != 2 {
		t.Fatalf("skill_load: want 2 requests, got %d", len(main))
	}
	result = lastToolResult(main[1])
	if !strings.Contains(result, "Base directory for this skill: "+filepath.Join(o.h.skills, first)) || !strings.Contains(result, "</skill>") {
		t.Fatalf("skill_load did not return the body and base directory:\n%s", result)
	}
	l := o.h.ledger(sid)
	if l.Loaded[first].Source != "tool" || !slices.Contains(l.events(), "search") || !slices.Contains(l.events(), "found "+first) {
		t.Fatalf("the ledger does not know the search and the load: %+v", l)
	}

	// The prompt that fits it: no note, since the model loaded it (in a
	// new session the same prompt names it).
	_, bodies = o.prompt(sid, ciPrompt)
	if user := lastUserText(onlyMain(t, bodies)); strings.Contains(user, `"`+first+`"`) {
		t.Fatalf("after skill_load, the fitting prompt still names %s:\n%s", first, user)
	}
	_, bodies = o.prompt("", ciPrompt)
	if user := lastUserText(onlyMain(t, bodies)); !strings.Contains(user, `"`+first+`"`) {
		t.Fatalf("in a new session the fitting prompt does not name %s:\n%s", first, user)
	}

	// A second skill_load in the session: a note, not the body again.
	o.api.queue(toolCall{"skill_load", map[string]any{"name": first}})
	_, bodies = o.prompt(sid, neutralPrompt)
	main = mainRequests(bodies)
	result = lastToolResult(main[len(main)-1])
	if !strings.Contains(result, "is already loaded in this conversation") || strings.Contains(result, "Base directory for this skill") {
		t.Fatalf("second skill_load:\n%s", result)
	}
}
