package builder

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/skill-inject/ski/internal/dirwatch"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/vecfile"
	"github.com/skill-inject/ski/internal/xdg"
)

// Watcher keeps the indexes of the projects prompts recently came from up
// to date between prompts: the embed server runs one, so that a skill
// added, edited or removed during a session is in the index by the next
// prompt, without any prompt paying for the check.
//
// It checks nothing itself: Start starts a builder (one per index, by
// lock), which runs at idle priority, compares the skill files with the
// index's stamp, verifies its checksums, and exits at once when nothing
// changed. When to start one is the Watcher's part. Where the system can
// watch folders (dirwatch), it watches every folder the last walk listed
// (scan.Folders), the roots' parents, and it starts a builder only when
// something changed there, or the index or its listings changed, or
// Recheck passed: with nothing changed it costs one non-blocking read per
// project, whatever the catalog's size. The folders are watched before
// the check that vouches for them is started, so a change between the two
// is never lost. Where they cannot be watched (another system, too many
// folders, listings not yet complete), it starts a builder every interval:
// 1 s, and 0.1 s more per 1,000 skills. A project no prompt came from for
// Keep is dropped.
type Watcher struct {
	Start   func(Project) bool // starts a builder for a project unless one runs; true if it did
	Keep    time.Duration      // 0 means 30 minutes
	Recheck time.Duration      // how often a watched project is checked all the same; 0 means 5 minutes
	// Indexed, when set, is called (in a goroutine) with the path of a
	// project's index when the index is there anew: first seen, rebuilt
	// or replaced. The server reads it then, ahead of the next prompt.
	Indexed func(path string)

	mu       sync.Mutex
	projects map[string]*watched // by spec
	wake     chan struct{}
}

// watched is one project and how it is watched; mu guards what follows
// it (seen is the Watcher's).
type watched struct {
	p    Project
	mu   sync.Mutex
	seen time.Time // the last prompt from it
	next time.Time // when to check it next, while its folders are not watched

	folders *dirwatch.Set // nil: not watched
	marks   marks         // the index and its listings when folders were watched
	checked time.Time     // when a builder last started after folders were watched (zero: none yet)
	found   fileMark      // the note of a check's finding (CurrentPath) when it started
}

// marks identify the files of an index whose change means its folders
// must be watched anew: the index (rebuilt, replaced or damaged) and the
// listings of its last walk (which may name new folders).
type marks struct{ index, listings fileMark }

// fileMark identifies a file's state (zero: missing).
type fileMark struct {
	ino, size int64
	mtime     time.Time
}

func markOf(path string) fileMark {
	st, err := os.Stat(path)
	if err != nil {
		return fileMark{}
	}
	return fileMark{ino: fileIno(st), size: st.Size(), mtime: st.ModTime()}
}

// marksOf marks the index at path and its listings.
func marksOf(path string) marks {
	return marks{index: markOf(path), listings: markOf(ListingsPath(path))}
}

// Add notes a prompt from the project spec describes (a Project as JSON).
func (w *Watcher) Add(spec []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.init()
	if p, ok := w.projects[string(spec)]; ok {
		p.seen = time.Now()
		return
	}
	var p Project
	if err := json.Unmarshal(spec, &p); err != nil || p.Model == "" || p.CacheDir == "" {
		return
	}
	w.projects[string(spec)] = &watched{p: p, seen: time.Now()}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Watcher) init() {
	if w.projects == nil {
		w.projects = map[string]*watched{}
		w.wake = make(chan struct{}, 1)
	}
}

// Run checks the projects that are due until stop is closed, then stops
// watching their folders.
func (w *Watcher) Run(stop <-chan struct{}) {
	w.mu.Lock()
	w.init()
	wake := w.wake
	w.mu.Unlock()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	defer w.closeAll()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		case <-wake:
		}
		w.checkDue(time.Now())
	}
}

// checkDue starts a check of every project whose time has come, and drops
// those no prompt came from for Keep.
func (w *Watcher) checkDue(now time.Time) {
	keep := w.Keep
	if keep == 0 {
		keep = 30 * time.Minute
	}
	w.mu.Lock()
	var due []*watched
	for spec, p := range w.projects {
		if now.Sub(p.seen) > keep {
			p.mu.Lock()
			p.unwatch()
			p.mu.Unlock()
			delete(w.projects, spec)
			continue
		}
		due = append(due, p)
	}
	w.mu.Unlock()
	for _, p := range due {
		w.tend(p, now)
	}
}

