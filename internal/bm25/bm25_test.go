package bm25

import (
	"reflect"
	"testing"
)

func TestTokenize(t *testing.T) {
	got := Tokenize("Can you port the C++ parser to Next.js, please? (x, go1.22)")
	want := []string{"port", "c++", "parser", "next.js", "go1.22"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestScore(t *testing.T) {
	docs := []map[string]int{
		Terms("helm chart: create helm charts for kubernetes"),
		Terms("postmortem: write blameless postmortems after an incident"),
		Terms("kubernetes manifests: deployments and services for kubernetes"),
	}
	s := NewStats(docs)
	if s.IDF["helm"] <= s.IDF["kubernetes"] {
		t.Errorf("a rarer term must weigh more: helm %v, kubernetes %v", s.IDF["helm"], s.IDF["kubernetes"])
	}
	q := NewQuery("bump the helm chart for our kubernetes cluster, helm 3")
	if len(q) != 5 { // bump helm chart kubernetes cluster
		t.Errorf("query terms: %q", q)
	}
	helm, pm, k8s := s.Score(q, docs[0]), s.Score(q, docs[1]), s.Score(q, docs[2])
	if !(helm > k8s && k8s > pm && pm == 0) {
		t.Errorf("scores helm %v, k8s %v, postmortem %v", helm, k8s, pm)
	}
	if (Stats{}).Score(q, docs[0]) != 0 || s.Score(q, nil) != 0 {
		t.Error("empty stats or document must score 0")
	}
}

func TestStem(t *testing.T) {
	for w, want := range map[string]string{
		"tests": "test", "testing": "test", "tested": "test", "queries": "query",
		"running": "run", "installed": "install", "passes": "pass", "boxes": "box",
		"branches": "branch", "status": "status", "analysis": "analysis", "css": "css",
		"go": "go", "k8s": "k8s", "next.js": "next.js", "uses": "use",
	} {
		if got := Stem(w); got != want {
			t.Errorf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
}

// Stats are the collection statistics BM25 needs (the reference
// implementation the fields are checked against): each term's inverse
// document frequency and the mean document length in terms.
type Stats struct {
	IDF    map[string]float64 `json:"idf"`
	AvgLen float64            `json:"avg_len"`
}

// NewStats computes the statistics of a collection of documents, each given
// as its term counts.
func NewStats(docs []map[string]int) Stats {
	df := map[string]int{}
	total := 0
	for _, d := range docs {
		for t, n := range d {
			df[t]++
			total += n
		}
	}
	s := Stats{IDF: make(map[string]float64, len(df))}
	n := float64(len(docs))
	for t, k := range df {
		s.IDF[t] = idf(n, float64(k))
	}
	if len(docs) > 0 {
		s.AvgLen = float64(total) / n
	}
	return s
}

// Score is the BM25 score of a document (its term counts) for q. Terms the
// collection never saw score nothing.
func (s Stats) Score(q Query, doc map[string]int) float64 {
	if len(doc) == 0 || s.AvgLen == 0 {
		return 0
	}
	score, norm := 0.0, -1.0
	for _, t := range q {
		tf, ok := doc[t]
		if !ok {
			continue
		}
		// The document's length, counted only for a document q matches:
		// most match none of a prompt's terms.
		if norm < 0 {
			dl := 0
			for _, n := range doc {
				dl += n
			}
			norm = k1 * (1 - b + b*float64(dl)/s.AvgLen)
		}
		f := float64(tf)
		score += s.IDF[t] * f * (k1 + 1) / (f + norm)
	}
	return score
}
