package environ

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/xdg"
)

func TestParse(t *testing.T) {
	e := Parse([]string{"HOME=/h", "XDG_CONFIG_HOME=/c", "XDG_CACHE_HOME=relative", "XDG_RUNTIME_DIR=/run/u",
		"SKI_ROOTS=/a: :/b", "SKI_EMBED_SERVER=0", "CLAUDE_CONFIG_DIR=rel", "OPENCODE_CONFIG_DIR=/o",
		"LD_LIBRARY_PATH=/l1:/l2", "SKI_MODEL_DIR=m", "HOME=/home/u"})
	want := xdg.Dirs{Data: "/home/u/.local/share/ski", State: "/home/u/.local/state/ski", Config: "/c/ski",
		Cache: "/home/u/.cache/ski", Home: "/home/u"}
	if e.Dirs != want {
		t.Errorf("dirs %+v, want %+v (the last HOME wins, relative XDG values are ignored)", e.Dirs, want)
	}
	if e.ConfigHome != "/c" || e.RuntimeDir != "/run/u" || e.ClaudeConfigDir != "" || e.OpencodeConfigDir != "/o" {
		t.Errorf("folders: %+v", e)
	}
	if e.ClaudeDir() != "/home/u/.claude" {
		t.Errorf("ClaudeDir %q", e.ClaudeDir())
	}
	if !reflect.DeepEqual(e.Roots, []string{"/a", "/b"}) || !e.NoServer || e.ModelDir != "m" ||
		!reflect.DeepEqual(e.LibraryPath, []string{"/l1", "/l2"}) {
		t.Errorf("values: %+v", e)
	}
	if Parse([]string{"SKI_EMBED_SERVER=1"}).NoServer {
		t.Error("SKI_EMBED_SERVER=1 read as off")
	}
}

// A child gets the environment as given, less what is dropped; With sets
// a value over it.
func TestListAndWith(t *testing.T) {
	e := Parse([]string{"HOME=/h", "SKI_STAGE_TIMEOUT=3", "X=y=z"})
	if got := e.List("SKI_STAGE_TIMEOUT"); !reflect.DeepEqual(got, []string{"HOME=/h", "X=y=z"}) {
		t.Errorf("List: %q", got)
	}
	if e.Value("X") != "y=z" || e.StageTimeout != "3" {
		t.Errorf("Value %q, StageTimeout %q", e.Value("X"), e.StageTimeout)
	}
	f := e.With("SKI_EMBED_SERVER=0", "CLAUDE_CONFIG_DIR=/cc")
	if !f.NoServer || f.ClaudeDir() != "/cc" || e.NoServer {
		t.Errorf("With: %+v (from %+v)", f, e)
	}
}

// Every variable is named once, and every SKI_ variable the Go code names
// is in the list (ski doctor prints it). The code is what ships: the test
// helpers, packages that only tests import, name the tests' own variables.
func TestVariablesListed(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range Variables {
		if seen[v.Name] {
			t.Errorf("%s listed twice", v.Name)
		}
		seen[v.Name] = true
	}
	files, _ := filepath.Glob("../../internal/*/*.go")
	cmds, _ := filepath.Glob("../../cmd/*/*.go")
	all := slices.Concat(files, cmds)
	shipped := map[string]bool{} // internal packages a non-test file imports
	for _, f := range all {
		b, err := readFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`"github.com/skill-inject/ski/internal/([a-z0-9]+)"`).FindAllStringSubmatch(b, -1) {
			if !strings.HasSuffix(f, "_test.go") {
				shipped[m[1]] = true
			}
		}
	}
	for _, f := range all {
		pkg := filepath.Base(filepath.Dir(f))
		if strings.HasSuffix(f, "_test.go") || strings.Contains(f, "/internal/") && !shipped[pkg] {
			continue
		}
		b, err := readFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range strings.FieldsFunc(b, func(r rune) bool { return !(r == '_' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }) {
			if strings.HasPrefix(w, "SKI_") && len(w) > 4 && !seen[w] {
				t.Errorf("%s names %s, which Variables does not list", f, w)
			}
		}
	}
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}
