package vecfile

import (
	"bytes"
	"testing"
)

// FuzzDecode feeds the index decoder arbitrary bytes: it returns an index
// or an error, never panics, and what it accepts whole it writes back the
// same.
func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample(), plain{}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:len(buf.Bytes())/2])
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		decode(string(data), headerOnly, nil)
		if idx, err := decode(string(data), ranking, nil); err == nil {
			for i := range idx.Len() {
				idx.Skill(i)
			}
			idx.Mentioned("b")
			idx.Keyworded()
		}
		idx, err := decode(string(data), whole, plain{})
		if err != nil {
			return
		}
		var again bytes.Buffer
		if err := Encode(&again, idx, plain{}); err != nil {
			t.Fatalf("an index the decoder accepted does not encode: %v", err)
		}
		if _, err := decode(again.String(), whole, plain{}); err != nil {
			t.Fatalf("an index the decoder accepted, written back, does not decode: %v", err)
		}
	})
}
