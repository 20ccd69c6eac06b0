package event

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// FuzzParse feeds the event reader arbitrary input: it returns one line of
// valid JSON or an error, never panics; a prompt it keeps is valid UTF-8,
// within the bound and the start of the original.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","cwd":"/p","prompt":"write a postmortem"}`), 8)
	f.Add([]byte("{\n \"prompt\": \"é日本\\u00e9\\\"x\"\n}"), 3)
	f.Add([]byte(`{"prompt":{"nested":"x"}}`), 1)
	f.Add([]byte(`{"prompt":"a","prompt":"bb"}`), 1)
	f.Fuzz(func(t *testing.T, data []byte, maxPrompt int) {
		if maxPrompt < 0 || maxPrompt > 1<<20 {
			return
		}
		line, cut, err := Parse(data, maxPrompt)
		if err != nil {
			return
		}
		if !json.Valid(line) || strings.ContainsAny(string(line), "\n\r") {
			t.Fatalf("not one line of JSON: %q", line)
		}
		p := gjson.GetBytes(line, "prompt")
		if cut != nil {
			if !utf8.ValidString(p.Str) || len(p.Str) > maxPrompt || len(p.Str) != cut.Kept {
				t.Fatalf("cut prompt %q (bound %d, cut %+v)", p.Str, maxPrompt, cut)
			}
			orig := gjson.GetBytes(data, "prompt").Str
			if !strings.HasPrefix(orig, p.Str) {
				t.Fatalf("kept %q is not the start of %q", p.Str, orig)
			}
		}
	})
}
