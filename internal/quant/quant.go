// Package quant stores unit vectors in half the space: each component as
// an IEEE 754 half-precision float (binary16). Cosines against a float32
// query come out within ~0.0005 of the float32 ones (measured: well under
// any gate's resolution), and a catalog of 10,000 skills needs 7.7 MB of
// vectors instead of 15.4 MB. Dot products convert and multiply eight
// components an instruction with AVX2 and F16C where the CPU has them.
package quant

import "math"

// Half returns v's components as binary16s, little-endian, rounded to the
// nearest (ties to even); magnitudes beyond the format saturate.
func Half(v []float32) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		h := toHalf(x)
		b[2*i], b[2*i+1] = byte(h), byte(h>>8)
	}
	return b
}

// Expand returns the float32s that binary16s b stand for.
func Expand[B ~[]byte | ~string](b B) []float32 {
	v := make([]float32, len(b)/2)
	for i := range v {
		v[i] = fromHalf(uint16(b[2*i]) | uint16(b[2*i+1])<<8)
	}
	return v
}

// Dot returns the dot product of the float32 query q and the binary16
// vector b (len(b) >= 2*len(q)).
func Dot(q []float32, b string) float64 {
	n := len(q) &^ 7
	var s float32
	if n > 0 {
		s = dot8(q[:n], b[:2*n])
	}
	for i := n; i < len(q); i++ {
		s += q[i] * fromHalf(uint16(b[2*i])|uint16(b[2*i+1])<<8)
	}
	return float64(s)
}

// dotGo is dot8 in Go, for machines without the vector instructions.
func dotGo(q []float32, b string) float32 {
	b = b[:2*len(q)]
	var s0, s1, s2, s3 float32
	for i := 0; i+4 <= len(q); i += 4 {
		s0 += q[i] * fromHalf(uint16(b[2*i])|uint16(b[2*i+1])<<8)
		s1 += q[i+1] * fromHalf(uint16(b[2*i+2])|uint16(b[2*i+3])<<8)
		s2 += q[i+2] * fromHalf(uint16(b[2*i+4])|uint16(b[2*i+5])<<8)
		s3 += q[i+3] * fromHalf(uint16(b[2*i+6])|uint16(b[2*i+7])<<8)
	}
	return s0 + s1 + s2 + s3
}

// toHalf rounds x to binary16.
func toHalf(x float32) uint16 {
	bits := math.Float32bits(x)
	sign := uint16(bits>>16) & 0x8000
	exp := int(bits>>23&0xff) - 127 + 15
	mant := bits & 0x7fffff
	switch {
	case bits&0x7fffffff == 0:
		return sign
	case exp >= 31: // too large (or inf, nan): the largest finite half
		return sign | 0x7bff
	case exp <= 0: // subnormal or zero
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		half := mant >> shift
		rest := mant & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rest > mid || rest == mid && half&1 == 1 {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(exp)<<10 | mant>>13
	rest := mant & 0x1fff
	if rest > 0x1000 || rest == 0x1000 && half&1 == 1 {
		half++ // may carry into the exponent, which is right
	}
	if half >= 0x7c00 {
		return sign | 0x7bff
	}
	return sign | uint16(half)
}

// fromHalf widens a binary16 (no infinities or NaNs are ever written).
func fromHalf(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h >> 10 & 0x1f)
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: normalise
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
	case exp == 31:
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	}
	return math.Float32frombits(sign | (exp-15+127)<<23 | mant<<13)
}
