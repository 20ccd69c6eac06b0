package embed

import (
	"math"
	"testing"
)

func TestLexicalDeterministicUnit(t *testing.T) {
	e := NewLexical()
	v, err := e.Embed([]string{"Write a blameless postmortem", "Write a blameless postmortem", ""}, Query)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(Dot(v[0], v[0])-1) > 1e-5 {
		t.Errorf("not unit length: %v", Dot(v[0], v[0]))
	}
	if Dot(v[0], v[1]) < 0.9999 {
		t.Errorf("not deterministic")
	}
	if Dot(v[2], v[2]) != 0 {
		t.Errorf("empty text should embed to zero")
	}
}

func TestLexicalSimilarity(t *testing.T) {
	e := NewLexical()
	v, _ := e.Embed([]string{
		"postmortem: write blameless incident postmortems with a timeline",
		"write a postmortem for yesterday's outage",
		"create helm charts for kubernetes",
	}, Document)
	if near, far := Dot(v[1], v[0]), Dot(v[1], v[2]); near <= far || near < 0.2 {
		t.Errorf("related %.3f should beat unrelated %.3f", near, far)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"tests": "test", "testing": "test", "tested": "test", "debugging": "debug",
		"libraries": "library", "branches": "branch", "class": "class", "status": "status",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLookup(t *testing.T) {
	if _, err := Lookup(LexicalID); err != nil {
		t.Fatal(err)
	}
	if _, err := Lookup("nope"); err == nil {
		t.Fatal("want an error for an unknown model")
	}
}

func TestQueriesBlankIsZero(t *testing.T) {
	v, err := Queries(NewLexical(), []string{"  ", "write a postmortem"})
	if err != nil || len(v[0]) != lexicalDim || Dot(v[0], v[0]) != 0 || Dot(v[1], v[1]) < 0.99 {
		t.Fatalf("got %v", err)
	}
}
