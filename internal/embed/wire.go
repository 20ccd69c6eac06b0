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
// hold at least 4*len(v) bytes.
func DecodeVector(v []float32, b []byte) {
	for j := range v {
		v[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
	}
}
