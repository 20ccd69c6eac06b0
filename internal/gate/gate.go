// Package gate decides, for each query's ranked candidates, which skills are
// injected, which are only recommended and which are dropped, and why.
package gate

import (
	"fmt"
	"io"
	"slices"

	"github.com/skill-inject/ski/internal/mention"
	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/record"
)

// Settings are the gate values in force for one query.
type Settings struct {
	MinSimilarity    float64
	InjectSimilarity float64
	ScoreMargin      float64
	MaxSkills        int
	Deny             []string // skill ids or names never auto-injected
	Force            []string // skill ids or names injected on any keyword hit
}

// Sessions look up what a session already has.
type Sessions interface {
	Lookup(session string) (Seen, error)
}

// Seen is what one session already has.
type Seen interface {
	// Loaded reports whether the skill is loaded and by whom.
	Loaded(id string) (source string, ok bool)
	// Recommended reports whether the skill was already recommended.
	Recommended(id string) bool
}

// Options configure a run.
type Options struct {
	// Settings returns the settings for a query's model and directory.
	Settings func(model, cwd string) (Settings, error)
	Sessions Sessions // nil: no session dedup
	All      bool     // also emit dropped candidates with their reason
	Table    bool     // write an aligned table for people instead of records
	MaxLine  int
}

// Run reads candidate records, grouped by query, and writes selections.
func Run(o Options, in io.Reader, out io.Writer) error {
	r := ndjson.NewReader(in, "<stdin>", o.MaxLine)
	w := newWriter(out, o.Table)
	err := record.EachQuery(r, record.KindCandidate, "ski-rank", func(group []record.Candidate) error {
		sels, err := o.decide(group)
		if err != nil {
			return err
		}
		for _, s := range sels {
			if s.Decision == record.DecisionDrop && !o.All {
				continue
			}
			if err := w.write(s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return w.flush()
}

// decide applies the gates to one query's candidates, in rank order.
func (o Options) decide(cands []record.Candidate) ([]record.Selection, error) {
	first := cands[0]
	set, err := o.Settings(first.Model, first.Cwd)
	if err != nil {
		return nil, err
	}
	var seen Seen = nothingSeen{}
	if o.Sessions != nil && first.SessionID != "" {
		if seen, err = o.Sessions.Lookup(first.SessionID); err != nil {
			return nil, fmt.Errorf("session %q: %w", first.SessionID, err)
		}
	}
	return Decide(cands, set, seen), nil
}

// Decide applies the gates to one query's candidates, given in rank order,
// with the settings in force and what the session has already seen.
func Decide(cands []record.Candidate, set Settings, seen Seen) []record.Selection {
	if seen == nil {
		seen = nothingSeen{}
	}
	sels := make([]record.Selection, len(cands))
	injected := map[string]bool{}
	nInject, nRecommend := 0, 0
	for i, c := range cands {
		c.Kind = record.KindSelection
		decision, reason := gateOne(c, set, seen)
		switch decision {
		case record.DecisionInject:
			if c.Mention != "" {
				// The user asked for it: it takes no automatic skill's place.
				injected[c.ID] = true
				break
			}
			if nInject >= set.MaxSkills && !(nInject == set.MaxSkills && affine(c, injected, cands)) {
				decision, reason = record.DecisionDrop, fmt.Sprintf("max_skills %d reached", set.MaxSkills)
				break
			}
			if nInject >= set.MaxSkills {
				reason += "; affinity lifts the cap by one"
			}
			nInject++
			injected[c.ID] = true
		case record.DecisionRecommend:
			if nRecommend >= set.MaxSkills {
				decision, reason = record.DecisionDrop, fmt.Sprintf("max_skills %d recommendations reached", set.MaxSkills)
				break
			}
			nRecommend++
		}
		sels[i] = record.Selection{Candidate: c, Decision: decision, Reason: reason}
	}
	return sels
}

// gate decides one candidate on its own; caps are applied by decide.
func gateOne(c record.Candidate, s Settings, seen Seen) (decision, reason string) {
	named := func(list []string) bool {
		return slices.Contains(list, c.ID) || slices.Contains(list, c.Name) || slices.Contains(list, record.LegacyID(c.ID))
	}
	loaded := func() (string, bool) { return loadedAs(seen, c.ID) }
	switch c.Mention {
	case "":
	case mention.Slash:
		if c.UserInvocable {
			return record.DecisionHostLoads, "invoked with /" + c.Invoke + "; the host loads it"
		}
		// Hidden from the host's / menu (user-invocable: false), so
		// "/name" loads nothing; the model may still use it.
		if src, ok := loaded(); ok {
			return record.DecisionDrop, "named with /" + c.Invoke + ", but already loaded (" + src + ")"
		}
		return record.DecisionInject, "named with /" + c.Invoke + ", which the host does not load (user-invocable is false)"
	default:
		if src, ok := loaded(); ok {
			return record.DecisionDrop, "mentioned, but already loaded (" + src + ")"
		}
		return record.DecisionInject, "mentioned (" + c.Mention + ")"
	}
	if named(s.Deny) {
		return record.DecisionDrop, "denied by config"
	}
	if c.DisableModelInvocation {
		return record.DecisionDrop, "disable-model-invocation is set"
	}
	forced := named(s.Force) && c.Boost > 0
	if !forced {
		if c.Score < s.MinSimilarity {
			return record.DecisionDrop, fmt.Sprintf("score %.3f below min_similarity %.3f", c.Score, s.MinSimilarity)
		}
		if c.Score < c.TopScore-s.ScoreMargin {
			return record.DecisionDrop, fmt.Sprintf("score %.3f more than score_margin %.3f below the top %.3f", c.Score, s.ScoreMargin, c.TopScore)
		}
	}
	if src, ok := loaded(); ok {
		return record.DecisionDrop, "already loaded in this session (" + src + ")"
	}
	switch {
	case forced:
		return record.DecisionInject, "forced by config on a keyword hit"
	case c.Score < s.InjectSimilarity:
		return recommendOnce(c, seen, fmt.Sprintf("score %.3f below inject_similarity %.3f", c.Score, s.InjectSimilarity))
	case !c.AutoInject:
		return recommendOnce(c, seen, "autoInject is off")
	}
	return record.DecisionInject, fmt.Sprintf("score %.3f at or above inject_similarity %.3f", c.Score, s.InjectSimilarity)
}

// loadedAs looks id up in seen, and then the id ski gave the skill before
// ids named their source (record.LegacyID), which older ledgers hold.
func loadedAs(seen Seen, id string) (string, bool) {
	if src, ok := seen.Loaded(id); ok {
		return src, ok
	}
	if old := record.LegacyID(id); old != id {
		return seen.Loaded(old)
	}
	return "", false
}

func recommendOnce(c record.Candidate, seen Seen, reason string) (string, string) {
	if seen.Recommended(c.ID) || seen.Recommended(record.LegacyID(c.ID)) {
		return record.DecisionDrop, reason + "; already recommended in this session"
	}
	return record.DecisionRecommend, reason
}

// affine reports whether c and an already injected skill declare each other
// complementary.
func affine(c record.Candidate, injected map[string]bool, cands []record.Candidate) bool {
	for _, other := range cands {
		if !injected[other.ID] {
			continue
		}
		if declares(c, other) && declares(other, c) {
			return true
		}
	}
	return false
}

func declares(a, b record.Candidate) bool {
	return slices.Contains(a.Affinity, b.ID) || slices.Contains(a.Affinity, b.Name)
}

// nothingSeen is the empty session.
type nothingSeen struct{}

func (nothingSeen) Loaded(string) (string, bool) { return "", false }
func (nothingSeen) Recommended(string) bool      { return false }
