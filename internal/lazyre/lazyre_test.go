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
	r := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	r.MatchString("x")
}

func TestCompile(t *testing.T) {
	r, other := New(`compile[d]? now`), New(`later`)
	Compile(r)
	if r.re == nil || other.re != nil || !r.MatchString("compiled now") {
		t.Fatal("compiled the wrong patterns")
	}
}
