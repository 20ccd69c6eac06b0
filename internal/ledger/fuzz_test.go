package ledger

import (
	"encoding/json"
	"testing"
)

// FuzzDecode feeds the ledger reader arbitrary bytes: it returns a ledger
// or an error, never panics, and a ledger it accepts survives a write and
// a read unchanged.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"version":1,"session_id":"s","loaded":{"a":{"source":"ski","at":"2026-01-02T03:04:05Z","count":1}},"recommended":{},"events":[],"updated":"2026-01-02T03:04:05Z"}`))
	f.Add([]byte(`{"version":1,"session_id":"s","loaded":null,"recommended":null,"events":null}`))
	f.Add([]byte(`{"version":2,"session_id":"s"}`))
	f.Add([]byte(`{"version":1,"session_id":"s","loaded":{"a":{"sou`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := decode(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatalf("an accepted ledger does not encode: %v", err)
		}
		again, err := decode(b)
		if err != nil {
			t.Fatalf("an accepted ledger, written, does not read back: %v\n%s", err, b)
		}
		if b2, _ := json.Marshal(again); string(b2) != string(b) {
			t.Fatalf("a ledger changed through a write and a read:\n%s\n%s", b, b2)
		}
	})
}
