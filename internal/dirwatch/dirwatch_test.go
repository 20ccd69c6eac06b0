//go:build linux

package dirwatch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// watch opens a set watching dirs, closed with the test.
func watch(t *testing.T, dirs ...string) *Set {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, d := range dirs {
		if err := s.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestEachKindOfChangeIsSeen(t *testing.T) {
	changes := map[string]func(dir string) error{
		"file created": func(dir string) error { return os.WriteFile(filepath.Join(dir, "new.md"), nil, 0o600) },
		"file written": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("changed"), 0o600)
		},
		"file removed": func(dir string) error { return os.Remove(filepath.Join(dir, "SKILL.md")) },
		"file renamed": func(dir string) error {
			return os.Rename(filepath.Join(dir, "SKILL.md"), filepath.Join(dir, "OLD.md"))
		},
		"mode changed": func(dir string) error { return os.Chmod(filepath.Join(dir, "SKILL.md"), 0o644) },
		"folder made":  func(dir string) error { return os.Mkdir(filepath.Join(dir, "sub"), 0o700) },
		"folder gone":  os.RemoveAll,
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "skill")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := watch(t, dir)
			if s.Changed() {
				t.Fatal("changed before anything happened")
			}
			if err := change(dir); err != nil {
				t.Fatal(err)
			}
			if !s.Changed() {
				t.Fatal("the change was not seen")
			}
			if !s.Changed() {
				t.Fatal("the change was not kept")
			}
		})
	}
}

func TestReadingASkillIsNoChange(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := watch(t, dir)
	if _, err := os.ReadFile(file); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	if s.Changed() {
		t.Fatal("reading a folder counted as a change")
	}
}

func TestSymlinkedFolderIsWatchedAtItsTarget(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "elsewhere")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	s := watch(t, link)
	if err := os.WriteFile(filepath.Join(target, "SKILL.md"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if !s.Changed() {
		t.Fatal("a change at the link's target was not seen")
	}
}

func TestAddRefusesFilesMissingFoldersAndMoreThanTheLimit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := watch(t)
	if err := s.Add(file); err == nil {
		t.Error("a file was watched as a folder")
	}
	if err := s.Add(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing folder was watched")
	}
	s.limit = 2
	for _, d := range []string{"a", "b", "c"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(filepath.Join(dir, "a")); err != nil || s.Len() != 1 {
		t.Fatalf("watching a folder twice: %v, %d watched", err, s.Len())
	}
	if err := s.Add(filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(filepath.Join(dir, "c")); !errors.Is(err, ErrLimit) {
		t.Fatalf("over the limit: %v, want ErrLimit", err)
	}
}

func TestAddEntryCountsOnlyThatEntry(t *testing.T) {
	parent := t.TempDir()
	s := watch(t)
	if err := s.AddEntry(parent, "skills"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "history.jsonl"), []byte("a prompt"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(parent, "todos"), 0o700); err != nil {
		t.Fatal(err)
	}
	if s.Changed() {
		t.Fatal("a change to another entry counted")
	}
	if err := os.Mkdir(filepath.Join(parent, "skills"), 0o700); err != nil {
		t.Fatal(err)
	}
	if !s.Changed() {
		t.Fatal("the entry watched for was made unseen")
	}

	// The same folder added whole as well: every change counts.
	both := watch(t)
	if err := both.AddEntry(parent, "skills"); err != nil {
		t.Fatal(err)
	}
	if err := both.Add(parent); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "history.jsonl"), []byte("another"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !both.Changed() {
		t.Fatal("a folder watched whole missed a change")
	}
}
