package lazyre

import (
	"sync"
	"testing"
)

func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`(\w+)@(\w+)`)
	if r.re != nil {
		t.Fatal("compiled before use")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if !r.MatchString("a@b") {
				t.Error("no match")
			}
		})
	}
	wg.Wait()
	if got := r.FindStringSubmatch("x ann@host"); len(got) != 3 || got[1] != "ann" {
		t.Errorf("submatch %q", got)
	}
	if got := r.ReplaceAllString("a@b c@d", "$2"); got != "b d" {
		t.Errorf("replace %q", got)
	}
	if got := r.FindAllStringIndex("a@b c@d", -1); len(got) != 2 {
		t.Errorf("all %v", got)
	}
}

func TestBadPatternPanicsOnUse(t *testing.T) {
	r := &Regexp{expr: `(`} // not New: CompileAll would meet it
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	r.MatchString("x")
}

func TestCompileAll(t *testing.T) {
	r := New(`compile[d]? all`)
	CompileAll()
	if r.re == nil || !r.MatchString("compiled all") {
		t.Fatal("not compiled")
	}
}
