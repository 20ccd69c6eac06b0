//go:build linux

package builder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/skilltest"
	"github.com/skill-inject/ski/internal/vecfile"
)

// settle waits until folders just made are old enough for a walk to keep
// their listings (scan's margin is a second), so the watcher can watch
// them.
func settle() { time.Sleep(1100 * time.Millisecond) }

// watching is a Watcher told of p, whose builders are lexical builds run
// at once, counted in starts.
func watching(t *testing.T, p Project, w *Watcher) (spec []byte, starts *int) {
	t.Helper()
	starts = new(int)
	w.Start = func(p Project) bool {
		*starts++
		run(t, p, &counting{Embedder: embed.NewLexical()})
		return true
	}
	spec, _ = json.Marshal(p)
	w.Add(spec)
	return spec, starts
}

// With its folders watched, the watcher starts a builder when a skill
// changes and not otherwise, however often it looks; a change elsewhere
// beside the root is none of its business.
func TestWatcherStartsABuilderOnlyWhenSkillsChange(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "skills")
	skilltest.Write(t, root, "a", "Alpha.")
	skilltest.Write(t, root, "b", "Beta.")
	settle()
	p := project(t, root)
	indexed := make(chan string, 10)
	w := &Watcher{Recheck: 24 * time.Hour, Indexed: func(path string) { indexed <- path }}
	spec, starts := watching(t, p, w)
	now := time.Now()
	look := func(after time.Duration) {
		now = now.Add(after)
		w.checkDue(now)
	}
	// wantIndexed waits for Indexed to have been called n times since the
	// last wait, with the project's index.
	wantIndexed := func(n int, when string) {
		t.Helper()
		for i := range n {
			select {
			case got := <-indexed:
				if got != p.IndexPath() {
					t.Fatalf("%s: Indexed(%s), want %s", when, got, p.IndexPath())
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: Indexed called %d times, want %d", when, i, n)
			}
		}
		select {
		case <-indexed:
			t.Fatalf("%s: Indexed called more than %d times", when, n)
		case <-time.After(20 * time.Millisecond):
		}
	}
	look(0) // no listings yet: checked on the interval
	wantIndexed(0, "no index yet")
	look(time.Minute)
	if *starts != 2 || w.projects[string(spec)].folders == nil {
		t.Fatalf("after the first walk the folders are watched: %d builders started, watching %v", *starts, w.projects[string(spec)].folders)
	}
	wantIndexed(1, "the first index")
	for range 5 {
		look(time.Minute)
	}
	if err := os.WriteFile(filepath.Join(home, "history.jsonl"), []byte("beside the root"), 0o600); err != nil {
		t.Fatal(err)
	}
	look(time.Second)
	if *starts != 2 {
		t.Fatalf("nothing changed in the skills, yet %d builders started", *starts)
	}

	skilltest.Write(t, root, "c", "Gamma.")
	look(time.Second)
	if *starts != 3 {
		t.Fatalf("a skill was added: %d builders started, want 3", *starts)
	}
	if h, err := vecfile.ReadHeader(p.IndexPath()); err != nil || h.Count != 3 {
		t.Fatalf("the index after the change: %+v %v", h, err)
	}
	// The new folder is watched once it settled; then quiet again.
	settle()
	for range 3 {
		look(time.Minute)
	}
	n := *starts
	for range 5 {
		look(time.Minute)
	}
	if *starts != n || w.projects[string(spec)].folders == nil {
		t.Fatalf("quiet again: %d builders started after %d, watching %v", *starts, n, w.projects[string(spec)].folders)
	}
	wantIndexed(1, "the index rebuilt")
	skilltest.Write(t, root, "c", "Gamma, edited.")
	look(time.Second)
	if *starts != n+1 {
		t.Fatalf("a skill in the new folder was edited: %d builders started, want %d", *starts, n+1)
	}
}

// A watched project is checked all the same every Recheck, and dropped
// with its watches after Keep without a prompt.
func TestWatcherRechecksAndForgets(t *testing.T) {
	root := t.TempDir()
	skilltest.Write(t, root, "a", "Alpha.")
	settle()
	w := &Watcher{Recheck: 10 * time.Minute, Keep: time.Hour}
	_, starts := watching(t, project(t, root), w)
	now := time.Now()
	w.checkDue(now)
	w.checkDue(now.Add(time.Minute))
	w.checkDue(now.Add(2 * time.Minute))
	if *starts != 2 {
		t.Fatalf("%d builders started before the recheck, want 2", *starts)
	}
	w.checkDue(now.Add(12 * time.Minute))
	if *starts != 3 {
		t.Fatalf("%d builders started by the recheck, want 3", *starts)
	}
	w.checkDue(now.Add(2 * time.Hour))
	if len(w.projects) != 0 {
		t.Fatal("a project no prompt came from for Keep is still watched")
	}
}

// The watcher vouches for an index only once a check it started after
// watching found it current, and only while nothing changed since.
func TestWatcherVouchesOnlyForWhatItChecked(t *testing.T) {
	root := t.TempDir()
	skilltest.Write(t, root, "a", "Alpha.")
	settle()
	p := project(t, root)
	w := &Watcher{}
	if unseen, _ := json.Marshal(p); w.Current(unseen) {
		t.Fatal("vouched for a project it never saw")
	}
	spec, _ := watching(t, p, w)
	w.checkDue(time.Now()) // builds; no listings were there to watch
	if w.Current(spec) {
		t.Fatal("vouched for a project whose folders it does not watch")
	}
	w.checkDue(time.Now().Add(time.Minute)) // watches, then checks
	if !w.Current(spec) {
		t.Fatal("a checked, watched, unchanged project was not vouched for")
	}
	skilltest.Write(t, root, "a", "Alpha, edited.")
	if w.Current(spec) {
		t.Fatal("vouched for a project whose skill was just edited")
	}
	os.Remove(CurrentPath(p.IndexPath()))
	w.checkDue(time.Now().Add(2 * time.Minute)) // watches anew, rebuilds
	w.checkDue(time.Now().Add(3 * time.Minute)) // the index changed: watches anew, checks
	if !w.Current(spec) {
		t.Fatal("not vouched for after the change was built and checked")
	}
	// A check that did not finish (no note that it found the index
	// current) vouches for nothing.
	w.Start = func(Project) bool { return true }
	skilltest.Write(t, root, "b", "Beta.")
	w.checkDue(time.Now().Add(4 * time.Minute))
	if w.Current(spec) {
		t.Fatal("vouched though the check started after the change never ran")
	}
}
