package mention

import (
	"reflect"
	"testing"
)

func TestFind(t *testing.T) {
	known := Names{"commit": true, "brainstorming": true, "gh-fix-ci": true, "webapp-testing": true,
		"scanpy": true, "create-branch": true, "verification-before-completion": true,
		"subagent-driven-development": true, "pdf-tools": true, "linear": true, "docs": true}
	tests := []struct {
		prompt string
		want   []Found
	}{
		{"/commit", []Found{{"commit", Slash}}},
		{"/commit fix the tests", []Found{{"commit", Slash}}},
		{"$gh-fix-ci", []Found{{"gh-fix-ci", Dollar}}},
		{"@brainstorming I want offline sync", []Found{{"brainstorming", At}}},
		{"please (@brainstorming) this", []Found{{"brainstorming", At}}},
		{"use the webapp-testing skill to check localhost:3000", []Found{{"webapp-testing", Phrase}}},
		{"use the scanpy skill to cluster adata.h5ad", []Found{{"scanpy", Phrase}}},
		{"invoke create-branch for the rate limiting work", []Found{{"create-branch", Phrase}}},
		{"use verification-before-completion before you tell me", []Found{{"verification-before-completion", Phrase}}},
		{"subagent-driven-development, please", []Found{{"subagent-driven-development", Name}}},
		{"$linear create a ticket", []Found{{"linear", Dollar}}},
		// A bare name after a leading invocation is its argument.
		{"$commit subagent-driven-development", []Found{{"commit", Dollar}}},
		{"/commit verification-before-completion", []Found{{"commit", Slash}}},
		{"please $commit subagent-driven-development", []Found{{"commit", Dollar}, {"subagent-driven-development", Name}}},
		{"@gh-fix-ci then @webapp-testing", []Found{{"gh-fix-ci", At}, {"webapp-testing", At}}},
		// Not mentions.
		{"mail me at dev@brainstorming.io", nil},
		{"see https://example.com/@brainstorming", nil},
		{"check ./vendor-skills/pdf-tools before I install it", nil},
		{"edit docs/commit.md", nil},
		{"we use linear for tickets", nil},                        // a one-word name needs "skill" or a mark
		{"use gh to list open PRs", nil},                          // not a known name
		{"the docs folder is messy", nil},                         // a bare one-word name
		{"price is $5 and $commit.", []Found{{"commit", Dollar}}}, // ends a sentence
		{"not/commit here", nil},                                  // slash mid-prompt is a path
		{"read create-branch.md", nil},                            // a file name
		{"costs 3$gh-fix-ci", nil},                                // glued to a word
		{"the pdf-tools skill", []Found{{"pdf-tools", Phrase}}},
		// "_" for "-", and case, do not matter.
		{"$gh_fix_ci", []Found{{"gh-fix-ci", Dollar}}},
		{"@GH_Fix_CI please", []Found{{"gh-fix-ci", At}}},
		{"use the Webapp_Testing skill", []Found{{"webapp-testing", Phrase}}},
		{"rename create_branch_name in main.go", nil}, // an identifier, not a mention
		{"call gh_fix_ci() from the script", nil},     // a bare snake_case word
		{"$gh_fix_ci_now", nil},                       // another name
	}
	for _, tt := range tests {
		got := Find(tt.prompt, known)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Find(%q) = %v, want %v", tt.prompt, got, tt.want)
		}
	}
}
