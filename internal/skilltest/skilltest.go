// Package skilltest writes skills for tests.
package skilltest

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes root/id/SKILL.md with the last part of id as its name and
// desc as its description.
func Write(t testing.TB, root, id, desc string) {
	t.Helper()
	dir := filepath.Join(root, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: " + filepath.Base(id) + "\ndescription: " + desc + "\n---\n# " + id + "\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
