package builder

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/skill-inject/ski/internal/vecfile"
)

// Watcher keeps the indexes of the projects prompts recently came from up
// to date between prompts: the embed server runs one, so that a skill
// added, edited or removed during a session is in the index by the next
// prompt, without any prompt paying for the check. It does no checking
// itself: every interval it has Start start a builder for each project
// (one per index, by lock), which runs at idle priority, compares the
// skill files with the index's stamp and verifies its checksums, and
// exits at once when nothing changed. So the walk over thousands of skill
// files never holds up the server, whose one thread answers prompts. The
// interval grows with the catalog (1 s, and 0.1 s more per 1,000 skills:
// a check with no change lists only changed folders and costs ~2 ms of
// CPU per 1,000 skills); a project no prompt came from for Keep is
// dropped.
type Watcher struct {
	Start func(Project) // starts a builder for a project unless one runs
	Keep  time.Duration // 0 means 30 minutes

	mu       sync.Mutex
	projects map[string]*watched // by spec
	wake     chan struct{}
}

type watched struct {
	p    Project
	seen time.Time // the last prompt from it
	next time.Time // when to check it next
}

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
		switch {
		case now.Sub(p.seen) > keep:
			delete(w.projects, spec)
		case !now.Before(p.next):
			due = append(due, p)
		}
	}
	w.mu.Unlock()
	for _, p := range due {
		if w.Start != nil {
			w.Start(p.p)
		}
		p.next = now.Add(interval(p.p.IndexPath()))
	}
}

// interval is how long to wait between checks of the index at path: 1 s,
// and 0.1 s more per 1,000 skills it holds.
func interval(path string) time.Duration {
	n := 0
	if h, err := vecfile.ReadHeader(path); err == nil {
		n = h.Count
	}
	return time.Second + time.Duration(n)*100*time.Microsecond
}
