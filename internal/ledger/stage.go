package ledger

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/record"
)

// Mark is one change a stage makes to a session's ledger.
type Mark struct {
	Session string
	// Event is EventInject, EventHostLoad, EventLoad (loaded by ski, the
	// user or the model), EventSuggest, EventRearm, EventSearch or
	// MarkListing.
	Event string
	ID    string // the skill id; empty for EventRearm and EventSearch
	// Source, for EventLoad, says how the model loaded it: SourceModel
	// (the default) or SourceTool.
	Source Source
	// Found are the skills an EventSearch returned, best first.
	Found []string
	// Listing is what a MarkListing keeps.
	Listing *Listing
}

// apply makes the change on l.
func (m Mark) apply(l *Ledger, now time.Time) error {
	switch m.Event {
	case EventInject:
		l.MarkLoaded(m.ID, SourceSki, now)
	case EventHostLoad:
		l.MarkLoaded(m.ID, SourceUser, now)
	case EventLoad:
		l.MarkLoaded(m.ID, cmp.Or(m.Source, SourceModel), now)
	case EventSearch:
		l.MarkSearched(m.Found, now)
	case EventSuggest:
		l.MarkSuggested(m.ID, now)
	case EventRearm:
		l.Rearm(now)
	case MarkListing:
		if m.Listing == nil {
			return fmt.Errorf("a listing mark without its listing")
		}
		l.SetListing(*m.Listing, now)
	default:
		return fmt.Errorf("unknown ledger event %q", m.Event)
	}
	return nil
}

// taken reports whether the ledger already has what m would record first:
// the skill of an injection or suggestion is in context, or the skill of a
// suggestion was suggested, since another prompt of the session recorded
// it. A suggested skill may still be injected, once.
//
// Entries of older ledgers name a skill by its id of then
// (record.LegacyID) and count too.
func (m Mark) taken(l *Ledger) bool {
	ids := []string{m.ID}
	if old := record.LegacyID(m.ID); old != m.ID {
		ids = append(ids, old)
	}
	for _, id := range ids {
		_, loaded := l.Loaded(id)
		switch {
		case loaded && (m.Event == EventInject || m.Event == EventSuggest):
			return true
		case m.Event == EventSuggest && l.Suggested(id):
			return true
		}
	}
	return false
}

// Apply makes marks in order with one Update per session, sessions in the
// order they first appear. It stops at the first session that fails; the
// sessions before it stay updated.
func (s *Store) Apply(marks []Mark) error {
	_, err := s.apply(marks, false)
	return err
}

