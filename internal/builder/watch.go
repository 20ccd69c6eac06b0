package builder

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// Watcher keeps the indexes of the projects prompts recently came from up
// to date between prompts: the embed server runs one, so that a skill
// added, edited or removed during a session is in the index by the next
// prompt, without any prompt paying for the check. Each project's skill
// files are compared with its index's stamp (a walk and a stat per skill)
// at most every second, and less often where that takes longer, so the
// checks take at most ~5 % of a core; an index whose file changed is also
// verified whole once. A project no prompt came from for Keep is dropped.
type Watcher struct {
	Start func(Project) // starts a builder for a project whose index is not current
	Warn  func(string)
	Keep  time.Duration // 0 means 30 minutes

	mu       sync.Mutex
	projects map[string]*watched // by spec
	wake     chan struct{}
}

type watched struct {
	p        Project
	seen     time.Time // the last prompt from it
	next     time.Time // when to check it next
	verified string    // identity of the index file last verified whole
}

// minInterval and costFactor set how often a project is checked: every
// second, or every costFactor times what a check took, when longer.
const (
	minInterval = time.Second
	costFactor  = 20
)

// Add notes a prompt from the project spec describes (a Project as JSON).
func (w *Watcher) Add(spec []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.projects == nil {
		w.projects = map[string]*watched{}
		w.wake = make(chan struct{}, 1)
	}
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

// Run checks the projects that are due until stop is closed.
func (w *Watcher) Run(stop <-chan struct{}) {
	w.mu.Lock()
	if w.wake == nil {
		w.projects = map[string]*watched{}
		w.wake = make(chan struct{}, 1)
	}
	wake := w.wake
	w.mu.Unlock()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
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

// checkDue checks every project whose time has come, and drops those no
// prompt came from for Keep.
func (w *Watcher) checkDue(now time.Time) {
	keep := w.Keep
	if keep == 0 {
		keep = 30 * time.Minute
	}
	w.mu.Lock()
	var due []*watched
	for spec, p := range w.projects {
		switch {
		case now.Sub(p.seen) > keep:
			delete(w.projects, spec)
		case !now.Before(p.next):
			due = append(due, p)
		}
	}
	w.mu.Unlock()
	for _, p := range due {
		w.check(p)
	}
}

// check compares one project's skills with its index and starts a builder
// when they differ; only this goroutine touches p's check fields.
func (w *Watcher) check(p *watched) {
	start := time.Now()
	path := p.p.IndexPath()
	id := identity(path)
	warn := w.Warn
	if warn == nil {
		warn = func(string) {}
	}
	state := Check(path, p.p.Model, p.p.Scan, id != p.verified, warn)
	if state == Current {
		p.verified = id
	} else if w.Start != nil {
		w.Start(p.p)
	}
	took := time.Since(start)
	p.next = time.Now().Add(max(minInterval, costFactor*took))
}

// identity names a file's version: its inode, size and modification time.
func identity(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d/%d/%d", inode(st), st.Size(), st.ModTime().UnixNano())
}
