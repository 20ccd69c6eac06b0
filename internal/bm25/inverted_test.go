package bm25

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
)

func testDocs() []map[string]int {
	return []map[string]int{
		Terms("helm chart: create helm charts for kubernetes, lint values.yaml"),
		Terms("postmortem: write blameless postmortems after an incident, timeline"),
		Terms("kubernetes manifests: deployments and services for kubernetes clusters"),
		{},
	}
}

func mustInverted(t *testing.T, docs []map[string]int) *Inverted {
	t.Helper()
	v, err := NewInverted(docs)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// More documents than two bytes can number (the limit of an older layout),
// added out of order through a Collector, read back as they went in.
func TestInvertedManyDocuments(t *testing.T) {
	const n = 70_000
	var c Collector
	for d := n - 1; d >= 0; d-- {
		c.Add(d, fmt.Sprintf("t%d", d%3), 1+d%5)
	}
	v, err := c.Inverted()
	if err != nil {
		t.Fatal(err)
	}
	docs := v.Documents()
	if v.Len() != n || docs[n-1][fmt.Sprintf("t%d", (n-1)%3)] != 1+(n-1)%5 || len(docs[123]) != 1 {
		t.Fatalf("%d documents; last %v", v.Len(), docs[n-1])
	}
	walked := 0
	v.Walk(func(string, int, int) { walked++ })
	if walked != n {
		t.Fatalf("Walk saw %d postings, want %d", walked, n)
	}
}

func TestInvertedScoresLikeStats(t *testing.T) {
	docs := testDocs()
	s, v := NewStats(docs), mustInverted(t, docs)
	q := NewQuery("bump the helm chart for our kubernetes cluster after the incident")
	got := make([]float64, len(docs))
	v.AddScores(q, 0.5, got)
	for d, doc := range docs {
		if want := 0.5 * s.Score(q, doc); math.Abs(got[d]-want) > 1e-9 {
			t.Errorf("doc %d: %v, want %v", d, got[d], want)
		}
	}
	if got[0] <= got[1] || got[3] != 0 {
		t.Errorf("scores %v", got)
	}
}

func TestInvertedRoundTrip(t *testing.T) {
	docs := testDocs()
	v := mustInverted(t, docs)
	data, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Inverted
	if err := back.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, v) {
		t.Errorf("round trip differs:\n%+v\n%+v", back, *v)
	}
	if got := back.Documents(); !reflect.DeepEqual(got, docs) {
		t.Errorf("documents: %v", got)
	}
	if back.Len() != len(docs) {
		t.Errorf("len %d", back.Len())
	}
}

func TestInvertedRejectsDamage(t *testing.T) {
	data, _ := mustInverted(t, testDocs()).MarshalBinary()
	for _, bad := range [][]byte{nil, data[:10], data[:len(data)-1], append(append([]byte{}, data...), 0)} {
		var v Inverted
		if err := v.UnmarshalBinary(bad); err == nil {
			t.Errorf("%d bytes: no error", len(bad))
		}
	}
	// Every single-byte change is found: by decoding, or by the lookup of
	// a term whose postings it hit. None panics.
	good := mustInverted(t, testDocs())
	var terms Query
	good.Walk(func(term string, _, _ int) {
		if len(terms) == 0 || terms[len(terms)-1] != term {
			terms = append(terms, term)
		}
	})
	for i := range data {
		bad := append([]byte{}, data...)
		bad[i] ^= 0xff
		var v Inverted
		if v.UnmarshalBinary(bad) != nil {
			continue
		}
		v.Documents()
		if v.AddScores(terms, 1, make([]float64, v.Len())) == nil {
			t.Errorf("byte %d of %d changed: not found", i, len(data))
		}
	}
}

// A lookup reads the postings of one term and checks only those of its
// block of terms (here "helm" and "kube" are blockTerms terms apart).
func TestDocumentsOf(t *testing.T) {
	between := map[string]int{}
	for i := range blockTerms {
		between[fmt.Sprintf("j%02d", i)] = 1
	}
	v := mustInverted(t, []map[string]int{{"helm": 1}, between, {"kube": 2}, {"helm": 3, "kube": 1}})
	if docs, err := v.DocumentsOf("helm"); err != nil || !reflect.DeepEqual(docs, []int{0, 3}) {
		t.Fatalf("helm: %v, %v", docs, err)
	}
	if docs, err := v.DocumentsOf("absent"); err != nil || docs != nil {
		t.Fatalf("absent: %v, %v", docs, err)
	}
	data, _ := v.MarshalBinary()
	bad := append([]byte{}, data...)
	bad[len(bad)-1] ^= 1 // the last posting: kube's
	var w Inverted
	if err := w.UnmarshalBinary(bad); err != nil {
		t.Fatalf("postings are not checked by decoding: %v", err)
	}
	if _, err := w.DocumentsOf("helm"); err != nil {
		t.Fatalf("helm's postings are whole: %v", err)
	}
	if _, err := w.DocumentsOf("kube"); !errors.Is(err, ErrDamaged) {
		t.Fatalf("kube's damaged postings: %v", err)
	}
}

// A term whose postings pass blockBytes is a block of its own: damage to a
// neighbour's postings does not fail its lookup, nor does the lookup check
// the neighbour's bytes.
func TestBlocksStayUnderBlockBytes(t *testing.T) {
	docs := make([]map[string]int, blockBytes)
	for d := range docs {
		docs[d] = map[string]int{"alpha": 1, "beta": 1}
	}
	v := mustInverted(t, docs)
	if v.nBlock != 2 {
		t.Fatalf("%d blocks for two terms of %d postings each, want 2", v.nBlock, len(docs))
	}
	data, _ := v.MarshalBinary()
	data[len(data)-1] ^= 1 // beta's last posting
	var w Inverted
	if err := w.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if docs, err := w.DocumentsOf("alpha"); err != nil || len(docs) != blockBytes {
		t.Fatalf("alpha: %d documents, %v", len(docs), err)
	}
	if _, err := w.DocumentsOf("beta"); !errors.Is(err, ErrDamaged) {
		t.Fatalf("beta's damaged postings: %v", err)
	}
}
