package reader

import (
	"errors"
	"sync"

	"github.com/skill-inject/ski/internal/record"
)

// ErrPastShare is the answer to a reading past the reader's share of the
// prompts (Share): not a failure, the judge's word stands.
var ErrPastShare = errors.New("reader: past its share of the prompts")

// shareBurst is how many readings a Share may save up, and holds at its
// start: a few unsure prompts in a row are all read.
const shareBurst = 5

// Share holds the reader to at most a share of the prompts, whatever the
// catalog: where the judge is unsure of most prompts (a catalog of
// near-duplicate skills), reading them all would make the median prompt
// wait for the reader. Each prompt seen earns limit of a reading, each
// reading spends one, and at most shareBurst are saved; a reading with
// none saved is declined. Safe for concurrent use.
type Share struct {
	mu     sync.Mutex
	limit  float64
	credit float64
}

// NewShare returns a Share of limit (0 to 1) of the prompts; a limit of 1
// or more, or 0 (a Params without max_share), never declines.
func NewShare(limit float64) *Share {
	if limit <= 0 || limit >= 1 {
		limit = 1
	}
	return &Share{limit: limit, credit: shareBurst}
}

// Prompt counts a prompt seen.
func (s *Share) Prompt() {
	s.mu.Lock()
	s.credit = min(s.credit+s.limit, shareBurst)
	s.mu.Unlock()
}

// Take reports whether a reading is within the share, and counts it.
func (s *Share) Take() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limit >= 1 {
		return true
	}
	if s.credit < 1 {
		return false
	}
	s.credit--
	return true
}

// Within is a CandidateScorer that reads with c while share allows it and
// answers ErrPastShare past it.
func Within(share *Share, c CandidateScorer) CandidateScorer {
	return sharedScorer{share, c}
}

type sharedScorer struct {
	share *Share
	c     CandidateScorer
}

func (s sharedScorer) ScoreCandidates(prompt string, cands []record.Candidate) ([]float64, error) {
	if !s.share.Take() {
		return nil, ErrPastShare
	}
	return s.c.ScoreCandidates(prompt, cands)
}
