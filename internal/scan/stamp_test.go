package scan

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A stamp taken with remembered listings equals one from a full walk
// through every kind of change, and an unchanged catalog reuses every
// listing.
func TestStampWithListingsEqualsWalk(t *testing.T) {
	defer func(m time.Duration) { listingMargin = m }(listingMargin)
	listingMargin = -time.Hour // every listing is kept at once
	root := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/SKILL.md", "---\nname: a\ndescription: A.\n---\n")
	write("b/SKILL.md", "---\nname: b\ndescription: B.\n---\n")
	write("group/c/SKILL.md", "---\nname: c\ndescription: C.\n---\n")
	os.Symlink(filepath.Join(root, "group"), filepath.Join(root, "linked"))
	o := Options{Host: "claude", Roots: []string{root}}
	saved := filepath.Join(t.TempDir(), "dirs")
	check := func(what string) {
		t.Helper()
		want, err := Stamp(o)
		if err != nil {
			t.Fatal(err)
		}
		l := LoadListings(saved)
		got, err := StampWith(o, l)
		if err != nil || got != want {
			t.Fatalf("%s: stamp with listings %s, a walk says %s (%v)", what, got, want, err)
		}
		if err := l.Save(saved); err != nil {
			t.Fatal(err)
		}
		// Timestamps are coarse: a change must come a tick after the
		// listing it is to be told from.
		time.Sleep(20 * time.Millisecond)
	}
	check("first walk")
	check("nothing changed")
	for _, c := range []struct {
		what   string
		change func()
	}{
		{"skill added", func() { write("d/SKILL.md", "---\nname: d\ndescription: D.\n---\n") }},
		{"skill added below a group", func() { write("group/e/SKILL.md", "---\nname: e\ndescription: E.\n---\n") }},
		{"skill edited", func() { write("a/SKILL.md", "---\nname: a\ndescription: A, edited.\n---\n") }},
		{"SKILL.md added to a plain folder", func() {
			os.MkdirAll(filepath.Join(root, "f"), 0o755)
			check("folder")
			write("f/SKILL.md", "---\nname: f\n---\n")
		}},
		{"skill removed", func() { os.RemoveAll(filepath.Join(root, "b")) }},
		{"folder renamed", func() { os.Rename(filepath.Join(root, "d"), filepath.Join(root, "d2")) }},
		{"symlink pointed elsewhere", func() {
			os.Remove(filepath.Join(root, "linked"))
			os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "linked"))
		}},
		{"SKILL.md replaced by a folder", func() {
			os.Remove(filepath.Join(root, "a", "SKILL.md"))
			os.Mkdir(filepath.Join(root, "a", "SKILL.md"), 0o755)
		}},
	} {
		c.change()
		check(c.what)
	}
	// Unchanged: every listing is reused, and nothing is saved again.
	l := LoadListings(saved)
	if _, err := StampWith(o, l); err != nil || l.changed || len(l.seen) != len(l.dirs) {
		t.Fatalf("an unchanged catalog listed again: changed %v, %d of %d reused (%v)", l.changed, len(l.seen), len(l.dirs), err)
	}
}

// A directory changed within the margin is listed again next time, and a
// damaged listings file is ignored.
func TestListingsKeepOnlySettledDirectories(t *testing.T) {
	now := time.Now()
	if settled(dirID{mtime: now.UnixNano(), ctime: now.UnixNano()}, now) {
		t.Fatal("a directory changed now counts as settled")
	}
	old := now.Add(-2 * listingMargin).UnixNano()
	if !settled(dirID{mtime: old, ctime: old}, now) || settled(dirID{mtime: old, ctime: now.UnixNano()}, now) {
		t.Fatal("settled must look at both times")
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "SKILL.md"), []byte("---\nname: a\n---\n"), 0o644)
	l := &Listings{}
	if _, err := StampWith(Options{Host: "claude", Roots: []string{root}}, l); err != nil {
		t.Fatal(err)
	}
	if len(l.seen) != 0 {
		t.Fatalf("listings of just-made folders were kept: %d", len(l.seen))
	}
	saved := filepath.Join(t.TempDir(), "dirs")
	os.WriteFile(saved, []byte(listingsMagic+"\x05garbage\x00\x00\x00\x00"), 0o600)
	if l := LoadListings(saved); len(l.dirs) != 0 {
		t.Fatal("a damaged listings file was read")
	}
}