// Current reports whether the index of the project spec describes is
// current as far as the watch knows: its folders are watched, a check
// started since then found the index current, and nothing changed since
// in the folders, the index or its listings. False when it does not know
// (the project is not watched, or is being watched anew right now).
func (w *Watcher) Current(spec []byte) bool {
	w.mu.Lock()
	p := w.projects[string(spec)]
	w.mu.Unlock()
	if p == nil || !p.mu.TryLock() {
		return false
	}
	defer p.mu.Unlock()
	path := p.p.IndexPath()
	if p.folders == nil || p.checked.IsZero() || p.folders.Changed() || marksOf(path) != p.marks {
		return false
	}
	if markOf(CurrentPath(path)) == p.found {
		// No check started since the watch began has found it current
		// yet. (File times are too coarse to tell that by time.)
		return false
	}
	found, err := xdg.ReadFile(CurrentPath(path))
	h, herr := vecfile.ReadHeader(path)
	return err == nil && herr == nil && string(found) == h.Stamp
}

// tend starts a builder for p when its skills may have changed.
func (w *Watcher) tend(p *watched, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	recheck := w.Recheck
	if recheck == 0 {
		recheck = 5 * time.Minute
	}
	// The index's path, which names the project's roots, is worked out
	// once a look.
	path := p.p.IndexPath()
	m := marksOf(path)
	if p.folders != nil && !p.folders.Changed() && m == p.marks {
		if !p.checked.IsZero() && now.Sub(p.checked) < recheck {
			return // nothing changed since a check vouched for it
		}
		w.check(p, path)
		return
	}
	if p.folders == nil && now.Before(p.next) {
		return
	}
	// Something changed, or nothing is watched yet: watch the folders the
	// last walk listed, then check (the check walks after the watch began).
	if w.Indexed != nil && m.index != (fileMark{}) && m.index != p.marks.index {
		go w.Indexed(path)
	}
	p.unwatch()
	p.folders, p.marks, p.checked = watchFolders(p.p, path), m, time.Time{}
	if p.folders == nil {
		p.next = now.Add(interval(path))
	}
	w.check(p, path)
}

// check starts a builder for p, whose index is at path, and, when its
// folders are watched, notes when, and the note of a finding there was
// then: one the builder writes replaces it (Current).
func (w *Watcher) check(p *watched, path string) {
	at, found := time.Now(), markOf(CurrentPath(path))
	if w.Start != nil && w.Start(p.p) && p.folders != nil {
		p.checked, p.found = at, found
	}
}

// unwatch stops watching p's folders (the caller holds p.mu).
func (p *watched) unwatch() {
	if p.folders != nil {
		p.folders.Close()
		p.folders = nil
	}
}

// closeAll stops watching every project's folders.
func (w *Watcher) closeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.projects {
		p.mu.Lock()
		p.unwatch()
		p.mu.Unlock()
	}
}

// watchFolders watches every folder whose change can change p's skills
// (its index at path): those its last walk listed and where its roots are
// made, removed or replaced. It returns nil when they cannot all be watched: listings
// missing or partial, too many folders, or a system without folder
// watching.
func watchFolders(p Project, path string) *dirwatch.Set {
	folders, ok := scan.Folders(ListingsPath(path))
	if !ok {
		return nil
	}
	set, err := dirwatch.New()
	if err != nil {
		return nil
	}
	for i, f := range folders {
		if err := set.Add(f); err != nil {
			set.Close()
			return nil
		}
		if i%256 == 255 {
			// The server answers prompts on one P: let them in.
			runtime.Gosched()
		}
	}
	for _, r := range p.roots() {
		if err := watchRoot(set, filepath.Clean(r)); err != nil {
			set.Close()
			return nil
		}
	}
	return set
}

// watchRoot watches where root may be made, removed or replaced: its entry
// in its parent, or, while the parent is missing too, the entry of the
// first missing folder on its path in the nearest one that exists.
func watchRoot(set *dirwatch.Set, root string) error {
	dir, name := filepath.Dir(root), filepath.Base(root)
	for {
		err := set.AddEntry(dir, name)
		if err == nil || errors.Is(err, dirwatch.ErrLimit) || dir == filepath.Dir(dir) {
			return err
		}
		if _, statErr := os.Lstat(dir); statErr == nil {
			return err // there, but not a folder that can be watched
		}
		dir, name = filepath.Dir(dir), filepath.Base(dir)
	}
}

// interval is how long to wait between checks of the index at path when
// its folders are not watched: 1 s, and 0.1 s more per 1,000 skills it
// holds.
func interval(path string) time.Duration {
	n := 0
	if h, err := vecfile.ReadHeader(path); err == nil {
		n = h.Count
	}
	return time.Second + time.Duration(n)*100*time.Microsecond
}
