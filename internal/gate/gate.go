// Package gate decides, for each query's ranked candidates, which skills are
// injected, which are only suggested and which are dropped, and why.
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
	MaxSuggestions   int // skills suggested per prompt, besides MaxSkills; 0: none
	// Judged are the values in force for candidates the judge gave a
	// confidence; the three above are for the others.
	Judged Judged
	Deny   []string // skill ids or names never auto-injected
	Force  []string // skill ids or names injected on any keyword hit
}

// Judged are the gate values for candidates with a judge's confidence.
type Judged struct {
	InjectConfidence  float64 // the floor of the injection band
	SuggestConfidence float64 // the floor of the suggestion band
	// Off reads every candidate by its score: the user set score
	// thresholds of their own (min_similarity, inject_similarity or
	// score_margin), and those win.
	Off bool
}

// Sessions look up what a session already has.
type Sessions interface {
	Lookup(session string) (Seen, error)
}

// Seen is what one session already has.
type Seen interface {
	// Loaded reports whether the skill is loaded and by whom.
	Loaded(id string) (source string, ok bool)
	// Suggested reports whether the skill was already suggested.
	Suggested(id string) bool
}

// Listed is a Seen that also knows how the host lists each skill to the
// model in the session (ledger.Ledger.Shown).
type Listed interface {
	Shown(id string) string
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
	sels := Decide(cands, set, seen)
	if l, ok := seen.(Listed); ok {
		for i, s := range sels {
			if s.Decision == record.DecisionInject || s.Decision == record.DecisionSuggest {
				sels[i].Shown = l.Shown(s.ID)
			}
		}
	}
	return sels, nil
}

// Decide applies the gates to one query's candidates, given in rank order,
// with the settings in force and what the session has already seen.
func Decide(cands []record.Candidate, set Settings, seen Seen) []record.Selection {
	if seen == nil {
		seen = nothingSeen{}
	}
	sels := make([]record.Selection, len(cands))
	injected := map[string]bool{}
	nInject, nSuggest := 0, 0
	for i, c := range cands {
		c.Kind = record.KindSelection
		decision, reason := gateOne(c, set, seen)
		if decision == record.DecisionInject {
			switch {
			case c.Mention != "":
				// The user asked for it: it takes no automatic skill's place.
				injected[c.ID] = true
			case nInject >= set.MaxSkills && !(nInject == set.MaxSkills && affine(c, injected, cands)):
				// Confident, but the injections are full: it may still
				// be named in the suggestion line.
				decision, reason = suggestOnce(c, seen, fmt.Sprintf("max_skills %d reached", set.MaxSkills))
			default:
				if nInject >= set.MaxSkills {
					reason += "; affinity lifts the cap by one"
				}
				nInject++
				injected[c.ID] = true
			}
		}
		if decision == record.DecisionSuggest {
			// Suggestions have a cap of their own: they take no injection's place.
			switch {
			case set.MaxSuggestions <= 0:
				decision, reason = record.DecisionDrop, reason+"; suggestions are off (max_suggestions 0)"
			case nSuggest >= set.MaxSuggestions:
				decision, reason = record.DecisionDrop, reason+fmt.Sprintf("; max_suggestions %d reached", set.MaxSuggestions)
			default:
				nSuggest++
			}
		}
		sels[i] = record.Selection{Candidate: c, Decision: decision, Reason: reason}
	}
	return sels
}

// Band is where a candidate's confidence puts it.
type Band string

// Bands, from most to least confident.
const (
	BandInject  Band = "inject"  // injected
	BandSuggest Band = "suggest" // named in the suggestion line
	BandSilent  Band = "silent"  // left out
)

// BandOf places a candidate in a band by its confidence or score and the
// settings, and says why. It is the one place where either meets the
// thresholds. With the judge's confidence (and no score thresholds of the
// user's), suggest_confidence is the floor of the suggestion band and
// inject_confidence of the injection band. Otherwise min_similarity is the
// floor of the suggestion band, inject_similarity the floor of the
// injection band, and a candidate more than score_margin below the query's
// best is silent whatever its score.
func BandOf(c record.Candidate, s Settings) (Band, string) {
	if c.Confidence != nil && !s.Judged.Off {
		return judgedBand(*c.Confidence, s.Judged)
	}
	switch {
	case c.Score < s.MinSimilarity:
		return BandSilent, fmt.Sprintf("score %.3f below min_similarity %.3f", c.Score, s.MinSimilarity)
	case c.Score < c.TopScore-s.ScoreMargin:
		return BandSilent, fmt.Sprintf("score %.3f more than score_margin %.3f below the top %.3f", c.Score, s.ScoreMargin, c.TopScore)
	case c.Score < s.InjectSimilarity:
		return BandSuggest, fmt.Sprintf("score %.3f below inject_similarity %.3f", c.Score, s.InjectSimilarity)
	}
	return BandInject, fmt.Sprintf("score %.3f at or above inject_similarity %.3f", c.Score, s.InjectSimilarity)
}

func judgedBand(conf float64, j Judged) (Band, string) {
	switch {
	case conf < j.SuggestConfidence:
		return BandSilent, fmt.Sprintf("judge %.3f below suggest_confidence %.3f", conf, j.SuggestConfidence)
	case conf < j.InjectConfidence:
		return BandSuggest, fmt.Sprintf("judge %.3f below inject_confidence %.3f", conf, j.InjectConfidence)
	}
	return BandInject, fmt.Sprintf("judge %.3f at or above inject_confidence %.3f", conf, j.InjectConfidence)
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
	if named(s.Force) && c.Boost > 0 {
		if src, ok := loaded(); ok {
			return record.DecisionDrop, "already loaded in this session (" + src + ")"
		}
		return record.DecisionInject, "forced by config on a keyword hit"
	}
	band, why := BandOf(c, s)
	if band == BandSilent {
		return record.DecisionDrop, why
	}
	if src, ok := loaded(); ok {
		return record.DecisionDrop, "already loaded in this session (" + src + ")"
	}
	switch {
	case band == BandSuggest:
		return suggestOnce(c, seen, why)
	case !c.AutoInject:
		return suggestOnce(c, seen, "autoInject is off")
	}
	return record.DecisionInject, why
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

// suggestOnce suggests c unless the session was already given it as a
// suggestion (an injection later in the session is still allowed).
func suggestOnce(c record.Candidate, seen Seen, reason string) (string, string) {
	if seen.Suggested(c.ID) || seen.Suggested(record.LegacyID(c.ID)) {
		return record.DecisionDrop, reason + "; already suggested in this session"
	}
	return record.DecisionSuggest, reason
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
func (nothingSeen) Suggested(string) bool        { return false }
