package synth

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/scan"
)

func TestGenerateIsDeterministicAndValid(t *testing.T) {
	m, err := Learn(filepath.Join("..", "..", "testdata", "skills"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := m.Generate(50, 7), m.Generate(50, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different catalogs")
	}
	if reflect.DeepEqual(a, m.Generate(50, 8)) {
		t.Fatal("another seed, same catalog")
	}
	dir := t.TempDir()
	if err := Write(dir, a); err != nil {
		t.Fatal(err)
	}
	res, err := scan.Scan(scan.Options{Host: "claude", Roots: []string{dir}, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skills) != 50 || len(res.Errors) != 0 {
		t.Fatalf("scan: %d skills, errors %+v", len(res.Skills), res.Errors)
	}
	for _, s := range a {
		if len(strings.Fields(s.Description)) == 0 || len(s.Body) < 10 {
			t.Fatalf("empty skill %+v", s)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, a[0].Name, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
}
