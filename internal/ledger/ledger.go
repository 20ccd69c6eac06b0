// Package ledger keeps ski's per-session state: which skills are already in
// a session's context (injected by ski, loaded by the model on its own, or
// invoked by the user), which were suggested, and a capped event log that
// a later stats command can mine for how often the model followed an
// injection or a suggestion.
//
// One session is one JSON file, $XDG_STATE_HOME/ski/sessions/<key>.json
// (see Key). Store.Update changes it under an exclusive lock and replaces it
// with an atomic rename, so readers never see a half-written file and
// concurrent hooks never lose each other's updates.
package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Version is the ledger file format version this package reads and writes.
const Version = 1

// MaxEvents caps the event log; the oldest events are dropped first.
const MaxEvents = 500

// Source says how a skill got into a session's context.
type Source string

// Sources of a loaded skill.
const (
	SourceSki   Source = "ski"   // ski injected it
	SourceModel Source = "model" // the model loaded it itself (observed)
	SourceUser  Source = "user"  // the user invoked /name through the host
	SourceTool  Source = "tool"  // the model loaded it with ski's skill_load
)

// Event kinds, in Event.Kind.
const (
	EventInject   = "inject"    // ski injected a skill (SourceSki)
	EventSuggest  = "suggest"   // ski named a skill in its suggestion line
	EventLoad     = "load"      // the model loaded a skill (SourceModel)
	EventHostLoad = "host-load" // the user invoked a skill (SourceUser)
	EventRearm    = "rearm"     // the session was compacted; all cleared
	EventSearch   = "search"    // the model called skill_search (no ID)
	EventFound    = "found"     // a skill skill_search returned
)

// MarkListing is the mark (not an event: the log keeps no trace of it)
// that keeps a session's listing (SetListing).
const MarkListing = "listing"

// eventRecommend is what ledgers written before the suggestion band called
// a suggestion; it is read as EventSuggest.
const eventRecommend = "recommend"

// Entry is one loaded skill.
type Entry struct {
	// Source is who put the skill in context most recently.
	Source Source `json:"source"`
	// At is when it was most recently marked loaded.
	At time.Time `json:"at"`
	// Count is how often it was marked loaded since the last rearm.
	Count int `json:"count"`
}

// Event is one line of a ledger's history. Rearm events carry no ID or
// Source.
type Event struct {
	At     time.Time `json:"at"`
	Kind   string    `json:"event"`
	ID     string    `json:"id,omitempty"`
	Source Source    `json:"source,omitempty"`
}

// Ledger is the state of one session. The zero value is an empty ledger
// without a session id; use New. A Ledger is not safe for concurrent use:
// share it through Store.Update.
type Ledger struct {
	session   string
	loaded    map[string]Entry
	suggested map[string]time.Time
	listing   *Listing
	events    []Event
	updated   time.Time
}

// Listing is what the host shows the model of the skills in the session's
// skill listing, worked out at session start (package listing) for the
// prompts to read: the skills it does not show whole.
type Listing struct {
	Model  string `json:"model,omitempty"` // "" when none was known
	Budget int    `json:"budget"`          // characters; 0: no budget
	// States are the skills' states other than "full", by id: "cut",
	// "bare" or "absent".
	States map[string]string `json:"states"`
}

// New returns an empty ledger for session.
func New(session string) *Ledger {
	return &Ledger{session: session}
}

// SessionID is the host's session id the ledger belongs to.
func (l *Ledger) SessionID() string { return l.session }

// Updated is when the ledger was last written (zero for a new ledger).
func (l *Ledger) Updated() time.Time { return l.updated }

// Loaded reports whether skill id is in the session's context, and how it
// got there.
func (l *Ledger) Loaded(id string) (Entry, bool) {
	e, ok := l.loaded[id]
	return e, ok
}

// Suggested reports whether skill id was suggested since the last rearm.
func (l *Ledger) Suggested(id string) bool {
	_, ok := l.suggested[id]
	return ok
}

// LoadedIDs returns the ids of the loaded skills, sorted.
func (l *Ledger) LoadedIDs() []string {
	return slices.Sorted(maps.Keys(l.loaded))
}

// SuggestedIDs returns the ids of the suggested skills, sorted.
func (l *Ledger) SuggestedIDs() []string {
	return slices.Sorted(maps.Keys(l.suggested))
}

// Events returns a copy of the event log, oldest first.
func (l *Ledger) Events() []Event {
	return slices.Clone(l.events)
}

// MarkLoaded records that skill id is now in context because of source.
// The entry keeps the latest source and time and counts the marks; the
// event log keeps the full history.
func (l *Ledger) MarkLoaded(id string, source Source, now time.Time) {
	now = stamp(now)
	if l.loaded == nil {
		l.loaded = make(map[string]Entry)
	}
	e := l.loaded[id]
	e.Source, e.At, e.Count = source, now, e.Count+1
	l.loaded[id] = e
	l.log(Event{At: now, Kind: eventFor(source), ID: id, Source: source})
}

func eventFor(s Source) string {
	switch s {
	case SourceSki:
		return EventInject
	case SourceUser:
		return EventHostLoad
	default:
		return EventLoad
	}
}

