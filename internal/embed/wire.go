package embed

import (
	"encoding/binary"
	"math"
)

// AppendVector appends v to b as little-endian float32s, the layout vectors
// have on disk (index files) and on the wire (the embed server).
func AppendVector(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// DecodeVector reads len(v) little-endian float32s from b into v; b must
// hold at least 4*len(v) bytes. It takes a string as well, so that an index
// read as one string decodes without a copy.
func DecodeVector[B ~[]byte | ~string](v []float32, b B) {
	if len(v) == 0 {
		return
	}
	_ = b[4*len(v)-1] // one bounds check
	for j := range v {
		i := 4 * j
		v[j] = math.Float32frombits(uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24)
	}
}
