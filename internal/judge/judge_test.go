package judge

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/skill-inject/ski/internal/embed"
)

func TestQuantiles(t *testing.T) {
	bg := Quantiles([]float64{0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.4, 0.6, 0.8, 1.0, 0.0})
	if math.Abs(bg.Q50-0.5) > 1e-9 || math.Abs(bg.Q90-0.9) > 1e-9 || !bg.Valid() {
		t.Fatalf("quantiles %+v", bg)
	}
	if (Background{}).Valid() || Quantiles(nil).Valid() {
		t.Fatal("an empty background is valid")
	}
	if n := len(Prompts()); n < 100 {
		t.Fatalf("%d background prompts", n)
	}
}

func TestFeatures(t *testing.T) {
	bg := Background{Q50: 0.5, Q90: 0.7}
	cands := []Input{
		{Score: 0.9, Lexical: 0.2},
		{Score: 1.6, Mention: true}, // /name: the host loads it; not judged
		{Score: 0.8, SmallEdit: true, Intent: true},
		{Score: 0.75},
		{Score: 0.7}, {Score: 0.6}, {Score: 0.5}, {Score: 0.4},
	}
	f := Features(cands, bg)
	if f[1] != nil {
		t.Fatalf("a mention was judged: %v", f[1])
	}
	want0 := []float64{2, 0, 0.1, 1, 0.2, 0, 0, 0}
	want2 := []float64{1.5, -0.1, 0.05, 0.5, 0, 1, 1, 1}
	for i, want := range map[int][]float64{0: want0, 2: want2} {
		for j := range want {
			if math.Abs(f[i][j]-want[j]) > 1e-9 {
				t.Fatalf("candidate %d: features %v, want %v", i, f[i], want)
			}
		}
	}
	judged := 0
	for _, x := range f {
		if x != nil {
			judged++
		}
	}
	if judged != Judged || f[6] != nil || f[5] == nil {
		t.Fatalf("%d judged, want the first %d that are not mentions", judged, Judged)
	}
	cands[1].Asked = true
	for i, x := range Features(cands, bg) {
		if x != nil {
			t.Fatalf("candidate %d judged although the user asked for a skill by name", i)
		}
	}
	for _, x := range Features(cands[:1], Background{}) {
		if x != nil {
			t.Fatal("judged without a background")
		}
	}
}

// Train must find a rule the data follows: right candidates have a high
// relative score and a clear gap to the next; it must rank unseen samples
// by it and say so with confident probabilities.
func TestTrainLearnsARule(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	sample := func() ([]float64, bool) {
		x := make([]float64, len(FeatureNames))
		for j := range x {
			x[j] = rnd.NormFloat64()
		}
		return x, x[0]+0.5*x[2]+0.3*rnd.NormFloat64() > 0.8
	}
	var xs [][]float64
	var ys []bool
	for range 2000 {
		x, y := sample()
		xs, ys = append(xs, x), append(ys, y)
	}
	m, err := Train(xs, ys, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.Weights[0] < 2 || m.Weights[2] < 1 || math.Abs(m.Weights[1]) > 0.5 || math.Abs(m.Weights[4]) > 0.5 {
		t.Fatalf("weights %v: the rule's features should carry it, the others nothing", m.Weights)
	}
	right := 0
	for range 1000 {
		x, y := sample()
		if (m.Predict(x) >= 0.5) == y {
			right++
		}
	}
	if right < 900 {
		t.Fatalf("%d of 1000 unseen samples right", right)
	}
	if _, err := Train(nil, nil, 1); err == nil {
		t.Fatal("trained on nothing")
	}
}

// Every model ski knows but the lexical one (the fallback while a model's
// index builds, read by its scores as it always was) has a judge that
// loads and reads the features the code computes; one without is nil.
func TestEveryModelHasAJudge(t *testing.T) {
	for _, id := range embed.ModelIDs() {
		m, err := For(id)
		if id == embed.LexicalID {
			if m != nil || err != nil {
				t.Fatalf("lexical model: judge %v, %v", m, err)
			}
			continue
		}
		if err != nil || m == nil {
			t.Fatalf("%s: judge %v, %v", id, m, err)
		}
		if m.Model != id || !slices.Equal(m.Features, FeatureNames) || m.TrainedOn == "" {
			t.Fatalf("%s: judge for %q on %v, trained on %q", id, m.Model, m.Features, m.TrainedOn)
		}
		if p := m.Predict(make([]float64, len(FeatureNames))); p <= 0 || p >= 1 {
			t.Fatalf("%s: probability %v", id, p)
		}
	}
	if m, err := For("no-such-model"); m != nil || err != nil {
		t.Fatalf("unknown model: %v, %v", m, err)
	}
}
