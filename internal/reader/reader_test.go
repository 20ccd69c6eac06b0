package reader

import (
	"errors"
	"testing"

	"github.com/skill-inject/ski/internal/record"
)

func conf(v float64) *float64 { return &v }

func cands(confs ...float64) []record.Candidate {
	out := make([]record.Candidate, len(confs))
	for i, c := range confs {
		out[i] = record.Candidate{ID: string(rune('a' + i)), Rank: i + 1, Confidence: conf(c)}
	}
	return out
}

// scorerOf answers fixed beliefs, by id, and counts its calls.
type scorerOf struct {
	beliefs map[string]float64
	calls   int
	err     error
}

func (s *scorerOf) ScoreCandidates(_ string, cs []record.Candidate) ([]float64, error) {
	s.calls++
	if s.err != nil {
		return nil, s.err
	}
	out := make([]float64, len(cs))
	for i, c := range cs {
		out[i] = s.beliefs[c.ID]
	}
	return out, nil
}

func TestDefaultParamsAreValid(t *testing.T) {
	p := Default()
	if p.Model == "" || p.Read < 1 || p.Low < 0 || p.High > 1 || p.Low > p.High || p.MaxShare <= 0 || p.MaxShare > 1 {
		t.Fatalf("shipped params %+v", p)
	}
	// Values fitted for another reader would combine its beliefs wrongly.
	if p.Model != Files().ID {
		t.Fatalf("params.json was fitted for %q, the shipped reader is %q", p.Model, Files().ID)
	}
}

// The reader runs only when the judge's best candidate sits in the unsure
// band, never on a prompt that names a skill.
func TestUnsure(t *testing.T) {
	p := Params{Read: 3, Low: 0.1, High: 0.8}
	for _, c := range []struct {
		cands []record.Candidate
		want  bool
	}{
		{cands(0.5, 0.2), true},
		{cands(0.1, 0.05), true},
		{cands(0.95, 0.2), false},
		{cands(0.05), false},
		{nil, false},
		{[]record.Candidate{{ID: "x"}}, false},
	} {
		if got := p.Unsure(c.cands); got != c.want {
			t.Errorf("%v: unsure %v, want %v", c.cands, got, c.want)
		}
	}
	named := cands(0.5, 0.3)
	named[1].Mention = "at"
	if p.Unsure(named) {
		t.Error("a prompt naming a skill was read")
	}
}

// Step combines both beliefs into the confidence of the candidates it
// read, orders them by it and ranks them again; the rest are untouched. A
// sure prompt is not read, and an error leaves the judge's word.
func TestStep(t *testing.T) {
	p := Params{Read: 3, Low: 0.1, High: 0.9, Judge: 1, Reader: 1}
	cs := cands(0.5, 0.4, 0.3, 0.2)
	s := &scorerOf{beliefs: map[string]float64{"a": 0.1, "b": 0.5, "c": 0.95}}
	ran, err := p.Step(cs, "the prompt", s)
	if err != nil || !ran {
		t.Fatalf("ran %v, %v", ran, err)
	}
	if cs[0].ID != "c" || cs[0].Rank != 1 || cs[1].ID != "b" || cs[2].ID != "a" || cs[2].Rank != 3 {
		t.Fatalf("order %s %s %s", cs[0].ID, cs[1].ID, cs[2].ID)
	}
	if cs[0].Reader == nil || *cs[0].Reader != 0.95 || *cs[0].Confidence != round(logistic(logit(0.3)+logit(0.95))) {
		t.Errorf("first: reader %v, confidence %v", cs[0].Reader, *cs[0].Confidence)
	}
	if cs[3].Reader != nil || *cs[3].Confidence != 0.2 || cs[3].Rank != 4 {
		t.Errorf("the fourth was read or changed: %+v", cs[3])
	}
	sure := cands(0.97, 0.1)
	if ran, _ := p.Step(sure, "x", s); ran || s.calls != 1 {
		t.Errorf("a sure prompt was read (%d calls)", s.calls)
	}
	failing := cands(0.5, 0.4)
	if ran, err := p.Step(failing, "x", &scorerOf{err: errors.New("too slow")}); ran || err == nil || failing[0].Reader != nil || *failing[0].Confidence != 0.5 {
		t.Errorf("a failed reading changed the candidates: %v, %v, %+v", ran, err, failing[0])
	}
}

// A candidate below the judge's few carries the judge's 0: with Unjudged
// set, its reading can lift it above the judged ones; without, it cannot.
func TestApplyUnjudged(t *testing.T) {
	beliefs := []float64{0.2, 0.2, 0.2, 0.2, 0.2, 0.95}
	below := func() []record.Candidate { return cands(0.5, 0.3, 0.2, 0.1, 0.05, 0) }
	p := Params{Read: 6, Judge: 1, Reader: 1}
	cs := below()
	p.Apply(cs, beliefs)
	if cs[5].ID != "f" {
		t.Fatalf("without Unjudged the sixth rose to rank %d", cs[5].Rank)
	}
	p.Unjudged = conf(0)
	cs = below()
	p.Apply(cs, beliefs)
	if cs[0].ID != "f" || *cs[0].Confidence != round(logistic(logit(0.95))) {
		t.Fatalf("with Unjudged 0 the sixth is not first: %s at %v", cs[0].ID, *cs[0].Confidence)
	}
	if *cs[1].Confidence != round(logistic(logit(0.5)+logit(0.2))) {
		t.Errorf("a judged candidate's confidence changed with Unjudged: %v", *cs[1].Confidence)
	}
}
