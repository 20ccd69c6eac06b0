package embedcmd

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/reader"
)

// The server's reader never has a prompt wait for a load: the first
// reading of an index starts the model's load in the background and is
// answered at once (the judge decides); once the load ends, a model that
// failed to load is the answer at once, every time; an index that is no
// regular file is refused without a load.
func TestReadingNeverWaitsForALoad(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "claude-x.skv")
	if err := os.WriteFile(index, []byte("not read before the model loads"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &reading{env: embed.Env{Environ: environ.Env{ModelDir: filepath.Join(dir, "no-models")}}, share: reader.NewShare(1)}
	defer r.close()
	err := afterWarming(t, r, index)
	if err == nil {
		t.Fatal("a reader with no model file read a prompt")
	}
	if _, again := r.read(index, "a prompt", []string{"a"}); again == nil || again.Error() != err.Error() {
		t.Errorf("after a failed load: %v, then %v", err, again)
	}
	if _, err := r.read(dir, "a prompt", []string{"a"}); err == nil || errors.Is(err, errWarming) {
		t.Errorf("a folder as the index: %v", err)
	}
	if s := r.counts(); s.Reads != 0 || s.Declined != 0 {
		t.Errorf("counts %+v: nothing was read or declined", s)
	}
}

// An index whose texts cannot be read is read once in the background;
// after that, readings meet its error at once, until the file changes.
func TestReadingHoldsAnIndexsError(t *testing.T) {
	index := filepath.Join(t.TempDir(), "claude-x.skv")
	if err := os.WriteFile(index, []byte("not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &reading{share: reader.NewShare(1)}
	r.once.Do(func() { r.opened.Store(true) }) // as if the model had loaded
	err := afterWarming(t, r, index)
	if err == nil {
		t.Fatal("a corrupt index gave texts")
	}
	r.mu.Lock()
	warming := len(r.warming)
	r.mu.Unlock()
	if _, again := r.read(index, "a prompt", []string{"a"}); again == nil || again.Error() != err.Error() || warming != 0 {
		t.Errorf("after a failed read: %v, then %v (%d reads under way)", err, again, warming)
	}
}

// afterWarming asks r for a reading of index, which must start a load in
// the background, and again until the load has ended: the first answer
// that is not errWarming.
func afterWarming(t *testing.T, r *reading, index string) error {
	t.Helper()
	if _, err := r.read(index, "a prompt", []string{"a"}); !errors.Is(err, errWarming) {
		t.Fatalf("first reading: %v, want errWarming", err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := r.read(index, "a prompt", []string{"a"}); !errors.Is(err, errWarming) {
			return err
		}
		if time.Now().After(end) {
			t.Fatal("the background load never ended")
		}
	}
}
