package xdg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOwnDir(t *testing.T) {
	for name, setup := range map[string]func(top, elsewhere string){
		"missing":             func(top, elsewhere string) {},
		"top is a symlink":    func(top, elsewhere string) { os.Symlink(elsewhere, top) },
		"middle is a symlink": func(top, elsewhere string) { os.Mkdir(top, 0o700); os.Symlink(elsewhere, filepath.Join(top, "index")) },
		"top is a file":       func(top, elsewhere string) { os.WriteFile(top, []byte("x"), 0o600) },
		"leaf is a dangling link": func(top, elsewhere string) {
			os.MkdirAll(filepath.Join(top, "index"), 0o700)
			os.Symlink(filepath.Join(elsewhere, "no"), filepath.Join(top, "index", "v1"))
		},
		"everything already exists": func(top, elsewhere string) { os.MkdirAll(filepath.Join(top, "index", "v1"), 0o700) },
	} {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			top := filepath.Join(base, "cache", "ski")
			os.MkdirAll(filepath.Dir(top), 0o700)
			elsewhere := filepath.Join(base, "elsewhere")
			os.Mkdir(elsewhere, 0o700)
			setup(top, elsewhere)
			var warns []string
			dir := filepath.Join(top, "index", "v1")
			if err := OwnDir(dir, top, func(s string) { warns = append(warns, s) }); err != nil {
				t.Fatal(err)
			}
			for p := dir; p != filepath.Dir(top); p = filepath.Dir(p) {
				if st, err := os.Lstat(p); err != nil || !st.IsDir() {
					t.Fatalf("%s: not a real directory (%v)", p, err)
				}
			}
			if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
				t.Fatalf("something was made where a symlink pointed: %v", entries)
			}
			if strings.Contains(name, "link") || strings.Contains(name, "file") {
				if len(warns) != 1 || !strings.Contains(warns[0], "moved aside") {
					t.Fatalf("warnings %q", warns)
				}
			}
		})
	}
	if err := OwnDir("/etc", t.TempDir(), nil); err == nil {
		t.Fatal("a folder outside top was accepted")
	}
}
