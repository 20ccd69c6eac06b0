package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ciPrompt is a prompt of ../shared/eval/dev.tsv; it expects either of two
// skills of the shared corpus.
const ciPrompt = "set up a github actions workflow that runs go test and golangci-lint on every PR"

// toolNames are the names of the tools a request offers the model.
func toolNames(t *testing.T, body string) []string {
	t.Helper()
	var r struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range r.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// corpusSkill is a skill folder of the shared corpus.
func corpusSkill(t *testing.T, rel string) string {
	t.Helper()
	shared := os.Getenv("SKI_SHARED")
	if shared == "" {
		shared = filepath.Join(filepath.Dir(repo), "shared")
	}
	return filepath.Join(shared, "skills-corpus", rel)
}

// ciSkills are the skills of the shared corpus the tool tests install: the
// two ciPrompt expects, and two others.
func ciSkills(t *testing.T) []string {
	return []string{corpusSkill(t, "wshobson__agents/github-actions-templates"), corpusSkill(t, "alirezarezvani__claude-skills/ci-cd-pipeline-builder"),
		corpusSkill(t, "wshobson__agents/python-testing-patterns"), corpusSkill(t, "wshobson__agents/api-design-principles")}
}

// hostTools is how a host names ski's tools and shapes their requests.
type hostTools struct {
	search, load string                                   // the tools' names in the host
	names        func(t *testing.T, body string) []string // the tools a request offers
	result       func(body string) string                 // the last tool result in a request
}

// TestClaudeSkillTools drives the real Claude Code CLI with ski installed
// by scripts/install.sh: ski's two MCP tools are in the tool list the
// model gets; a scripted skill_search for a prompt of the shared corpus's
// dev set returns one of its expected skills first; a scripted skill_load
// of it returns its body and base directory, which the ledger records as
// the model's load, so the next prompt that fits it injects nothing; a
// second skill_load of it gets a short note instead of the body.
func TestClaudeSkillTools(t *testing.T) {
	c := newClaudeRun(t, ciSkills(t)...)
	t.Parallel()
	skillTools(t, c.h, c.api, c.prompt, hostTools{
		search: "mcp__ski__skill_search", load: "mcp__ski__skill_load", names: toolNames,
		// The tool's result comes back in the next user message.
		result: lastUserText,
	})
}

// skillTools is what both hosts' tool tests share: the tools are offered,
// skill_search ranks ciPrompt's skill first, skill_load returns it and is
// recorded as the model's load with the search before it, the fitting
// prompt then names it only in a new session, and a second load in the
// session gets the short note.
func skillTools(t *testing.T, h *hostHome, api *fakeAPI, prompt func(sid, text string) (string, []string), tools hostTools) {
	t.Helper()
	expected := []string{"github-actions-templates", "ci-cd-pipeline-builder"}
	api.queue(toolCall{tools.search, map[string]any{"query": ciPrompt}})
	sid, bodies := prompt("", neutralPrompt)
	main := mainRequests(bodies)
	if len(main) != 2 {
		t.Fatalf("want the prompt's request and the search result's, got %d requests", len(main))
	}
	names := tools.names(t, main[0])
	for _, want := range []string{tools.search, tools.load} {
		if !slices.Contains(names, want) {
			t.Fatalf("%s is not in the tool list sent to the model: %v", want, names)
		}
	}
	result := tools.result(main[1])
	first := ""
	if i := strings.Index(result, "\n1. "); i >= 0 {
		first, _, _ = strings.Cut(result[i+4:], " ")
	}
	if !slices.Contains(expected, first) {
		t.Fatalf("skill_search: first skill %q, want one of %v:\n%s", first, expected, result)
	}

	api.queue(toolCall{tools.load, map[string]any{"name": first}})
	_, bodies = prompt(sid, neutralPrompt)
	main = mainRequests(bodies)
	if len(main) != 2 {
		t.Fatalf("skill_load: want 2 requests, got %d", len(main))
	}
	result = tools.result(main[1])
	if !strings.Contains(result, "Base directory for this skill: "+filepath.Join(h.skills, first)) || !strings.Contains(result, "</skill>") {
		t.Fatalf("skill_load did not return the body and base directory:\n%s", result)
	}
	l := h.ledger(sid)
	if l.Loaded[first].Source != "tool" || !slices.Contains(l.events(), "search") || !slices.Contains(l.events(), "found "+first) {
		t.Fatalf("the ledger does not know the search and the load: %+v", l)
	}

	// The prompt that fits it: no note, since the model loaded it (in a
	// new session the same prompt names it).
	_, bodies = prompt(sid, ciPrompt)
	if user := lastUserText(onlyMain(t, bodies)); strings.Contains(user, `"`+first+`"`) {
		t.Fatalf("after skill_load, the fitting prompt still names %s:\n%s", first, user)
	}
	_, bodies = prompt("", ciPrompt)
	if user := lastUserText(onlyMain(t, bodies)); !strings.Contains(user, `"`+first+`"`) {
		t.Fatalf("in a new session the fitting prompt does not name %s:\n%s", first, user)
	}

	// A second skill_load in the session: a note, not the body again.
	api.queue(toolCall{tools.load, map[string]any{"name": first}})
	_, bodies = prompt(sid, neutralPrompt)
	main = mainRequests(bodies)
	result = tools.result(main[len(main)-1])
	if !strings.Contains(result, "is already loaded in this conversation") || strings.Contains(result, "Base directory for this skill") {
		t.Fatalf("second skill_load:\n%s", result)
	}
}
