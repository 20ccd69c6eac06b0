package quant

import "golang.org/x/sys/cpu"

// hasVector says the CPU has AVX2, FMA and F16C, which dotAVX2 uses.
var hasVector = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C

// dotAVX2 returns the dot product of n float32s at q and n binary16s at b;
// n is a multiple of 8.
//
//go:noescape
func dotAVX2(q *float32, b *byte, n int) float32

// dot8 is the dot product of q and the binary16s b; len(q) is a multiple
// of 8 and len(b) >= 2*len(q).
func dot8(q []float32, b string) float32 {
	if !hasVector {
		return dotGo(q, b)
	}
	_ = b[2*len(q)-1]
	return dotAVX2(&q[0], unsafeStringData(b), len(q))
}
