package rank

import "github.com/skill-inject/ski/internal/judge"

// Settings are what a ranking of one query may change: every value worked
// out for the query, so that another process ranks it exactly as this one
// would (Options.Remote, Held.Rank). A nil value means the model's own.
type Settings struct {
	Top              int      `json:"top"` // candidates kept; <= 0 means all
	KeywordBoost     *float64 `json:"keyword_boost,omitempty"`
	SmallEditPenalty *float64 `json:"small_edit_penalty,omitempty"`
	LexicalWeight    *float64 `json:"lexical_weight,omitempty"`
	BodyWeight       *float64 `json:"body_weight,omitempty"`
	IntentBoost      *float64 `json:"intent_boost,omitempty"`
	// NoJudge leaves out the judge's confidences (the gate then reads the
	// scores), as for an index without a background.
	NoJudge bool `json:"no_judge,omitempty"`
	// Reader lets the reader look again at the candidates of a prompt the
	// judge is unsure of (Options.Reread, Held.Reread).
	Reader bool `json:"reader,omitempty"`

	// Judge, when set, replaces the model's judge (to measure another).
	Judge *judge.Model `json:"-"`
	// Features gives the best candidates the judge's features even without
	// a judge (when the index has a background): what training one reads.
	Features bool `json:"-"`
}

// Local reports whether s holds what cannot leave this process (a judge of
// its own, features).
func (s Settings) Local() bool { return s.Judge != nil || s.Features }

// WithConfig is s with the config's ranking values for a query: its
// small-edit penalty, and its keyword boost unless s sets one.
func (s Settings) WithConfig(keywordBoost, smallEditPenalty float64) Settings {
	s.SmallEditPenalty = &smallEditPenalty
	if s.KeywordBoost == nil {
		s.KeywordBoost = &keywordBoost
	}
	return s
}
