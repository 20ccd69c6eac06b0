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

// A link to a file inside the skill's folder is listed; one that leaves
// it (a file elsewhere, the user's home) is refused and counted.
func TestBundledFilesRefusesLinksThatLeave(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "demo")
	os.MkdirAll(filepath.Join(dir, "refs"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: demo\ndescription: d\n---\nx\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "refs", "a.md"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(base, "secret"), []byte("s"), 0o644)
	os.Symlink(filepath.Join(dir, "refs", "a.md"), filepath.Join(dir, "same.md"))
	os.Symlink(filepath.Join(base, "secret"), filepath.Join(dir, "refs", "secret"))
	os.Symlink("../../secret", filepath.Join(dir, "refs", "up"))
	os.Symlink("/", filepath.Join(dir, "root"))
	files, refused := BundledFiles(dir)
	if strings.Join(files, ",") != "refs/a.md,same.md" || refused != 3 {
		t.Fatalf("files %v, refused %d; want refs/a.md,same.md and 3 refused", files, refused)
	}
}
