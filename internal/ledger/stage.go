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
	// user or the model), EventRecommend or EventRearm.
	Event string
	ID    string // the skill id; empty for EventRearm
}

// apply makes the change on l.
func (m Mark) apply(l *Ledger, now time.Time) error {
	switch m.Event {
	case EventInject:
		l.MarkLoaded(m.ID, SourceSki, now)
	case EventHostLoad:
		l.MarkLoaded(m.ID, SourceUser, now)
	case EventLoad:
		l.MarkLoaded(m.ID, SourceModel, now)
	case EventRecommend:
		l.MarkRecommended(m.ID, now)
	case EventRearm:
		l.Rearm(now)
	default:
		return fmt.Errorf("unknown ledger event %q", m.Event)
	}
	return nil
}

// Apply makes marks in order with one Update per session, sessions in the
// order they first appear. It stops at the first session that fails; the
// sessions before it stay updated.
func (s *Store) Apply(marks []Mark) error {
	var order []string
	bySession := make(map[string][]Mark)
	for _, m := range marks {
		if _, ok := bySession[m.Session]; !ok {
			order = append(order, m.Session)
		}
		bySession[m.Session] = append(bySession[m.Session], m)
	}
	for _, session := range order {
		err := s.Update(session, func(l *Ledger) error {
			now := s.now()
			for _, m := range bySession[session] {
				if err := m.apply(l, now); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("session %q: %w", session, err)
		}
	}
	return nil
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
// input to out byte for byte. Nothing is written to out when a line is
// malformed or an update fails, so a renderer downstream never shows the
// model a skill the ledger does not know about.
//
// Decisions map to marks: inject → loaded by ski, host-loads → loaded by
// the user, recommend → recommended, drop → nothing.
func Record(s *Store, in Input, out io.Writer) ([]Mark, error) {
	var raw bytes.Buffer
	r := in.reader(io.TeeReader(in.R, &raw))
	var marks []Mark
	if err := r.Each(func(line []byte) error {
		m, ok, err := selectionMark(line)
		if err != nil {
			return r.Errorf("%w", err)
		}
		if ok {
			marks = append(marks, m)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := s.Apply(marks); err != nil {
		return nil, err
	}
	if _, err := out.Write(raw.Bytes()); err != nil {
		return marks, fmt.Errorf("write output: %w", err)
	}
	return marks, nil
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
	case record.DecisionRecommend:
		m.Event = EventRecommend
	case record.DecisionDrop:
		return Mark{}, false, nil
	default:
		return Mark{}, false, fmt.Errorf("decision %q, want %q, %q, %q or %q", sel.Decision,
			record.DecisionInject, record.DecisionRecommend, record.DecisionHostLoads, record.DecisionDrop)
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
	r := in.reader(in.R)
	var marks []Mark
	if err := r.Each(func(line []byte) error {
		var p struct {
			SessionID  string `json:"session_id"`
			SessionID2 string `json:"sessionID"`
			Source     string `json:"source"`
		}
		if err := json.Unmarshal(line, &p); err != nil {
			return r.Errorf("decode payload: %w", err)
		}
		if p.Source != "compact" {
			return nil
		}
		session := cmp.Or(p.SessionID, p.SessionID2)
		if session == "" {
			return r.Errorf("compact payload has no session_id")
		}
		marks = append(marks, Mark{Session: session, Event: EventRearm})
		return nil
	}); err != nil {
		return nil, err
	}
	if err := s.Apply(marks); err != nil {
		return nil, err
	}
	return marks, nil
}
