package event

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrettyPrintedEvent(t *testing.T) {
	in := "{\n  \"session_id\": \"s\",\n  \"prompt\": \"write a\\npostmortem <&>\"\n}\n"
	line, cut, err := Read(strings.NewReader(in), MaxBytes, MaxPrompt)
	if err != nil || cut != nil {
		t.Fatal(err, cut)
	}
	if want := `{"session_id":"s","prompt":"write a\npostmortem <&>"}`; string(line) != want {
		t.Fatalf("got %s, want %s", line, want)
	}
}

// A long prompt is cut at a character boundary inside the prompt field;
// the event stays valid JSON with every other field.
func TestLongPromptCut(t *testing.T) {
	prompt := "write a postmortem " + strings.Repeat("é", 100) + " tail"
	b, _ := json.Marshal(map[string]any{"session_id": "s", "prompt": prompt, "cwd": "/p"})
	for keep := 19; keep < 30; keep++ {
		line, cut, err := Parse(b, keep)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("cut event is not JSON: %v: %s", err, line)
		}
		got := m["prompt"]
		if !utf8.ValidString(got) || !strings.HasPrefix(prompt, got) || len(got) > keep || len(got) < keep-1 {
			t.Fatalf("keep %d: prompt %q", keep, got)
		}
		if m["session_id"] != "s" || m["cwd"] != "/p" {
			t.Fatalf("other fields lost: %s", line)
		}
		if cut == nil || cut.Was != len(prompt) || cut.Kept != len(got) {
			t.Fatalf("cut %+v", cut)
		}
	}
}

func TestBadEvents(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "not a JSON object",
		"not json":                        "not a JSON object",
		`["a"]`:                           "not a JSON object",
		`{"prompt":"x"} {"prompt":"y"}`:   "not a JSON object",
		"{\"prompt\":\"\xff\"}":           "invalid UTF-8",
		`{"prompt":"a`:                    "not a JSON object",
		strings.Repeat(" ", 100) + `{"a"`: "not a JSON object",
	} {
		if _, _, err := Parse([]byte(in), MaxPrompt); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	if _, _, err := Read(strings.NewReader(`{"prompt":"`+strings.Repeat("a", 100)+`"}`), 50, MaxPrompt); err == nil || !strings.Contains(err.Error(), "exceeds 50 bytes") {
		t.Errorf("long event: %v", err)
	}
}
