package prompt

import (
	"github.com/skill-inject/ski/internal/intent"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIsControl(t *testing.T) {
	for p, want := range map[string]bool{
		"":                                        true,
		"  \n ":                                   true,
		"<task-notification>done":                 true,
		"  <system-reminder>x</system-reminder>":  true,
		"fix the <system-reminder> parser":        false,
		"<bash-input>ls -la</bash-input>":         true,
		"<bash-stdout>total 0</bash-stdout>":      true,
		"<bash-stderr>no such file</bash-stderr>": true,
		"<local-command-stderr>x":                 true,
		"<command-message>postmortem is running":  true,
		"write a postmortem":                      false,
	} {
		if got := IsControl(p); got != want {
			t.Errorf("IsControl(%q) = %v", p, got)
		}
	}
}

func TestSlash(t *testing.T) {
	name, rest, ok := Slash("  /seo-audit https://acme.io")
	if !ok || name != "seo-audit" || rest != "https://acme.io" {
		t.Errorf("got %q %q %v", name, rest, ok)
	}
	if _, _, ok := Slash("fix /etc/hosts"); ok {
		t.Error("a slash later in the prompt is not a command")
	}
}

func TestQueryText(t *testing.T) {
	p := "the build fails, why?\n```\nsome code\nmore code\n```\ngoroutine 1 [running]:\n\tmain.go:12 +0x1d\n  File \"x.py\", line 3, in f\nplease fix"
	got := QueryText(p)
	if got != "the build fails, why?\nplease fix\n"+intent.BugHuntHint {
		t.Errorf("got %q", got)
	}
	if got := QueryText("write a postmortem\n```\nlog\n```"); got != "write a postmortem" {
		t.Errorf("got %q", got)
	}
	if got := QueryText("/commit tidy up"); got != "tidy up" {
		t.Errorf("slash command kept: %q", got)
	}
	long := QueryText(strings.Repeat("é", 5000))
	if len(long) > MaxQueryChars || !utf8.ValidString(long) {
		t.Errorf("long prompt: %d bytes, valid %v", len(long), utf8.ValidString(long))
	}
}
