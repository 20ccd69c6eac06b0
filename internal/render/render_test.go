package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skill-inject/ski/internal/record"
)

func sel(id, decision string) record.Selection {
	return record.Selection{Candidate: record.Candidate{Kind: record.KindSelection, QueryID: "q", ID: "x/" + id,
		Name: id, Invoke: id, Path: "/skills/" + id + "/SKILL.md", Dir: "/skills/" + id}, Decision: decision, Reason: "r"}
}

func run(t *testing.T, o Options, sels ...record.Selection) string {
	t.Helper()
	var in bytes.Buffer
	for _, s := range sels {
		b, _ := json.Marshal(s)
		in.Write(append(b, '\n'))
	}
	var out bytes.Buffer
	if err := Run(o, &in, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func opts(host string, s Settings) Options {
	return Options{Host: host, Settings: func(string) (Settings, error) { return s, nil },
		ReadBody: func(path, dir string) (string, []string, error) {
			return "# Body of " + path + "\n\nDo the thing.", []string{"scripts/run.sh"}, nil
		}}
}

func TestClaudeDirective(t *testing.T) {
	out := run(t, opts("claude", Settings{Mode: "directive", Strength: "auto", Notify: true}),
		sel("postmortem", "inject"), sel("helm", "recommend"), sel("gone", "drop"))
	var p ClaudePayload
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ctx := p.HookSpecificOutput.AdditionalContext
	if p.HookSpecificOutput.HookEventName != "UserPromptSubmit" ||
		!strings.Contains(ctx, `skill "postmortem" matches`) || !strings.Contains(ctx, `Skill tool (skill: "postmortem")`) ||
		!strings.Contains(ctx, `not loaded: "helm"`) || strings.Contains(ctx, "gone") {
		t.Errorf("context: %s", ctx)
	}
	if p.SystemMessage != "ski: injected postmortem" {
		t.Errorf("systemMessage = %q", p.SystemMessage)
	}
}

func TestOpencodeHard(t *testing.T) {
	out := run(t, opts("opencode", Settings{Mode: "directive", Strength: "auto"}), sel("a", "inject"), sel("b", "inject"))
	var p OpencodePayload
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Skills, ",") != "x/a,x/b" || !strings.Contains(p.Inject, "MUST load") || !strings.Contains(p.Inject, `skill tool (name: "a")`) {
		t.Errorf("payload %+v", p)
	}
}

func TestNothingSelectedNoOutput(t *testing.T) {
	if out := run(t, opts("claude", Settings{Mode: "directive"}), sel("a", "host-loads"), sel("b", "drop")); out != "" {
		t.Errorf("want no output, got %q", out)
	}
}

func TestBodyBudget(t *testing.T) {
	o := opts("claude", Settings{Mode: "body", CharBudget: 30})
	o.ReadBody = func(string, string) (string, []string, error) {
		return strings.Repeat("é", 50), nil, nil
	}
	out := run(t, o, sel("a", "inject"))
	var p ClaudePayload
	json.Unmarshal([]byte(out), &p)
	ctx := p.HookSpecificOutput.AdditionalContext
	if !utf8.ValidString(ctx) || !strings.Contains(ctx, strings.Repeat("é", 30)+"\n[… truncated by ski: 30 of 50 characters shown") ||
		strings.Contains(ctx, strings.Repeat("é", 31)) {
		t.Errorf("context: %s", ctx)
	}
	if !strings.Contains(ctx, "Base directory for this skill: /skills/a") {
		t.Errorf("no base directory: %s", ctx)
	}
}

// A mentioned skill the model may not invoke comes as its body, not as a
// directive to the Skill tool, which the host would refuse.
func TestNoDirectiveForSkillsTheModelMayNotInvoke(t *testing.T) {
	deploy := sel("deploy", "inject")
	deploy.DisableModelInvocation, deploy.Mention = true, "at"
	for _, host := range []string{"claude", "opencode"} {
		out := run(t, opts(host, Settings{Mode: "directive", Strength: "auto", CharBudget: 6000}), sel("postmortem", "inject"), deploy)
		var p struct {
			HookSpecificOutput struct{ AdditionalContext string }
			Inject             string
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		ctx := p.HookSpecificOutput.AdditionalContext + p.Inject
		if !strings.Contains(ctx, `load the skill "postmortem"`) && !strings.Contains(ctx, `skill "postmortem" matches`) {
			t.Errorf("%s: no directive for postmortem: %s", host, ctx)
		}
		if strings.Contains(ctx, `"deploy" matches`) || strings.Contains(ctx, `load the skill "deploy"`) ||
			!strings.Contains(ctx, `<skill name="deploy"`) || !strings.Contains(ctx, "# Body of /skills/deploy/SKILL.md") {
			t.Errorf("%s: deploy should come as its body: %s", host, ctx)
		}
	}
}

// Body mode names the skill's path in an XML attribute, escaped as XML
// escapes it (not with Go's quoting, which XML does not read).
func TestBodyAttributesEscaped(t *testing.T) {
	s := sel("a", "inject")
	s.Path = `/skills/"q" <x> & y/SKILL.md`
	out := run(t, opts("claude", Settings{Mode: "body", CharBudget: 1000}), s)
	var p ClaudePayload
	json.Unmarshal([]byte(out), &p)
	ctx := p.HookSpecificOutput.AdditionalContext
	if want := `<skill name="a" path="/skills/&quot;q&quot; &lt;x&gt; &amp; y/SKILL.md">`; !strings.Contains(ctx, want) {
		t.Errorf("context %s\nwant %s", ctx, want)
	}
}
