package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/skill"
)

// entry is a skill or an error record with what it is sorted by.
type entry struct {
	rank int // scope precedence
	id   string
	path string
}

// Scan searches the roots of o and returns the skills the host would load
// and an error record for every SKILL.md it would not. It fails only when
// the options are invalid or an explicit root (Options.Roots) is not a
// directory; everything about a single skill becomes an error record.
//
// The same file reached twice (through a symlink, or two roots that
// overlap) is one skill, kept under the root that comes first. Two files
// that the host would invoke by the same name (the name, or "plugin:name"
// for plugin skills) are one skill too: the one in the scope that wins
// (see Precedence; within a scope, the earlier root and then the smaller
// id) is kept and lists the other in Shadows, and the other becomes an
// error record, so that nothing is dropped silently.
func Scan(o Options) (Result, error) {
	o, err := o.normalize()
	if err != nil {
		return Result{}, err
	}
	roots := Roots(o)
	for _, r := range roots {
		if r.Explicit && !isDir(r.Path) {
			if _, err := os.Stat(r.Path); err != nil {
				return Result{}, fmt.Errorf("root %s: %w", r.Path, unwrapPath(err))
			}
			return Result{}, fmt.Errorf("root %s: not a directory", r.Path)
		}
	}

	var (
		skills    []record.Skill
		skillKeys []entry
		errs      []record.ScanError
		errKeys   []entry
		files     = map[string]bool{}   // canonical paths already seen
		byInvoke  = map[string]int{}    // invoke name -> index in skills
		ids       = map[string]string{} // id -> the root that has it
	)
	addErr := func(rank int, rec record.ScanError) {
		rec.Kind = record.KindError
		errs = append(errs, rec)
		errKeys = append(errKeys, entry{rank, rec.ID, rec.Path})
	}

	for _, r := range roots {
		rank := scopeRank(o.Host, r.Scope)
		if !isDir(r.Path) {
			if r.Scope == record.ScopeExtra {
				o.Warn(fmt.Sprintf("extra root %s does not exist or is not a directory", r.Path))
			}
			continue
		}
		hits, problems := walk(r.Path, o.MaxDepth, nil)
		for _, p := range problems {
			addErr(rank, record.ScanError{Path: p.path, Root: r.Path, ID: sourceID(r, p.id, ids), Reason: p.reason})
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].id < hits[j].id })
		for i := range hits {
			hits[i].id = sourceID(r, hits[i].id, ids)
		}
		for _, h := range hits {
			key := canonical(h.path)
			if files[key] {
				continue
			}
			files[key] = true

			rec, err := load(o, r, h)
			if err != nil {
				var se *skill.Error
				reason := err.Error()
				if errors.As(err, &se) {
					reason = se.Reason
				}
				addErr(rank, record.ScanError{Path: h.path, Root: r.Path, ID: h.id, Reason: reason})
				continue
			}
			name := rec.Invoke
			if i, ok := byInvoke[name]; ok && !o.KeepShadowed {
				win := &skills[i]
				win.Shadows = append(win.Shadows, rec.Path)
				addErr(rank, record.ScanError{Path: rec.Path, Root: r.Path, ID: rec.ID, Reason: shadowReason(*win, rec), ShadowedBy: win.Path})
				continue
			}
			if _, ok := byInvoke[name]; !ok {
				byInvoke[name] = len(skills)
			}
			skills = append(skills, rec)
			skillKeys = append(skillKeys, entry{rank, rec.ID, rec.Path})
		}
	}

	sortBy(skills, skillKeys)
	sortBy(errs, errKeys)
	if skills == nil {
		skills = []record.Skill{}
	}
	if errs == nil {
		errs = []record.ScanError{}
	}
	return Result{Skills: skills, Errors: errs}, nil
}

