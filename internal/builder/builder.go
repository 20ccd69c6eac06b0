// Package builder keeps a project's automatic index up to date off the
// prompt's clock. Hooks only check an index (Check) and start a detached
// builder process (Start) when it is missing, stale or damaged; the
// builder (Run) scans the skills, writes a lexical index at once so
// prompts have something to rank with, then embeds with the model at the
// lowest CPU priority, persisting every batch to the embedding cache
// (package embcache), and installs the model's index. One builder runs per
// index at a time: it holds <index>.build.lock for its whole life, and
// writes its progress to <index>.progress.
package builder

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skill-inject/ski/internal/aside"
	"github.com/skill-inject/ski/internal/background"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/flock"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/vecfile"
	"github.com/skill-inject/ski/internal/xdg"
)

// Project is one automatic index: the skills a host sees from a directory,
// embedded by a model.
type Project struct {
	Scan     scan.Options
	Model    string // the model's id
	CacheDir string // ski's cache folder
}

// roots lists the paths of the project's skill roots.
func (p Project) roots() []string {
	var paths []string
	for _, r := range scan.Roots(p.Scan) {
		paths = append(paths, r.Path)
	}
	return paths
}

// IndexPath is the model's index of the project.
func (p Project) IndexPath() string {
	return index.PathFor(p.CacheDir, p.Scan.Host, p.Model, p.roots())
}

// LexicalPath is the lexical index of the project, which answers prompts
// while the model's is being built.
func (p Project) LexicalPath() string {
	return index.PathFor(p.CacheDir, p.Scan.Host, embed.LexicalID, p.roots())
}

// LockPath is the lock a builder of the project's index holds.
func (p Project) LockPath() string { return p.IndexPath() + ".build.lock" }

// ProgressPath is where a running builder says how far it is.
func (p Project) ProgressPath() string { return p.IndexPath() + ".progress" }

// State is what Check found of an index.
type State int

// States.
const (
	Current State = iota // built from the skills as they are, by the model
	Missing              // no index yet
	Stale                // built from other skill files, or by another model
	Damaged              // unreadable: it was set aside
)

func (s State) String() string {
	return [...]string{"current", "missing", "stale", "damaged"}[s]
}

// Check says whether the index at path, built by model, matches the skills
// of so. With verify every checksum of the file is checked too (reading it
// whole); without, only the header's. A damaged file is set aside (and
// reported through warn), so the next build starts clean.
func Check(path, model string, so scan.Options, verify bool, warn func(string)) State {
	state, _ := check(path, model, so, verify, warn)
	return state
}

// check is Check, also returning the skill files' stamp when it walked
// them (a walk and a stat per skill: a build needs it too).
func check(path, model string, so scan.Options, verify bool, warn func(string)) (State, string) {
	h, err := vecfile.ReadHeader(path)
	if errors.Is(err, os.ErrNotExist) {
		return Missing, ""
	}
	if err == nil && verify {
		err = vecfile.Verify(path)
	}
	if err != nil {
		SetAside(path, err, warn)
		return Damaged, ""
	}
	if h.Model != model || staleBackground(h) {
		return Stale, ""
	}
	// The listings of the last walk spare listing the folders that did not
	// change (most of a walk's time); they are kept beside the index.
	listings := scan.LoadListings(ListingsPath(path))
	stamp, err := scan.StampWith(so, listings)
	if err == nil {
		if err := listings.Save(ListingsPath(path)); err != nil {
			warn(err.Error())
		}
	}
	if err != nil || stamp != h.Stamp {
		return Stale, stamp
	}
	return Current, stamp
}

// CurrentPath is where a check that found the index at path current
// writes the stamp it found: a Watcher vouches for the index only after a
// check it started wrote it.
func CurrentPath(path string) string { return path + ".current" }

// markCurrent notes that a check found the index at path current with
// stamp (best effort: without it a Watcher only vouches less).
func markCurrent(path, stamp string) { replaceFile(CurrentPath(path), []byte(stamp)) }

// staleBackground reports whether an index lacks the background its
// model's judge reads scores against (built before the model had a
// judge), or has one measured under other ranking weights: the next build
// keeps every vector and measures it again.
func staleBackground(h vecfile.Header) bool {
	return judge.Has(h.Model) && (h.Background == nil || h.Background.Scoring != background.Scoring(h.Model))
}

// ListingsPath is where the checks of the index at path keep the listings
// of the skill folders they walked (scan.Listings).
func ListingsPath(path string) string { return path + ".dirs" }

// SetAside moves a damaged index out of the way.
func SetAside(path string, why error, warn func(string)) {
	to, err := aside.Move(path, time.Now())
	if err != nil {
		warn(fmt.Sprintf("%v; %v", why, err))
		return
	}
	warn(fmt.Sprintf("%v; moved aside to %s, rebuilding it", why, filepath.Base(to)))
}

// Lock takes the build lock of p: without waiting (and reporting false
// when a builder holds it) unless wait. The lock is held until the file
// is closed, by this process or one it hands the file to.
func Lock(p Project, wait bool) (*os.File, bool, error) {
	path := p.LockPath()
	// The index folder is ski's own, never a symlink's target.
	if err := xdg.OwnDir(filepath.Dir(path), p.CacheDir, nil); err != nil {
		return nil, false, fmt.Errorf("build lock: %w", err)
	}
	f, err := flock.Open(path)
	if err != nil {
		return nil, false, err
	}
	if wait {
		if err := flock.Lock(f); err != nil {
			f.Close()
			return nil, false, fmt.Errorf("build lock %s: %w", path, err)
		}
		return f, true, nil
	}
	ok, err := flock.TryLock(f)
	if err != nil || !ok {
		f.Close()
		if err != nil {
			err = fmt.Errorf("build lock %s: %w", path, err)
		}
		return nil, false, err
	}
	return f, true, nil
}

// Progress is what a running builder writes to Project.ProgressPath.
type Progress struct {
	PID     int       `json:"pid"`
	Model   string    `json:"model"`
	Phase   string    `json:"phase"` // scan, embed
	Total   int       `json:"total"` // texts to embed
	Done    int       `json:"done"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
}

// writeProgress replaces the progress file (best effort).
func writeProgress(path string, pr Progress) {
	pr.Updated = time.Now().UTC().Truncate(time.Second)
	b, _ := json.Marshal(pr)
	replaceFile(path, b)
}

// replaceFile replaces the small file at path with b, through a temporary
// file beside it, so a reader sees the old bytes or the new (best effort).
func replaceFile(path string, b []byte) {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err == nil {
		os.Rename(tmp, path)
	}
}

// OpenLog opens ski's log in stateDir (hook.log) for a builder's messages,
// or returns nil when it is not a regular file of this user's that can be
// appended to: a log is never written through a symlink, and opening it
// never waits (for a reader of a FIFO in its place).
func OpenLog(stateDir string) *os.File {
	if err := xdg.OwnDir(stateDir, stateDir, nil); err != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(stateDir, "hook.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE|xdg.NoFollow|xdg.NoBlock, 0o600)
	if err != nil {
		return nil
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || !xdg.Mine(st) {
		f.Close()
		return nil
	}
	return f
}
