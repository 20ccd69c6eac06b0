package ledger

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// State of the wrong kind (left by a full disk, a stray command, a careless
// link) is set aside and the session goes on: it must not silence the
// session for good, and never is a symlink's target read or written.
func TestWrongKindOfState(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, s *Store, elsewhere string)
	}{
		{"ledger is a directory", func(t *testing.T, s *Store, _ string) {
			os.MkdirAll(filepath.Join(s.Dir, "s1.json", "x"), 0o700)
		}},
		{"ledger is empty", func(t *testing.T, s *Store, _ string) {
			os.WriteFile(filepath.Join(s.Dir, "s1.json"), nil, 0o600)
		}},
		{"ledger is truncated", func(t *testing.T, s *Store, _ string) {
			os.WriteFile(filepath.Join(s.Dir, "s1.json"), []byte(`{"version":1,"session_id":"s1","loaded":{"a":{"sou`), 0o600)
		}},
		{"ledger is a dangling symlink", func(t *testing.T, s *Store, elsewhere string) {
			os.Symlink(filepath.Join(elsewhere, "missing"), filepath.Join(s.Dir, "s1.json"))
		}},
		{"ledger is a FIFO", func(t *testing.T, s *Store, _ string) {
			mkfifo(t, filepath.Join(s.Dir, "s1.json"))
		}},
		{"lock is a directory", func(t *testing.T, s *Store, _ string) {
			os.MkdirAll(filepath.Join(s.Dir, "s1.lock", "x"), 0o700)
		}},
		{"lock is empty", func(t *testing.T, s *Store, _ string) {
			os.WriteFile(filepath.Join(s.Dir, "s1.lock"), nil, 0o600)
		}},
		{"lock is a dangling symlink", func(t *testing.T, s *Store, elsewhere string) {
			os.Symlink(filepath.Join(elsewhere, "missing"), filepath.Join(s.Dir, "s1.lock"))
		}},
		{"lock is a symlink elsewhere", func(t *testing.T, s *Store, elsewhere string) {
			os.WriteFile(filepath.Join(elsewhere, "file"), []byte("keep"), 0o600)
			os.Symlink(filepath.Join(elsewhere, "file"), filepath.Join(s.Dir, "s1.lock"))
		}},
		{"lock is a FIFO", func(t *testing.T, s *Store, _ string) {
			mkfifo(t, filepath.Join(s.Dir, "s1.lock"))
		}},
		{"ledger dir is a file", func(t *testing.T, s *Store, _ string) {
			os.RemoveAll(s.Dir)
			os.WriteFile(s.Dir, []byte("garbage"), 0o600)
		}},
		{"ledger dir is a symlink elsewhere", func(t *testing.T, s *Store, elsewhere string) {
			os.RemoveAll(s.Dir)
			os.Symlink(elsewhere, s.Dir)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, warns := testStore(t)
			if err := os.MkdirAll(s.Dir, 0o700); err != nil {
				t.Fatal(err)
			}
			elsewhere := t.TempDir()
			c.setup(t, s, elsewhere)
			before := listing(t, elsewhere)
			if _, err := s.Load("s1"); err != nil {
				t.Fatalf("load: %v", err)
			}
			for i := range 2 {
				if err := s.Update("s1", func(l *Ledger) error { l.MarkLoaded("a", SourceSki, t0); return nil }); err != nil {
					t.Fatalf("update %d: %v", i, err)
				}
			}
			l, err := s.Load("s1")
			if err != nil {
				t.Fatal(err)
			}
			if e, ok := l.Loaded("a"); !ok || e.Count != 2 {
				t.Fatalf("after two updates: %+v, %v", e, ok)
			}
			if after := listing(t, elsewhere); after != before {
				t.Fatalf("the symlink's target changed: %q -> %q", before, after)
			}
			if strings.Contains(c.name, "empty") && strings.Contains(c.name, "lock") {
				return // an empty lock file is a lock file
			}
			if len(*warns) == 0 || !strings.Contains(strings.Join(*warns, "\n"), "moved aside") {
				t.Fatalf("no warning of a file set aside: %q", *warns)
			}
		})
	}
}

// listing names the files under dir with their contents.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil {
			c, _ := os.ReadFile(p)
			b.WriteString(p + "=" + string(c) + ";")
		}
		return nil
	})
	return b.String()
}
