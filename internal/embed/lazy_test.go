package embed

import "testing"

// OpenOrLexical opens a backend's model on the first Embed and passes
// OneQuery on only when that first call embeds queries.
func TestLazyOneQuery(t *testing.T) {
	models["test-model"] = Model{ID: "test-model", Backend: "test-backend", Dim: lexicalDim}
	defer delete(models, "test-model")
	var got []bool
	Register("test-backend", func(m Model, env Env) (Embedder, error) {
		got = append(got, env.OneQuery)
		return NewLexical(), nil
	}, func(Model, Env) error { return nil })
	defer delete(backends, "test-backend")
	for _, c := range []struct {
		oneQuery bool
		first    Purpose
		want     bool
	}{
		{true, Query, true},
		{true, Document, false},
		{false, Query, false},
	} {
		got = nil
		e := OpenOrLexical("test-model", Env{OneQuery: c.oneQuery}, func(msg string) { t.Fatal(msg) })
		if len(got) != 0 {
			t.Fatal("opened before the first Embed")
		}
		e.Embed([]string{"a"}, c.first)
		e.Embed([]string{"b"}, Document)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("OneQuery %v, first %v: opened with %v, want once with %v", c.oneQuery, c.first, got, c.want)
		}
	}
}
