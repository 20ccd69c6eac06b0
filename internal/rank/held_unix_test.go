//go:build unix

package rank

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO in an index's place is refused, not opened (which would wait for
// a writer, holding every ranking up).
func TestHeldRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "i.skv")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	var h Held
	line := queryLine(t, path, "herd the zebras")
	done := make(chan error, 1)
	go func() {
		_, err := h.Rank(path, line, []byte(`{}`))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("a FIFO for an index: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ranking against a FIFO hung")
	}
}
