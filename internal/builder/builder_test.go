package builder

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embcache"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/skilltest"
	"github.com/skill-inject/ski/internal/vecfile"
)

// counting is a model (the lexical embedder under another id) that counts
// the texts it embeds and can be made to fail after some calls, as a
// builder killed half way stops.
type counting struct {
	embed.Embedder
	id       string // "": test-model
	texts    int
	failFrom int // calls from this one on fail; 0 never
	calls    int
}

func (c *counting) Model() embed.Model {
	m := c.Embedder.Model()
	m.ID = cmp.Or(c.id, "test-model")
	return m
}

func (c *counting) Embed(texts []string, p embed.Purpose) ([][]float32, error) {
	c.calls++
	if c.failFrom > 0 && c.calls >= c.failFrom && p == embed.Document {
		return nil, errors.New("killed")
	}
	if p == embed.Document {
		c.texts += len(texts)
	}
	return c.Embedder.Embed(texts, p)
}

func project(t *testing.T, root string) Project {
	return Project{Scan: scan.Options{Host: "claude", Roots: []string{root}, Home: t.TempDir()},
		Model: "test-model", CacheDir: t.TempDir()}
}

func run(t *testing.T, p Project, emb embed.Embedder) Result {
	t.Helper()
	res, err := Run(p, Options{Embedder: emb,
		Warn: func(s string) { t.Log(s) }})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRunIncrementalAndNoChange(t *testing.T) {
	root := t.TempDir()
	skilltest.Write(t, root, "a", "Alpha.")
	skilltest.Write(t, root, "b", "Beta.")
	p := project(t, root)
	emb := &counting{Embedder: embed.NewLexical()}
	if res := run(t, p, emb); !res.Built || res.Stats.Embedded != 2 || res.Count != 2 {
		t.Fatalf("first build: %+v", res)
	}
	if h, err := vecfile.ReadHeader(p.LexicalPath()); err != nil || h.Count != 2 || h.Model != embed.LexicalID {
		t.Fatalf("lexical index: %+v %v", h, err)
	}
	before, _ := os.Stat(p.IndexPath())
	if res := run(t, p, emb); res.Built || emb.texts != 2 {
		t.Fatalf("nothing changed: %+v, %d texts embedded", res, emb.texts)
	}
	if after, _ := os.Stat(p.IndexPath()); !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("nothing changed, yet the index was rewritten")
	}
	skilltest.Write(t, root, "b", "Beta, changed.")
	skilltest.Write(t, root, "c", "Gamma.")
	if res := run(t, p, emb); res.Stats.Embedded != 2 || res.Stats.Reused != 1 || res.Count != 3 {
		t.Fatalf("one changed, one new: %+v", res)
	}
	if _, err := os.Stat(p.ProgressPath()); !os.IsNotExist(err) {
		t.Errorf("progress file left behind: %v", err)
	}
}

