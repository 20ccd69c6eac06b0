package reader

import (
	"errors"
	"testing"
)

// A Share reads the saved readings first, then one prompt in 1/limit, so
// that over a long run the reader reads at most limit of the prompts.
func TestShare(t *testing.T) {
	s := NewShare(0.4)
	took := 0
	for i := range 1000 {
		s.Prompt()
		if s.Take() {
			took++
		}
		if i == shareBurst-1 && took != shareBurst {
			t.Fatalf("the first %d prompts: %d read, want all", shareBurst, took)
		}
	}
	if took > 400+shareBurst || took < 400 {
		t.Fatalf("1000 prompts all wanting the reader at a share of 0.4: %d read", took)
	}
	// Prompts that need no reading save up, but no more than the burst.
	for range 100 {
		s.Prompt()
	}
	took = 0
	for s.Take() {
		took++
	}
	if took != shareBurst {
		t.Fatalf("after 100 prompts unread, %d readings in a row, want %d", took, shareBurst)
	}
	// No share (a params.json without max_share) never declines.
	none := NewShare(0)
	for range 100 {
		if !none.Take() {
			t.Fatal("a share of 0 (unset) declined")
		}
	}
}

// Within declines past the share with ErrPastShare, and Step leaves the
// candidates as the judge made them.
func TestWithinDeclines(t *testing.T) {
	p := Params{Read: 2, Low: 0.1, High: 0.9, Judge: 1, Reader: 1}
	s := NewShare(0.5)
	for s.Take() {
	}
	inner := &scorerOf{beliefs: map[string]float64{"a": 0.1, "b": 0.9}}
	cs := cands(0.5, 0.4)
	ran, err := p.Step(cs, "x", Within(s, inner))
	if ran || !errors.Is(err, ErrPastShare) || inner.calls != 0 || cs[0].ID != "a" || cs[0].Reader != nil {
		t.Fatalf("past the share: ran %v, err %v, calls %d, first %+v", ran, err, inner.calls, cs[0])
	}
	s.Prompt()
	s.Prompt()
	if ran, err := p.Step(cs, "x", Within(s, inner)); !ran || err != nil || inner.calls != 1 || cs[0].ID != "b" {
		t.Fatalf("within the share: ran %v, err %v, calls %d, first %+v", ran, err, inner.calls, cs[0])
	}
}
