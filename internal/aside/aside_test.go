package aside

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMoveKeepsNewestCopy(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a[1].skv")
	other := filepath.Join(dir, "b.skv.corrupt-1")
	os.WriteFile(other, []byte("x"), 0o600)
	os.WriteFile(path, []byte("one"), 0o600)
	first, err := Move(path, time.Unix(0, 10))
	if err != nil {
		t.Fatal(err)
	}
	// A directory standing where the file should be is set aside too.
	if err := os.MkdirAll(filepath.Join(path, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	second, err := Move(path, time.Unix(0, 20))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("older copy %s kept: %v", first, err)
	}
	if st, err := os.Stat(second); err != nil || !st.IsDir() {
		t.Errorf("newest copy %s: %v", second, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another file's copy removed: %v", err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("path still taken: %v", err)
	}
}

func TestMoveMissing(t *testing.T) {
	if _, err := Move(filepath.Join(t.TempDir(), "none"), time.Now()); err == nil {
		t.Fatal("moving a missing file succeeded")
	}
}