// apply is Apply; with once, an injection or suggestion that another
// prompt of the session recorded first (seen under the session's lock) is
// not made again, and taken[i] reports it for marks[i].
func (s *Store) apply(marks []Mark, once bool) (taken []bool, err error) {
	taken = make([]bool, len(marks))
	var order []string
	bySession := make(map[string][]int)
	for i, m := range marks {
		if _, ok := bySession[m.Session]; !ok {
			order = append(order, m.Session)
		}
		bySession[m.Session] = append(bySession[m.Session], i)
	}
	for _, session := range order {
		err := s.Update(session, func(l *Ledger) error {
			now := s.now()
			for _, i := range bySession[session] {
				m := marks[i]
				taken[i] = once && m.taken(l)
				if taken[i] {
					continue
				}
				if err := m.apply(l, now); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("session %q: %w", session, err)
		}
	}
	return taken, nil
}

// Input is an NDJSON stream to read.
type Input struct {
	R       io.Reader
	Name    string // names the stream in errors, e.g. "<stdin>"
	MaxLine int    // cap on one line; 0 means ndjson.DefaultMaxLine
}

func (in Input) reader(r io.Reader) *ndjson.Reader {
	name := in.Name
	if name == "" {
		name = "<input>"
	}
	return ndjson.NewReader(r, name, in.MaxLine)
}

// Record reads the whole stream of ski-select records, checks every line,
// applies the marks (one Update per session), and only then copies the
// input lines to out byte for byte. Nothing is written to out when a line
// is malformed or an update fails, so a renderer downstream never shows
// the model a skill the ledger does not know about.
//
// Decisions map to marks: inject → loaded by ski, host-loads → loaded by
// the user, suggest → suggested, drop → nothing. ski-select decided
// from the ledger as it was when it read it; under the session's lock an
// injection or suggestion that another prompt of the same session
// recorded meanwhile is neither made again nor passed on, so a skill goes
// into a session once however many prompts race. Record returns the marks
// it made.
func Record(s *Store, in Input, out io.Writer) ([]Mark, error) {
	r := in.reader(in.R)
	var lines [][]byte
	var marks []Mark
	var lineOf []int // marks[i] came from lines[lineOf[i]]
	if err := r.Each(func(line []byte) error {
		m, ok, err := selectionMark(line)
		if err != nil {
			return r.Errorf("%w", err)
		}
		lines = append(lines, append(bytes.Clone(line), '\n'))
		if ok {
			marks = append(marks, m)
			lineOf = append(lineOf, len(lines)-1)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	taken, err := s.apply(marks, true)
	if err != nil {
		return nil, err
	}
	made := marks[:0:0]
	for i, m := range marks {
		if taken[i] {
			lines[lineOf[i]] = nil
		} else {
			made = append(made, m)
		}
	}
	if _, err := out.Write(bytes.Join(lines, nil)); err != nil {
		return made, fmt.Errorf("write output: %w", err)
	}
	return made, nil
}

func selectionMark(line []byte) (Mark, bool, error) {
	var sel record.Selection
	if err := json.Unmarshal(line, &sel); err != nil {
		return Mark{}, false, fmt.Errorf("decode selection: %w", err)
	}
	if sel.Kind != record.KindSelection {
		return Mark{}, false, fmt.Errorf("kind %q, want %q", sel.Kind, record.KindSelection)
	}
	if sel.SessionID == "" {
		return Mark{}, false, errors.New("selection has no session_id")
	}
	m := Mark{Session: sel.SessionID, ID: sel.ID}
	switch sel.Decision {
	case record.DecisionInject:
		m.Event = EventInject
	case record.DecisionHostLoads:
		m.Event = EventHostLoad
	case record.DecisionSuggest:
		m.Event = EventSuggest
	case record.DecisionDrop:
		return Mark{}, false, nil
	default:
		return Mark{}, false, fmt.Errorf("decision %q, want %q, %q, %q or %q", sel.Decision,
			record.DecisionInject, record.DecisionSuggest, record.DecisionHostLoads, record.DecisionDrop)
	}
	if sel.ID == "" {
		return Mark{}, false, errors.New("selection has no id")
	}
	return m, true, nil
}

// RearmPayloads reads host session-start payloads, one per line: Claude
// Code's SessionStart {"session_id", "source", ...} or the opencode
// plugin's {"session_id", "source"}. A payload with source "compact"
// rearms its session; other sources (startup, resume, clear) change
// nothing. It returns the rearm marks it applied.
func RearmPayloads(s *Store, in Input) ([]Mark, error) {
	return s.markEach(in, func(r *ndjson.Reader, line []byte) (*Mark, error) {
		var p struct {
			SessionID  string `json:"session_id"`
			SessionID2 string `json:"sessionID"`
			Source     string `json:"source"`
		}
		if err := json.Unmarshal(line, &p); err != nil {
			return nil, r.Errorf("decode payload: %w", err)
		}
		if p.Source != "compact" {
			return nil, nil
		}
		session := cmp.Or(p.SessionID, p.SessionID2)
		if session == "" {
			return nil, r.Errorf("compact payload has no session_id")
		}
		return &Mark{Session: session, Event: EventRearm}, nil
	})
}

// ListingPayloads reads host session-start payloads, one per line
// ({"session_id", "cwd", "model"?, ...}), works out each session's listing
// with listing (given the payload's cwd and model, "" when it has none;
// nil when there is nothing to keep) and keeps it in the session's ledger.
// It returns the marks it applied.
func ListingPayloads(s *Store, in Input, listing func(cwd, model string) (*Listing, error)) ([]Mark, error) {
	return s.markEach(in, func(r *ndjson.Reader, line []byte) (*Mark, error) {
		var p struct {
			SessionID  string `json:"session_id"`
			SessionID2 string `json:"sessionID"`
			Cwd        string `json:"cwd"`
			Model      string `json:"model"`
		}
		if err := json.Unmarshal(line, &p); err != nil {
			return nil, r.Errorf("decode payload: %w", err)
		}
		session := cmp.Or(p.SessionID, p.SessionID2)
		if session == "" {
			return nil, r.Errorf("payload has no session_id")
		}
		x, err := listing(p.Cwd, p.Model)
		if err != nil {
			return nil, r.Errorf("%w", err)
		}
		if x == nil {
			return nil, nil
		}
		return &Mark{Session: session, Event: MarkListing, Listing: x}, nil
	})
}

// markEach reads every line of in, turns each into at most one mark with
// mark (nil: none), applies the marks once all are read, and returns them.
// A bad line fails the whole input and applies nothing.
func (s *Store) markEach(in Input, mark func(r *ndjson.Reader, line []byte) (*Mark, error)) ([]Mark, error) {
	r := in.reader(in.R)
	var marks []Mark
	if err := r.Each(func(line []byte) error {
		m, err := mark(r, line)
		if m != nil {
			marks = append(marks, *m)
		}
		return err
	}); err != nil {
		return nil, err
	}
	if err := s.Apply(marks); err != nil {
		return nil, err
	}
	return marks, nil
}
