package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestDeps(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "eval", "workspaces"))
	for dir, want := range map[string][]string{
		"api-go":      {"go", "golang", "pgx", "stripe-go"},
		"web-next":    {"javascript", "next", "node", "react", "react-dom", "stripe", "stripe-js", "types", "typescript", "vitest"},
		"data-polars": {"polars", "pyarrow", "python", "scikit-learn", "seaborn"},
		"svc-fastapi": {"fastapi", "pytest", "python", "sqlalchemy"},
	} {
		if got := Deps(filepath.Join(root, dir)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", dir, got, want)
		}
	}
	// A subdirectory belongs to the project above it, up to the repository.
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	os.WriteFile(filepath.Join(repo, "Cargo.toml"), []byte("[dependencies]\nserde = \"1\"\n"), 0o644)
	sub := filepath.Join(repo, "src", "bin")
	os.MkdirAll(sub, 0o755)
	if got := Deps(sub); !reflect.DeepEqual(got, []string{"rust", "serde"}) {
		t.Errorf("subdirectory: %v", got)
	}
	if got := Deps(filepath.Join(t.TempDir(), "nothing")); got != nil {
		t.Errorf("no project: %v", got)
	}
}