// A build killed half way keeps what it embedded: the next embeds exactly
// the texts not yet persisted, and its index equals a clean build's.
func TestKilledBuildResumes(t *testing.T) {
	root := t.TempDir()
	for i := range 30 {
		skilltest.Write(t, root, fmt.Sprintf("s%02d", i), fmt.Sprintf("Skill number %d does thing %d.", i, i*7))
	}
	p := project(t, root)
	killed := &counting{Embedder: embed.NewLexical(), failFrom: 3} // two batches of 8 get through
	if _, err := Run(p, Options{Embedder: killed, Warn: func(s string) { t.Log(s) }}); err == nil {
		t.Fatal("the killed build succeeded")
	}
	cache, _ := embcache.Open(p.CacheDir, "test-model", 1024, nil)
	persisted := cache.Len()
	if persisted == 0 || persisted >= 30 {
		t.Fatalf("%d vectors persisted by the killed build, want some", persisted)
	}
	resumed := &counting{Embedder: embed.NewLexical()}
	res := run(t, p, resumed)
	if resumed.texts != 30-persisted || res.Stats.Embedded != 30-persisted || res.Stats.Cached != persisted {
		t.Fatalf("resumed build embedded %d texts (%+v), want %d", resumed.texts, res.Stats, 30-persisted)
	}
	got, err := indexfile.Read(p.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	clean := project(t, root)
	clean.Scan.Home = p.Scan.Home
	run(t, clean, &counting{Embedder: embed.NewLexical()})
	want, err := indexfile.Read(clean.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	got.Header.Created, want.Header.Created = "", ""
	if !reflect.DeepEqual(got, want) {
		t.Error("resumed index differs from a clean build's")
	}
}

// Every kind of damage to the index is found, set aside and rebuilt.
func TestDamageHeals(t *testing.T) {
	for name, damage := range map[string]func(path string){
		"flipped table byte": func(p string) {
			b, _ := os.ReadFile(p)
			b[len(b)*2/3] ^= 0x08
			os.WriteFile(p, b, 0o600)
		},
		"flipped header byte": func(p string) {
			b, _ := os.ReadFile(p)
			b[30] ^= 0x01
			os.WriteFile(p, b, 0o600)
		},
		"truncated":  func(p string) { b, _ := os.ReadFile(p); os.WriteFile(p, b[:len(b)/2], 0o600) },
		"empty":      func(p string) { os.WriteFile(p, nil, 0o600) },
		"directory":  func(p string) { os.Remove(p); os.MkdirAll(filepath.Join(p, "d"), 0o700) },
		"symlink":    func(p string) { os.Remove(p); os.Symlink("/etc/passwd", p) },
		"other file": func(p string) { os.WriteFile(p, []byte("not an index\n"), 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			skilltest.Write(t, root, "a", "Alpha.")
			p := project(t, root)
			run(t, p, &counting{Embedder: embed.NewLexical()})
			damage(p.IndexPath())
			var warns []string
			if s := Check(p.IndexPath(), p.Model, p.Scan, true, func(s string) { warns = append(warns, s) }); s != Damaged {
				t.Fatalf("Check = %v, want damaged", s)
			}
			if len(warns) != 1 || !strings.Contains(warns[0], "moved aside") {
				t.Fatalf("warnings: %q", warns)
			}
			emb := &counting{Embedder: embed.NewLexical()}
			if res := run(t, p, emb); !res.Built || res.Stats.Cached != 1 || emb.texts != 0 {
				t.Fatalf("rebuild: %+v, %d texts embedded (want the cached vector)", res, emb.texts)
			}
			if err := vecfile.Verify(p.IndexPath()); err != nil {
				t.Fatal(err)
			}
			if Check(p.IndexPath(), p.Model, p.Scan, true, func(s string) { t.Log(s) }) != Current {
				t.Fatal("rebuilt index is not current")
			}
		})
	}
}

func TestLockIsExclusive(t *testing.T) {
	p := project(t, t.TempDir())
	first, ok, err := Lock(p, false)
	if err != nil || !ok {
		t.Fatalf("first lock: %v %v", ok, err)
	}
	if _, ok, err := Lock(p, false); ok || err != nil {
		t.Fatalf("second lock while held: %v %v", ok, err)
	}
	first.Close()
	// A lock path taken by a directory is set aside.
	os.Remove(p.LockPath())
	os.MkdirAll(filepath.Join(p.LockPath(), "x"), 0o700)
	if l, ok, err := Lock(p, false); err != nil || !ok {
		t.Fatalf("lock over a directory: %v %v", ok, err)
	} else {
		l.Close()
	}
}

// An index built before its model had a judge lacks the catalog's
// background, and one built under other ranking weights has another's:
// either is stale, and the next build measures it, every vector kept.
func TestIndexWithoutBackgroundIsStale(t *testing.T) {
	root := t.TempDir()
	skilltest.Write(t, root, "a", "Find the cause of a failing test, an error or a crash before fixing the code.")
	skilltest.Write(t, root, "b", "Write and update the README and other documentation of a project.")
	p := project(t, root)
	// The lexical embedder under the id of a model with a judge.
	judged := &counting{Embedder: embed.NewLexical(), id: embed.DefaultModel()}
	p.Model = judged.Model().ID
	res := run(t, p, judged)
	idx, err := indexfile.Read(p.IndexPath())
	if err != nil || !res.Built || idx.Header.Background == nil || !judge.Background(*idx.Header.Background).Valid() {
		t.Fatalf("first build: %+v, background %+v, %v", res, idx.Header.Background, err)
	}
	if state := Check(p.IndexPath(), p.Model, p.Scan, true, func(string) {}); state != Current {
		t.Fatalf("fresh index: %s", state)
	}
	measured := *idx.Header.Background
	other := measured
	other.Scoring = "lexical 0.1 body 0 keyword 0 intent 0 small-edit 0"
	for what, bg := range map[string]*vecfile.Background{"without a background": nil, "measured under other weights": &other} {
		idx.Header.Background = bg
		if err := indexfile.Write(p.IndexPath(), idx); err != nil {
			t.Fatal(err)
		}
		if state := Check(p.IndexPath(), p.Model, p.Scan, true, func(string) {}); state != Stale {
			t.Fatalf("index %s: %s, want stale", what, state)
		}
		if res := run(t, p, judged); !res.Built || res.Stats.Reused != 2 || res.Stats.Embedded != 0 {
			t.Fatalf("rebuild of an index %s: %+v, want both vectors kept", what, res)
		}
		// (Scores from the stored half-precision vectors move in the
		// fourth decimal.)
		if h, err := vecfile.ReadHeader(p.IndexPath()); err != nil || h.Background == nil || h.Background.Scoring != measured.Scoring ||
			math.Abs(h.Background.Q90-measured.Q90) > 1e-3 || math.Abs(h.Background.Q50-measured.Q50) > 1e-3 {
			t.Fatalf("rebuilt index %s: background %+v, want %+v (%v)", what, h.Background, measured, err)
		}
	}
}

// hooked is a model that calls before with the texts of each document
// batch before it embeds them.
type hooked struct {
	counting
	before func(texts []string)
}

func (h *hooked) Embed(texts []string, p embed.Purpose) ([][]float32, error) {
	if p == embed.Document && h.before != nil {
		h.before(texts)
	}
	return h.counting.Embed(texts, p)
}

// A skill written while a build embeds reaches the lexical index before
// the build ends, and is embedded before the skills still waiting.
func TestChangeMidBuildComesFirst(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		skilltest.Write(t, root, fmt.Sprintf("s%02d", i), fmt.Sprintf("Skill number %d does thing %d.", i, i*7))
	}
	p := project(t, root)
	var batches [][]string
	lexicalHad := -1 // the lexical index's skill count when the new skill was embedded
	emb := &hooked{counting: counting{Embedder: embed.NewLexical()}}
	emb.before = func(texts []string) {
		batches = append(batches, texts)
		if len(batches) == 2 {
			skilltest.Write(t, root, "zebra", "Groom the zebra herd.")
		}
		for _, text := range texts {
			if strings.Contains(text, "zebra herd") {
				if h, err := vecfile.ReadHeader(p.LexicalPath()); err == nil {
					lexicalHad = h.Count
				}
			}
		}
	}
	res, err := Run(p, Options{Embedder: emb, Recheck: time.Nanosecond, Warn: func(s string) { t.Log(s) }})
	if err != nil || !res.Built || res.Count != 41 {
		t.Fatalf("build: %+v %v", res, err)
	}
	// The round stopped after the batch in which the skill was written; the
	// next one's first batch holds it.
	if len(batches) < 3 || !strings.Contains(strings.Join(batches[2], "\n"), "zebra herd") {
		t.Fatalf("the new skill was not in the first batch after the change: %q", batches)
	}
	if lexicalHad != 41 {
		t.Fatalf("when the new skill was embedded, the lexical index held %d skills, want 41 (with it)", lexicalHad)
	}
	// Nothing embedded twice: 40 + the new one.
	if emb.texts != 41 {
		t.Errorf("%d texts embedded, want 41", emb.texts)
	}
}