// MarkSuggested records that ski named skill id in its suggestion line.
// A suggestion is kept apart from the loaded skills: the skill is not in
// context until the model loads it or ski injects it.
func (l *Ledger) MarkSuggested(id string, now time.Time) {
	now = stamp(now)
	if l.suggested == nil {
		l.suggested = make(map[string]time.Time)
	}
	l.suggested[id] = now
	l.log(Event{At: now, Kind: EventSuggest, ID: id, Source: SourceSki})
}

// MarkSearched records a call of skill_search and the skills it returned,
// best first.
func (l *Ledger) MarkSearched(found []string, now time.Time) {
	now = stamp(now)
	l.log(Event{At: now, Kind: EventSearch})
	for _, id := range found {
		l.log(Event{At: now, Kind: EventFound, ID: id})
	}
}

// SetListing keeps what the host lists for the prompts of the session,
// in place of what it kept before.
func (l *Ledger) SetListing(x Listing, now time.Time) {
	l.listing = &x
	if now = stamp(now); now.After(l.updated) {
		l.updated = now
	}
}

// Shown is how the host lists skill id to the model: "full", "cut",
// "bare" or "absent"; "" when the session's listing is not known.
func (l *Ledger) Shown(id string) string {
	if l.listing == nil {
		return ""
	}
	if s, ok := l.listing.States[id]; ok {
		return s
	}
	return "full"
}

// HasBody reports whether the session has skill id's instructions already,
// since the last rearm: the model or the user loaded it through the host
// (an injection may have been only a directive to load it).
func (l *Ledger) HasBody(id string) bool {
	e, ok := l.loaded[id]
	return ok && (e.Source == SourceModel || e.Source == SourceUser || e.Source == SourceTool)
}

// Rearm forgets every loaded and suggested skill, as after a compaction
// that dropped them from context, and logs a rearm event. The event log is
// kept.
func (l *Ledger) Rearm(now time.Time) {
	now = stamp(now)
	clear(l.loaded)
	clear(l.suggested)
	l.log(Event{At: now, Kind: EventRearm})
}

func (l *Ledger) log(e Event) {
	l.events = append(l.events, e)
	if n := len(l.events); n > MaxEvents {
		// Copy, so the dropped events do not pin the backing array.
		l.events = slices.Clone(l.events[n-MaxEvents:])
	}
	if e.At.After(l.updated) {
		l.updated = e.At
	}
}

// file is the on-disk form of a Ledger.
type file struct {
	Version   int                  `json:"version"`
	SessionID string               `json:"session_id"`
	Loaded    map[string]Entry     `json:"loaded"`
	Suggested map[string]time.Time `json:"suggested"`
	// Recommended is what ledgers written before the suggestion band
	// called Suggested; it is read, never written.
	Recommended map[string]time.Time `json:"recommended,omitempty"`
	Listing     *Listing             `json:"listing,omitempty"`
	Events      []Event              `json:"events"`
	Updated     time.Time            `json:"updated"`
}

// MarshalJSON encodes the ledger in its file format.
func (l *Ledger) MarshalJSON() ([]byte, error) {
	f := file{
		Version:   Version,
		SessionID: l.session,
		Loaded:    l.loaded,
		Suggested: l.suggested,
		Listing:   l.listing,
		Events:    l.events,
		Updated:   l.updated,
	}
	if f.Loaded == nil {
		f.Loaded = map[string]Entry{}
	}
	if f.Suggested == nil {
		f.Suggested = map[string]time.Time{}
	}
	if f.Events == nil {
		f.Events = []Event{}
	}
	return json.Marshal(f)
}

// errForeign marks a file that parses as JSON but is not a ledger this
// package can use.
var errForeign = errors.New("not a ski ledger")

// decode parses a ledger file. A ledger written before the suggestion band
// (its suggestions under "recommended", as "recommend" events) reads as
// one written now.
func decode(data []byte) (*Ledger, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	switch {
	case f.Version == 0:
		return nil, fmt.Errorf("%w: no version", errForeign)
	case f.Version != Version:
		return nil, fmt.Errorf("%w: version %d, want %d", errForeign, f.Version, Version)
	case f.SessionID == "":
		return nil, fmt.Errorf("%w: no session_id", errForeign)
	}
	for id, at := range f.Recommended {
		if _, ok := f.Suggested[id]; !ok {
			if f.Suggested == nil {
				f.Suggested = make(map[string]time.Time)
			}
			f.Suggested[id] = at
		}
	}
	for i, e := range f.Events {
		if e.Kind == eventRecommend {
			f.Events[i].Kind = EventSuggest
		}
	}
	l := &Ledger{
		session:   f.SessionID,
		loaded:    f.Loaded,
		suggested: f.Suggested,
		listing:   f.Listing,
		events:    f.Events,
		updated:   f.Updated,
	}
	if n := len(l.events); n > MaxEvents {
		l.events = slices.Clone(l.events[n-MaxEvents:])
	}
	return l, nil
}

// stamp is how times are kept: UTC, whole seconds (plain RFC 3339).
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }
