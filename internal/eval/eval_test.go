package eval

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/record"
)

const tsv = "category\tprompt\texpected\tnotes\n" +
	"direct\twrite a postmortem\ta/pm\t\n" +
	"indirect\tsite is down, write it up and plan the fix\ta/pm|b/pm2,c/plan\t\n" +
	"negative\they\t-\tchit-chat\n" +
	"mention\t/pm\ta/pm\t\n"

func TestReadTSV(t *testing.T) {
	cases, err := ReadTSV(strings.NewReader(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 4 || len(cases[1].Groups) != 2 || len(cases[1].Groups[0]) != 2 || cases[2].Groups != nil || cases[1].Line != 3 {
		t.Fatalf("cases: %+v", cases)
	}
	if _, err := ReadTSV(strings.NewReader("h\nweird\tx\t-\n")); err == nil || !strings.Contains(err.Error(), "line 2: category") {
		t.Fatalf("err = %v", err)
	}
}

func sel(id, decision, how string, score float64) record.Selection {
	return record.Selection{Candidate: record.Candidate{ID: id, Mention: how, Score: score}, Decision: decision}
}

func TestScoreAndSummarise(t *testing.T) {
	cases, _ := ReadTSV(strings.NewReader(tsv))
	outs := []Outcome{
		Score(cases[0], []record.Selection{sel("a/pm", "inject", "", 0.8), sel("x", "drop", "", 0.3)}),
		Score(cases[1], []record.Selection{sel("b/pm2", "inject", "", 0.7), sel("z", "inject", "", 0.6)}),
		Score(cases[2], []record.Selection{sel("z", "inject", "", 0.5)}),
		Score(cases[3], []record.Selection{sel("a/pm", "host-loads", "slash", 0.1)}),
	}
	if !outs[0].Right || outs[1].Right || outs[1].Covered != 1 || outs[1].Correct != 1 || outs[2].Right || !outs[3].Right {
		t.Fatalf("verdicts: %+v", outs)
	}
	m := Summarise(outs)
	// Positives: rows 0, 1 and 3. Recall (1 + 0.5 + 1) / 3; precision 2 of 3 injected.
	if m.N != 4 || m.Top1 != 1 || abs(m.GatedRecall-2.5/3) > 1e-9 || abs(m.Precision-2.0/3) > 1e-9 || m.FalseInjection != 1 || m.Right != 0.5 {
		t.Fatalf("metrics: %+v", m)
	}
	if abs(m.HostValue-(2.5/3-0.15)) > 1e-9 {
		t.Fatalf("host value %v", m.HostValue)
	}
	r := NewReport("m", 3, outs)
	var buf bytes.Buffer
	r.WriteText(&buf)
	if !strings.Contains(buf.String(), "negative") || !strings.Contains(buf.String(), "host-value") {
		t.Fatalf("report:\n%s", buf.String())
	}
	buf.Reset()
	if err := Plot(&buf, "t <x>", outs, 0.2, 0.3); err != nil || !strings.Contains(buf.String(), "<svg") || !strings.Contains(buf.String(), "t &lt;x&gt;") {
		t.Fatalf("plot: %v", err)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestHalf(t *testing.T) {
	var cases []Case
	for i, cat := range []string{"direct", "direct", "negative", "direct", "negative"} {
		cases = append(cases, Case{Line: i + 2, Category: cat})
	}
	lines := func(cs []Case) (out []int) {
		for _, c := range cs {
			out = append(out, c.Line)
		}
		return out
	}
	if got := lines(Half(cases, Tune)); !slices.Equal(got, []int{2, 4, 5}) {
		t.Errorf("tune: %v", got)
	}
	if got := lines(Half(cases, Held)); !slices.Equal(got, []int{3, 6}) {
		t.Errorf("held: %v", got)
	}
}

// Rows of ski's own categories (follow-up, adjacent) are read and
// reported in their own category; an adjacent row injected is a false
// injection, as a negative's is.
func TestOwnCategories(t *testing.T) {
	cases, err := ReadTSV(strings.NewReader("category\tprompt\texpected\tnotes\nfollowup\tok now the same for staging\t-\t\nfollowup\talso add the retry queue there\ta|b\t\n" +
		"adjacent\twrite a python script that merges the csv files in data/\t-\tnear: awk-sed\nadjacent\ta bash loop that runs ./convert on each file\t-\t\n"))
	if err != nil || len(cases) != 4 || cases[1].Category != "followup" || len(cases[1].Groups) != 1 || cases[2].Category != "adjacent" || len(cases[2].Groups) != 0 {
		t.Fatalf("%+v, %v", cases, err)
	}
	injected := []record.Selection{{Candidate: record.Candidate{ID: "awk-sed"}, Decision: record.DecisionInject}}
	r := NewReport("m", 1, []Outcome{Score(cases[0], nil), Score(cases[1], nil), Score(cases[2], injected), Score(cases[3], nil)})
	if m, ok := r.Categories["followup"]; !ok || m.N != 2 {
		t.Fatalf("report categories %+v", r.Categories)
	}
	if m, ok := r.Categories["adjacent"]; !ok || m.N != 2 || m.FalseInjection != 0.5 {
		t.Fatalf("adjacent: %+v", r.Categories["adjacent"])
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil || !strings.Contains(b.String(), "followup") || !strings.Contains(b.String(), "adjacent") {
		t.Fatalf("%q, %v", b.String(), err)
	}
}
