package quant

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/skill-inject/ski/internal/embed"
)

func unit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	embed.Normalize(v)
	return v
}

// Cosines through binary16 vectors stay within 0.0005 of the float32 ones;
// the vector instructions and the Go code agree; storing what Expand gives
// back changes nothing.
func TestDotCloseToFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for range 500 {
		a, b := unit(r, 384), unit(r, 384)
		h := Half(b)
		fast := Dot(a, string(h))
		worst = max(worst, math.Abs(fast-embed.Dot(a, b)))
		if slow := float64(dotGo(a, string(h))); math.Abs(fast-slow) > 1e-5 {
			t.Fatalf("vector and Go dot products differ: %v %v", fast, slow)
		}
		if string(Half(Expand(h))) != string(h) {
			t.Fatal("storing an expanded vector changed it")
		}
	}
	if worst > 0.0005 {
		t.Fatalf("worst cosine error %.5f", worst)
	}
	// Lengths that are not a multiple of 8 take the Go path for the rest.
	a, b := unit(r, 13), unit(r, 13)
	if d := math.Abs(Dot(a, string(Half(b))) - embed.Dot(a, b)); d > 0.001 {
		t.Fatalf("13 components: off by %v", d)
	}
}

// Conversions agree with the format on its edges.
func TestHalf(t *testing.T) {
	for _, c := range []struct {
		x    float32
		want uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {0.5, 0x3800}, {65504, 0x7bff}, {1e9, 0x7bff},
		{float32(math.Pow(2, -24)), 0x0001}, {float32(math.Pow(2, -14)), 0x0400}, {1e-9, 0},
		{1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02}, // ties to even
	} {
		if got := toHalf(c.x); got != c.want {
			t.Errorf("toHalf(%g) = %#04x, want %#04x", c.x, got, c.want)
		}
		if c.want != 0x7bff && c.x != 1e-9 && c.want != 0x3c00 && c.want != 0x3c02 {
			if back := fromHalf(c.want); back != c.x {
				t.Errorf("fromHalf(%#04x) = %g, want %g", c.want, back, c.x)
			}
		}
	}
	for h := range uint16(0x7c00) {
		if toHalf(fromHalf(h)) != h {
			t.Fatalf("%#04x does not round-trip", h)
		}
	}
}

func BenchmarkDot(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	q := unit(r, 384)
	s := string(Half(unit(r, 384)))
	for b.Loop() {
		Dot(q, s)
	}
}

func BenchmarkDotGo(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	q := unit(r, 384)
	s := string(Half(unit(r, 384)))
	for b.Loop() {
		dotGo(q, s)
	}
}
