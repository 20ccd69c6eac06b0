package e2e

import (
	"encoding/json"
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
	o := newOpencodeRun(t, ciSkills(t)...)
	t.Parallel()
	skillTools(t, o.h, o.api, o.prompt, hostTools{
		search: "skill_search", load: "skill_load", names: openaiToolNames,
		// The tool's result comes back in a message of role "tool".
		result: func(body string) string { return lastText(body, "tool") },
	})
}