// sourceID is the id of the skill at rel (its folder relative to root r),
// unique among the skills of a scan and stable across scans of the same
// roots. A skill under an explicit root (--root, SKI_ROOTS) or a user root
// (even one the cwd makes a project root too) is known by rel, as ski has
// always named it; one under a project, plugin
// or extra root by rel qualified with where it comes from
// ("project:rel", "plugin:<plugin>/rel", "extra:rel"), so a personal, a
// project and a plugin skill in folders of the same name never share a
// ledger entry. An id that another root of the scan has already is
// qualified with that root ("rel@<8 hex digits of its path's SHA-256>").
func sourceID(r Root, rel string, ids map[string]string) string {
	id := rel
	switch {
	case r.Explicit || r.Scope == record.ScopeUser || r.UserDir:
	case r.Scope == record.ScopePlugin:
		id = "plugin:" + r.Plugin + "/" + rel
	default:
		id = r.Scope + ":" + rel
	}
	if root, ok := ids[id]; ok && root != r.Path {
		sum := sha256.Sum256([]byte(r.Path))
		id += "@" + hex.EncodeToString(sum[:4])
	}
	if _, ok := ids[id]; !ok {
		ids[id] = r.Path
	}
	return id
}

func shadowReason(win, lose record.Skill) string {
	why := fmt.Sprintf("the %s skill wins over the %s one", win.Scope, lose.Scope)
	if win.Scope == lose.Scope {
		why = fmt.Sprintf("both are %s skills and the earlier root, then the smaller id, wins", win.Scope)
	}
	return fmt.Sprintf("shadowed by %s: both are invoked as %q; %s", win.Path, win.Invoke, why)
}

// sortBy orders recs by scope precedence, then id, then path.
func sortBy[T any](recs []T, keys []entry) {
	idx := make([]int, len(recs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := keys[idx[a]], keys[idx[b]]
		if ka.rank != kb.rank {
			return ka.rank < kb.rank
		}
		if ka.id != kb.id {
			return ka.id < kb.id
		}
		return ka.path < kb.path
	})
	sorted := make([]T, len(recs))
	for i, j := range idx {
		sorted[i] = recs[j]
	}
	copy(recs, sorted)
}

// load reads and parses one SKILL.md into a record.
func load(o Options, r Root, h hit) (record.Skill, error) {
	f, err := skill.ReadFile(h.path, o.MaxSize)
	if err != nil {
		return record.Skill{}, err
	}
	doc, err := skill.Parse(h.path, f.Data)
	if err != nil {
		return record.Skill{}, err
	}
	invoke := doc.Name
	if r.Plugin != "" {
		invoke = r.Plugin + ":" + doc.Name
	}
	return record.Skill{
		Kind:                   record.KindSkill,
		ID:                     h.id,
		Name:                   doc.Name,
		Description:            doc.Description,
		WhenToUse:              doc.WhenToUse,
		Invoke:                 invoke,
		Path:                   h.path,
		Dir:                    dirOf(h.path),
		Root:                   r.Path,
		Scope:                  r.Scope,
		Host:                   o.Host,
		Keywords:               doc.Keywords,
		Aliases:                doc.Aliases,
		Tags:                   doc.Tags,
		Affinity:               doc.Affinity,
		DisableModelInvocation: doc.DisableModelInvocation,
		UserInvocable:          doc.UserInvocable,
		AutoInject:             doc.AutoInject,
		Hash:                   f.Hash(),
		Mtime:                  f.ModTime.UTC().Format(time.RFC3339),
		Size:                   f.Size,
	}, nil
}

// Run scans and writes the skill records, then the error records, one per
// line, and returns what it wrote. The caller flushes w.
func Run(o Options, w *ndjson.Writer) (Result, error) {
	res, err := Scan(o)
	if err != nil {
		return res, err
	}
	for _, s := range res.Skills {
		if err := w.Encode(s); err != nil {
			return res, err
		}
	}
	for _, e := range res.Errors {
		if err := w.Encode(e); err != nil {
			return res, err
		}
	}
	return res, nil
}
