package builder

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skill-inject/ski/internal/background"
	"github.com/skill-inject/ski/internal/embcache"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/vecfile"
	"github.com/skill-inject/ski/internal/xdg"
)

// rounds bounds how often one builder goes round again because skills
// changed while it built.
const rounds = 3

// Options configure Run.
type Options struct {
	// Embedder embeds with the project's model. The caller owns it (and
	// closes it); a lazily opened one (embed.OpenOrLexical) loads nothing
	// when the index is current.
	Embedder embed.Embedder
	// Progress, when set, is told how many texts are embedded of how many.
	Progress func(done, total int)
	// Building, when set, is called once when the index turns out not to be
	// current, before the scan.
	Building func()
	Warn     func(string)
	Now      func() time.Time
	// Recheck is how often an embedding build looks whether the skills
	// changed meanwhile (a walk and a stat per skill); 0 means every
	// second.
	Recheck time.Duration
}

// Result says what a Run did.
type Result struct {
	Path  string // the model's index
	Count int    // skills in it
	Stats index.Stats
	Built bool // false when the index was current already
}

// Run brings the index of p up to date, holding its build lock (the
// caller took it). It scans the skills, writes the lexical index of what
// it found (when the model is not lexical itself), then builds the model's
// index through the embedding cache, and goes round again if the skills
// changed meanwhile. A change seen while it embeds (it looks every
// Options.Recheck) stops the round at once: the next writes the lexical
// index with the change and embeds the skills that changed first, the
// vectors made so far coming from the cache. The index is verified whole
// first: a damaged one is set aside and built anew.
func Run(p Project, o Options) (Result, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	path := p.IndexPath()
	res := Result{Path: path}
	pr := Progress{PID: os.Getpid(), Model: p.Model, Phase: "scan", Started: o.Now().UTC().Truncate(time.Second)}
	var before map[string]bool // the skills of the round before, by id and hash
	for round := 0; round < rounds; round++ {
		state, stamp := check(path, p.Model, p.Scan, true, o.Warn)
		if state == Current {
			markCurrent(path, stamp)
			if h, err := vecfile.ReadHeader(path); err == nil {
				res.Count = h.Count
			}
			return res, nil
		}
		if round == 0 {
			writeProgress(p.ProgressPath(), pr)
			defer os.Remove(p.ProgressPath())
			if o.Building != nil {
				o.Building()
			}
		}
		if stamp == "" {
			var err error
			if stamp, err = scan.Stamp(p.Scan); err != nil {
				return res, fmt.Errorf("scan skills: %w", err)
			}
		}
		found, err := scan.Scan(p.Scan)
		if err != nil {
			return res, fmt.Errorf("scan skills: %w", err)
		}
		if p.Model != embed.LexicalID {
			if _, err := writeIndex(p.LexicalPath(), p, found.Skills, stamp, embed.NewLexical(), index.Options{}, o); err != nil {
				o.Warn(fmt.Sprintf("lexical index: %v", err))
			}
		}
		emb := o.Embedder
		m := emb.Model()
		cache, err := embcache.Open(p.CacheDir, m.ID, m.Dim, o.Warn)
		if err != nil {
			return res, err
		}
		pr.Phase = "embed"
		last := time.Time{}
		progress := func(done, total int) {
			pr.Done, pr.Total = done, total
			if now := o.Now(); done == total || now.Sub(last) > 500*time.Millisecond {
				last = now
				writeProgress(p.ProgressPath(), pr)
			}
			if o.Progress != nil {
				o.Progress(done, total)
			}
		}
		bo := index.Options{Cache: cache, Progress: progress}
		if before != nil {
			bo.First = func(s record.Skill) bool { return !before[s.ID+"\x00"+s.Hash] }
		}
		if round < rounds-1 {
			bo.Stop = changedSince(path, p.Scan, stamp, o)
		}
		stats, err := writeIndex(path, p, found.Skills, stamp, emb, bo, o)
		if errors.Is(err, index.ErrStopped) {
			before = map[string]bool{}
			for _, s := range found.Skills {
				before[s.ID+"\x00"+s.Hash] = true
			}
			continue
		}
		if err != nil {
			return res, err
		}
		res.Built, res.Count, res.Stats = true, len(found.Skills), stats
	}
	return res, nil
}

// changedSince is a build's Stop: whether the skills of so (whose index is
// at path) have changed from stamp, looked at no more often than every
// o.Recheck.
func changedSince(path string, so scan.Options, stamp string, o Options) func() bool {
	every := o.Recheck
	if every == 0 {
		every = time.Second
	}
	last := o.Now()
	// The listings of the check's walk, when there was one, spare listing
	// again the folders that did not change.
	listings := scan.LoadListings(ListingsPath(path))
	return func() bool {
		if now := o.Now(); now.Sub(last) >= every {
			last = now
			s, err := scan.StampWith(so, listings)
			return err == nil && s != stamp
		}
		return false
	}
}

// writeIndex builds the index at path from skills with emb, reusing what
// the old file there holds, and installs it.
func writeIndex(path string, p Project, skills []record.Skill, stamp string, emb embed.Embedder, bo index.Options, o Options) (index.Stats, error) {
	idx, stats, err := index.BuildWith(skills, index.ReadOld(path, o.Warn), emb, o.Now(), bo)
	if err != nil {
		return stats, err
	}
	if err := background.Attach(idx, emb, bo.Cache, false); err != nil {
		return stats, err
	}
	idx.Header.Host = p.Scan.Host
	idx.Header.Roots = p.roots()
	idx.Header.Stamp = stamp
	// The index folder is ski's own, never a symlink's target.
	if err := xdg.OwnDir(filepath.Dir(path), p.CacheDir, o.Warn); err != nil {
		return stats, fmt.Errorf("index folder: %w", err)
	}
	return stats, indexfile.Write(path, idx)
}

// FD is the descriptor a started builder finds its build lock on.
const FD = 3

// LockFromFD is the build lock a starting process handed to this one.
func LockFromFD() (*os.File, error) {
	f := os.NewFile(FD, "build-lock")
	if f == nil {
		return nil, fmt.Errorf("no build lock on descriptor %d", FD)
	}
	if _, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("build lock on descriptor %d: %w", FD, err)
	}
	return f, nil
}
