package embcache

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/embed"
)

const dim = 4

func vec(x float32) []float32 { return []float32{x, x + 1, x + 2, x + 3} }

func keys(texts ...string) []Key {
	var ks []Key
	for _, t := range texts {
		ks = append(ks, KeyOf(embed.Document, t))
	}
	return ks
}

func mustOpen(t *testing.T, dir string, warns *[]string) *Cache {
	t.Helper()
	c, err := Open(dir, "m", dim, func(s string) { *warns = append(*warns, s) })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAppendPersists(t *testing.T) {
	dir := t.TempDir()
	var warns []string
	c := mustOpen(t, dir, &warns)
	if err := c.Append(keys("a", "b"), [][]float32{vec(1), vec(2)}); err != nil {
		t.Fatal(err)
	}
	if err := c.Append(keys("c"), [][]float32{vec(3)}); err != nil {
		t.Fatal(err)
	}
	again := mustOpen(t, dir, &warns)
	if again.Len() != 3 || len(warns) != 0 {
		t.Fatalf("reopened: %d vectors, warnings %q", again.Len(), warns)
	}
	if v, ok := again.Get(KeyOf(embed.Document, "b")); !ok || !slices.Equal(v, vec(2)) {
		t.Errorf("b = %v, %v", v, ok)
	}
	if _, ok := again.Get(KeyOf(embed.Query, "b")); ok {
		t.Error("a query's key finds a document's vector")
	}
	// Another model's file is another cache.
	other, _ := Open(dir, "other", dim, nil)
	if other.Len() != 0 {
		t.Errorf("other model sees %d vectors", other.Len())
	}
}

func TestTornTailAndFlippedByte(t *testing.T) {
	dir := t.TempDir()
	var warns []string
	c := mustOpen(t, dir, &warns)
	c.Append(keys("a", "b", "c"), [][]float32{vec(1), vec(2), vec(3)})
	path := c.Path()
	data, _ := os.ReadFile(path)
	size := c.recordSize()
	// A byte flipped in b's record, and half a record torn off the end.
	data[headerSize+size+keySize+1] ^= 0x40
	data = append(data, make([]byte, size/2)...)
	os.WriteFile(path, data, 0o600)

	d := mustOpen(t, dir, &warns)
	if d.Len() != 2 || d.Damaged != 1 {
		t.Fatalf("after damage: %d vectors, %d damaged", d.Len(), d.Damaged)
	}
	if _, ok := d.Get(KeyOf(embed.Document, "b")); ok {
		t.Error("damaged record was used")
	}
	// The next append cuts the torn record off, so what follows it reads.
	if err := d.Append(keys("b"), [][]float32{vec(2)}); err != nil {
		t.Fatal(err)
	}
	e := mustOpen(t, dir, &warns)
	if e.Len() != 3 {
		t.Errorf("after repair: %d vectors, want 3", e.Len())
	}
}

func TestDamagedFileSetAside(t *testing.T) {
	for name, damage := range map[string]func(path string){
		"bad header":  func(p string) { os.WriteFile(p, []byte("garbage that is no cache at all"), 0o600) },
		"directory":   func(p string) { os.MkdirAll(filepath.Join(p, "x"), 0o700) },
		"symlink":     func(p string) { os.Symlink(filepath.Join(filepath.Dir(p), "elsewhere"), p) },
		"other model": func(p string) { os.Rename(strings.Replace(p, "m.vec", "n.vec", 1), p) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			n, _ := Open(dir, "n", dim, nil)
			n.Append(keys("x"), [][]float32{vec(9)})
			elsewhere := filepath.Join(Dir(dir), "elsewhere")
			os.WriteFile(elsewhere, []byte("keep me"), 0o600)
			damage(Path(dir, "m"))
			var warns []string
			c := mustOpen(t, dir, &warns)
			if c.Len() != 0 || len(warns) != 1 || !strings.Contains(warns[0], "moved aside") {
				t.Fatalf("%d vectors, warnings %q", c.Len(), warns)
			}
			if err := c.Append(keys("a"), [][]float32{vec(1)}); err != nil {
				t.Fatal(err)
			}
			if again := mustOpen(t, dir, &warns); again.Len() != 1 {
				t.Errorf("after set-aside and append: %d vectors", again.Len())
			}
			if b, _ := os.ReadFile(elsewhere); string(b) != "keep me" {
				t.Errorf("a symlink's target was changed: %q", b)
			}
		})
	}
}

func TestBoundCompactsToNewest(t *testing.T) {
	dir := t.TempDir()
	var warns []string
	c := mustOpen(t, dir, &warns)
	c.MaxBytes = int64(headerSize + 10*c.recordSize())
	for i := range 12 {
		if err := c.Append(keys(string(rune('a'+i))), [][]float32{vec(float32(i))}); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := os.Stat(c.Path())
	if st.Size() > c.MaxBytes {
		t.Errorf("file is %d bytes, bound %d", st.Size(), c.MaxBytes)
	}
	again := mustOpen(t, dir, &warns)
	if _, ok := again.Get(KeyOf(embed.Document, "l")); !ok {
		t.Error("newest vector dropped")
	}
	if _, ok := again.Get(KeyOf(embed.Document, "a")); ok {
		t.Error("oldest vector kept past the bound")
	}
}

func TestKeep(t *testing.T) {
	dir := t.TempDir()
	var warns []string
	c := mustOpen(t, dir, &warns)
	c.Append(keys("a", "b", "c"), [][]float32{vec(1), vec(2), vec(3)})
	// Appended by another process after c was read.
	other := mustOpen(t, dir, &warns)
	other.Append(keys("d"), [][]float32{vec(4)})
	want := map[Key]bool{keys("a")[0]: true, keys("d")[0]: true}
	dropped, err := c.Keep(func(k Key, _ []float32) bool { return want[k] })
	if err != nil || dropped != 2 {
		t.Fatalf("Keep: dropped %d, %v", dropped, err)
	}
	again := mustOpen(t, dir, &warns)
	if again.Len() != 2 {
		t.Errorf("after Keep: %d vectors", again.Len())
	}
}
