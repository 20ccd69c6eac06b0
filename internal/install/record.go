package install

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Kinds of what an install made outside ski's own folders.
const (
	// MadeDir is a folder that was not there before (scripts/install.sh
	// notes the folders on the way to everything it and the set-up write).
	MadeDir = "dir"
	// MadeFile is a file ski created, such as a settings.json that was not
	// there.
	MadeFile = "file"
	// MadeBackup is a copy ski made of a file before it changed it.
	MadeBackup = "backup"
)

// Record lists what installs made outside ski's own folders, one
// "KIND<tab>PATH" line each, in a file of ski's data folder: what
// uninstall takes away again, so that what was there before is what is
// there after.
type Record struct {
	path    string
	entries [][2]string // kind, path
}

// RecordPath is the record's file in ski's data folder.
func RecordPath(dataDir string) string { return filepath.Join(dataDir, "installed") }

// ReadRecord reads the record in dataDir; a missing one is empty.
func ReadRecord(dataDir string) (*Record, error) {
	r := &Record{path: RecordPath(dataDir)}
	data, err := os.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if kind, path, ok := strings.Cut(sc.Text(), "\t"); ok && path != "" {
			r.entries = append(r.entries, [2]string{kind, path})
		}
	}
	return r, sc.Err()
}

// Has reports whether the record holds kind for path.
func (r *Record) Has(kind, path string) bool {
	for _, e := range r.entries {
		if e == [2]string{kind, path} {
			return true
		}
	}
	return false
}

// Add notes kind for path, once.
func (r *Record) Add(kind, path string) {
	if !r.Has(kind, path) {
		r.entries = append(r.entries, [2]string{kind, path})
	}
}

// Drop forgets kind for path.
func (r *Record) Drop(kind, path string) {
	kept := r.entries[:0]
	for _, e := range r.entries {
		if e != [2]string{kind, path} {
			kept = append(kept, e)
		}
	}
	r.entries = kept
}

// Paths lists the paths of kind, oldest first.
func (r *Record) Paths(kind string) []string {
	var out []string
	for _, e := range r.entries {
		if e[0] == kind {
			out = append(out, e[1])
		}
	}
	return out
}

// Write saves the record; an empty one removes the file.
func (r *Record) Write() error {
	if len(r.entries) == 0 {
		if err := os.Remove(r.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", r.path, err)
		}
		return nil
	}
	var b strings.Builder
	for _, e := range r.entries {
		b.WriteString(e[0] + "\t" + e[1] + "\n")
	}
	return writeAtomic(r.path, []byte(b.String()))
}

// AddCreated notes that path, which does not exist yet, is a file ski is
// about to create, and the folders on the way to it that do not exist.
func (r *Record) AddCreated(path string) {
	for _, d := range missingDirs(path) {
		r.Add(MadeDir, d)
	}
	r.Add(MadeFile, path)
}

// missingDirs lists the folders on the way to path that do not exist,
// outermost first.
func missingDirs(path string) []string {
	var out []string
	for d := filepath.Dir(path); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}
