package embed

import "testing"

func TestQueriesEmptyIsZero(t *testing.T) {
	e := NewLexical()
	vecs, err := Queries(e, []string{"write a postmortem", "  ", ""})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 3 || Dot(vecs[0], vecs[0]) < 0.99 {
		t.Fatalf("first vector not a unit vector: %d vectors", len(vecs))
	}
	for _, v := range vecs[1:] {
		if len(v) != e.Model().Dim || Dot(v, v) != 0 {
			t.Errorf("empty text: want the zero vector of %d dims", e.Model().Dim)
		}
	}
	if vecs, err = Queries(e, []string{""}); err != nil || len(vecs) != 1 {
		t.Errorf("only empty texts: %v, %v", vecs, err)
	}
}
