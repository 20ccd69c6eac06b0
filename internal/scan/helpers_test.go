package scan

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/record"
)

// writeFile writes data at path, creating folders.
func writeFile(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeSkill writes dir/SKILL.md with the given name ("" for none).
func writeSkill(t *testing.T, dir, name string) string {
	t.Helper()
	fm := "---\n"
	if name != "" {
		fm += "name: " + name + "\n"
	}
	fm += "description: The " + filepath.Base(dir) + " test skill.\n---\n\nBody.\n"
	return writeFile(t, filepath.Join(dir, "SKILL.md"), fm)
}

func mkdir(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	mkdir(t, filepath.Dir(link))
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the regular files below src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dst, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// tempDir is t.TempDir with symlinks resolved, so paths compare equal to
// what the scanner reports.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustScan(t *testing.T, o Options) Result {
	t.Helper()
	res, err := Scan(o)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return res
}

func ids(skills []record.Skill) []string {
	out := []string{}
	for _, s := range skills {
		out = append(out, s.ID)
	}
	return out
}

func errIDs(errs []record.ScanError) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.ID)
	}
	return out
}

func findSkill(t *testing.T, res Result, id string) record.Skill {
	t.Helper()
	for _, s := range res.Skills {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no skill %q in %v (errors %v)", id, ids(res.Skills), res.Errors)
	return record.Skill{}
}

func findError(t *testing.T, res Result, id string) record.ScanError {
	t.Helper()
	for _, e := range res.Errors {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("no error record %q in %+v", id, res.Errors)
	return record.ScanError{}
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s\n got %q\nwant %q", what, got, want)
	}
}

// rootList renders roots as "scope:path-relative-to-base[:plugin]".
func rootList(roots []Root, base string) []string {
	var out []string
	for _, r := range roots {
		p := strings.TrimPrefix(r.Path, base+string(filepath.Separator))
		s := r.Scope + ":" + p
		if r.Plugin != "" {
			s += ":" + r.Plugin
		}
		out = append(out, s)
	}
	return out
}
