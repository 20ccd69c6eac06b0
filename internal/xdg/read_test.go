//go:build unix

package xdg

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO no one writes to is refused at once, not waited on; a regular
// file is read whole.
func TestReadFileNeverWaits(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a FIFO was read as a file")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFile waits for a writer of a FIFO")
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("text"), 0o600)
	if b, err := ReadFile(file); err != nil || string(b) != "text" {
		t.Fatalf("ReadFile: %q, %v", b, err)
	}
}
