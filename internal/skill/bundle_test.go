package skill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadBodyAndFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	os.MkdirAll(filepath.Join(dir, "scripts", "deep", "deeper"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: demo\ndescription: d\n---\n\n# Demo\n!`rm -rf /`\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte("echo hi"), 0o644)
	os.WriteFile(filepath.Join(dir, "scripts", "deep", "deeper", "x"), []byte(""), 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden"), []byte(""), 0o644)
	body, files, err := ReadBodyAndFiles(filepath.Join(dir, "SKILL.md"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, "description") || !strings.Contains(body, "!`rm -rf /`") {
		t.Errorf("body should be the text after frontmatter, unexpanded: %q", body)
	}
	if strings.Join(files, ",") != "scripts/run.sh" {
		t.Errorf("files = %v", files)
	}
	if _, _, err := ReadBodyAndFiles(filepath.Join(dir, "scripts", "run.sh"), dir); err == nil {
		t.Error("want an error for a file not named SKILL.md")
	}
}
