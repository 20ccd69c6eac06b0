package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skill-inject/ski/internal/cut"
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
		sel("postmortem", "inject"), sel("helm", "suggest"), sel("gone", "drop"))
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
	if p.SystemMessage != "ski: injected postmortem; suggested helm" {
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

// The suggestion band in both hosts' payloads: one line after the
// directives, naming each suggested skill as the host's skill tool takes
// it; opencode's JSON lists the ids apart from the injected ones.
func TestSuggestionLine(t *testing.T) {
	sels := []record.Selection{sel("postmortem", "inject"), sel("helm", "suggest"), sel("csv", "suggest"), sel("gone", "drop")}
	want := `ski: skills that may help, not loaded: "helm", "csv". If one fits the task, load it with the %s tool before you start.`

	var c ClaudePayload
	out := run(t, opts("claude", Settings{Mode: "directive", Strength: "auto"}), sels...)
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(c.HookSpecificOutput.AdditionalContext, "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"postmortem"`) || lines[1] != fmt.Sprintf(want, "Skill") || c.SystemMessage != "" {
		t.Errorf("claude payload %s", out)
	}

	out = run(t, opts("opencode", Settings{Mode: "directive", Strength: "auto"}), sels...)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["skills"]) != `["x/postmortem"]` || string(raw["suggest"]) != `["x/helm","x/csv"]` || len(raw) != 3 {
		t.Errorf("opencode payload %s", out)
	}
	var o OpencodePayload
	json.Unmarshal([]byte(out), &o)
	if lines := strings.Split(o.Inject, "\n"); len(lines) != 2 || lines[1] != fmt.Sprintf(want, "skill") {
		t.Errorf("opencode inject %q", o.Inject)
	}
}

// Suggestions alone make a payload; opencode's skills is then an empty
// list, not null, and body mode adds no body for them.
func TestOnlySuggestions(t *testing.T) {
	out := run(t, opts("opencode", Settings{Mode: "body", CharBudget: 100}), sel("helm", "suggest"))
	if want := `{"skills":[],"suggest":["x/helm"],"inject":"ski: skills that may help, not loaded: \"helm\". If one fits the task, load it with the skill tool before you start."}` + "\n"; out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	var c ClaudePayload
	json.Unmarshal([]byte(run(t, opts("claude", Settings{Mode: "directive", Notify: true}), sel("helm", "suggest"))), &c)
	if !strings.HasPrefix(c.HookSpecificOutput.AdditionalContext, "ski: skills that may help") || c.SystemMessage != "ski: suggested helm" {
		t.Errorf("claude payload %+v", c)
	}
}

// The suggestion line stays within MaxSuggestLine characters whatever the
// names: the longest are shortened first, and short ones are kept whole.
func TestSuggestionLineLength(t *testing.T) {
	long := func(id, r string, n int) record.Selection {
		s := sel(id, "suggest")
		s.Invoke = "plugin:" + strings.Repeat(r, n)
		return s
	}
	for name, sels := range map[string][]record.Selection{
		"short":         {sel("a", "suggest"), sel("b", "suggest"), sel("c", "suggest")},
		"one long":      {sel("lint", "suggest"), long("x", "é", 400), sel("docs", "suggest")},
		"three long":    {long("x", "a", 90), long("y", "東", 120), long("z", "\n", 64)},
		"five long":     {long("a", "a", 64), long("b", "b", 64), long("c", "c", 64), long("d", "d", 64), long("e", "e", 64)},
		"more than fit": {long("a", "a", 9), long("b", "b", 9), long("c", "c", 9), long("d", "d", 9), long("e", "e", 9), long("f", "f", 9), long("g", "g", 9), long("h", "h", 9), long("i", "i", 9), long("j", "j", 9), long("k", "k", 9), long("l", "l", 9), long("m", "m", 9), long("n", "n", 9), long("o", "o", 9), long("p", "p", 9), long("q", "q", 9), long("r", "r", 9), long("s", "s", 9), long("t", "t", 9), long("u", "u", 9)},
	} {
		for _, host := range []string{"claude", "opencode"} {
			var p struct {
				HookSpecificOutput struct{ AdditionalContext string }
				Inject             string
			}
			json.Unmarshal([]byte(run(t, opts(host, Settings{Mode: "directive"}), sels...)), &p)
			line := p.HookSpecificOutput.AdditionalContext + p.Inject
			if n := utf8.RuneCountInString(line); n > MaxSuggestLine || strings.Contains(line, "\n") || !utf8.ValidString(line) {
				t.Errorf("%s, %s: %d characters: %q", name, host, n, line)
			}
			if name == "short" && !strings.Contains(line, `"a", "b", "c"`) {
				t.Errorf("short names shortened: %q", line)
			}
			if name == "one long" && (!strings.Contains(line, `"lint", "plugin:ééé`) || !strings.Contains(line, `é…", "docs"`)) {
				t.Errorf("one long name: %q", line)
			}
			if name != "more than fit" && !strings.HasSuffix(line, "tool before you start.") {
				t.Errorf("%s, %s: the way to load them is cut: %q", name, host, line)
			}
		}
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

// A skill the host lists by name alone gets a short description in its
// directive and after the suggestion line; one it does not list at all
// comes as its body when injected, and with its file when suggested; a
// skill listed whole gets nothing more.
func TestShownAsBareName(t *testing.T) {
	o := opts("claude", Settings{Mode: "directive", Strength: "auto", CharBudget: 1000})
	long := strings.Repeat("Cleans messy tables of data. ", 20)
	o.Describe = func(path string) string { return long + path }
	bare, absent, full, sug := sel("bare", "inject"), sel("absent", "inject"), sel("full", "inject"), sel("hint", "suggest")
	bare.Shown, absent.Shown, full.Shown, sug.Shown = "bare", "absent", "full", "bare"
	var p ClaudePayload
	if err := json.Unmarshal([]byte(run(t, o, bare, absent, full, sug)), &p); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(p.HookSpecificOutput.AdditionalContext, "\n")
	brief := `"bare" (your skill list shows its name only): Cleans messy tables of data.`
	if !strings.Contains(lines[0], `skill "bare" matches`) || !strings.Contains(lines[0], brief) {
		t.Errorf("bare directive: %s", lines[0])
	}
	_, desc, _ := strings.Cut(lines[0], "name only): ")
	if n := utf8.RuneCountInString(desc); n > MaxBrief || !strings.HasSuffix(desc, "…") {
		t.Errorf("the description is %d characters, want at most %d, cut: %q", n, MaxBrief, desc)
	}
	ctx := p.HookSpecificOutput.AdditionalContext
	if strings.Contains(ctx, `skill "absent" matches`) || !strings.Contains(ctx, "# Body of /skills/absent/SKILL.md") {
		t.Errorf("absent skill: want its body, not a directive:\n%s", ctx)
	}
	if strings.Contains(ctx, `"full" (your skill list`) {
		t.Errorf("a skill listed whole got a description:\n%s", ctx)
	}
	if last := lines[len(lines)-1]; last != `- "hint" (your skill list shows its name only): `+cut.Short(long+"/skills/hint/SKILL.md", MaxBrief) {
		t.Errorf("suggestion: %q", last)
	}
	sug.Shown = "absent"
	if err := json.Unmarshal([]byte(run(t, o, sug)), &p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.HookSpecificOutput.AdditionalContext, `- "hint" is not in the Skill tool's list: read /skills/hint/SKILL.md to load it.`) {
		t.Errorf("absent suggestion:\n%s", p.HookSpecificOutput.AdditionalContext)
	}
}