// Folders names every directory a walk listed and the folder a symlinked
// SKILL.md points into, and nothing while a walk kept only part of its
// listings.
func TestFoldersNameEveryWalkedDirectory(t *testing.T) {
	defer func(m time.Duration) { listingMargin = m }(listingMargin)
	root, elsewhere := t.TempDir(), t.TempDir()
	for _, d := range []string{"a", "group/b", "linked"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "a", "SKILL.md"), []byte("---\nname: a\n---\n"), 0o644)
	os.WriteFile(filepath.Join(root, "group/b", "SKILL.md"), []byte("---\nname: b\n---\n"), 0o644)
	os.WriteFile(filepath.Join(elsewhere, "SKILL.md"), []byte("---\nname: c\n---\n"), 0o644)
	os.Symlink(filepath.Join(elsewhere, "SKILL.md"), filepath.Join(root, "linked", "SKILL.md"))
	o := Options{Host: "claude", Roots: []string{root}}
	saved := filepath.Join(t.TempDir(), "dirs")
	walk := func() {
		t.Helper()
		l := LoadListings(saved)
		if _, err := StampWith(o, l); err != nil {
			t.Fatal(err)
		}
		if err := l.Save(saved); err != nil {
			t.Fatal(err)
		}
	}

	listingMargin = time.Hour // nothing has settled yet
	walk()
	if got, ok := Folders(saved); ok {
		t.Fatalf("a walk that kept no listing names its folders: %v", got)
	}
	listingMargin = -time.Hour
	walk()
	got, ok := Folders(saved)
	want := []string{root, filepath.Join(root, "a"), filepath.Join(root, "group"), filepath.Join(root, "group/b"),
		filepath.Join(root, "linked"), elsewhere}
	slices.Sort(got)
	slices.Sort(want)
	if !ok || !slices.Equal(got, want) {
		t.Fatalf("folders %v (%t), want %v", got, ok, want)
	}
	// A folder changed too recently to keep makes the listings partial
	// again, and saying so is a change worth saving.
	listingMargin = time.Hour
	os.WriteFile(filepath.Join(root, "a", "notes.md"), nil, 0o644)
	walk()
	if _, ok := Folders(saved); ok {
		t.Fatal("listings missing a changed folder name every folder")
	}
	if _, ok := Folders(filepath.Join(t.TempDir(), "missing")); ok {
		t.Fatal("no listings name every folder")
	}
}

// BenchmarkStamp stamps the catalog at SKI_BENCH_ROOT by a full walk and
// with the listings of the walk before:
//
//	SKI_BENCH_ROOT=~/.cache/ski-bench/synth-10000 go test ./internal/scan -run '^$' -bench Stamp
func BenchmarkStamp(b *testing.B) {
	root := os.Getenv("SKI_BENCH_ROOT")
	if root == "" {
		b.Skip("SKI_BENCH_ROOT is not set")
	}
	o := Options{Host: "claude", Roots: []string{root}}
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			if _, err := Stamp(o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("listings", func(b *testing.B) {
		saved := filepath.Join(b.TempDir(), "dirs")
		l := LoadListings(saved)
		StampWith(o, l)
		l.Save(saved)
		for b.Loop() {
			if _, err := StampWith(o, LoadListings(saved)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// joinName, given a folder cleaned, joins an entry's name as
// filepath.Join does.
func TestJoinNameJoinsAsFilepathJoin(t *testing.T) {
	for _, dir := range []string{"", ".", "/", "/a", "/a/", "/a//b/..", "a", "..", "../x", "./a/./b"} {
		for _, name := range []string{"x", "SKILL.md", ".hidden", "a b"} {
			if got, want := joinName(filepath.Clean(dir), name), filepath.Join(dir, name); got != want {
				t.Errorf("joinName(Clean(%q), %q) = %q, filepath.Join gives %q", dir, name, got, want)
			}
		}
	}
}
