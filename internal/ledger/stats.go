package ledger

import (
	"fmt"
	"sort"
)

// SkillStats sums up, over many sessions, what happened to one skill.
type SkillStats struct {
	Kind       string  `json:"kind"` // "stats"
	ID         string  `json:"id"`
	Sessions   int     `json:"sessions"`    // sessions that saw any event of it
	Injected   int     `json:"injected"`    // times ski injected it
	Followed   int     `json:"followed"`    // injections the model followed by loading it
	FollowRate float64 `json:"follow_rate"` // followed / injected
	Suggested  int     `json:"suggested"`   // times ski named it in its suggestion line
	// SuggestionsFollowed counts the suggestions the model followed by
	// loading the skill.
	SuggestionsFollowed int `json:"suggestions_followed"`
	ModelLoaded         int `json:"model_loaded"` // times the model loaded it (followed or not)
	UserInvoked         int `json:"user_invoked"` // times the user invoked it with /name
	// ToolLoads counts the model's loads with skill_load (in ModelLoaded).
	ToolLoads int `json:"tool_loads"`
	// Found counts the skill_search results that named it; FoundLoaded the
	// times the model loaded it after a search found it, in that session.
	Found       int `json:"found"`
	FoundLoaded int `json:"found_loaded"`
}

// Stats computes per-skill statistics from the event logs of ledgers. An
// injection counts as followed when the model loads the same skill later in
// the same session, before the skill is injected again or the session is
// re-armed; a suggestion likewise, unless ski injected the skill in
// between (the load then follows the injection). Skills come out most
// injected first, ties by id.
func Stats(ledgers []*Ledger) []SkillStats {
	by := map[string]*SkillStats{}
	get := func(id string) *SkillStats {
		s, ok := by[id]
		if !ok {
			s = &SkillStats{Kind: "stats", ID: id}
			by[id] = s
		}
		return s
	}
	for _, l := range ledgers {
		seen := map[string]bool{}
		pending := map[string]bool{}   // injected, not yet followed
		suggested := map[string]bool{} // suggested, not yet followed
		found := map[string]bool{}     // found by a search, not yet loaded
		for _, e := range l.events {
			switch e.Kind {
			case EventRearm:
				pending, suggested = map[string]bool{}, map[string]bool{}
				continue
			case EventSearch:
				continue
			}
			s := get(e.ID)
			if !seen[e.ID] {
				seen[e.ID] = true
				s.Sessions++
			}
			switch e.Kind {
			case EventInject:
				s.Injected++
				pending[e.ID] = true
				delete(suggested, e.ID)
			case EventSuggest:
				s.Suggested++
				suggested[e.ID] = true
			case EventFound:
				s.Found++
				found[e.ID] = true
			case EventLoad:
				s.ModelLoaded++
				if e.Source == SourceTool {
					s.ToolLoads++
				}
				if found[e.ID] {
					s.FoundLoaded++
					delete(found, e.ID)
				}
				switch {
				case pending[e.ID]:
					s.Followed++
					delete(pending, e.ID)
				case suggested[e.ID]:
					s.SuggestionsFollowed++
					delete(suggested, e.ID)
				}
			case EventHostLoad:
				s.UserInvoked++
			}
		}
	}
	out := make([]SkillStats, 0, len(by))
	for _, s := range by {
		if s.Injected > 0 {
			s.FollowRate = float64(s.Followed) / float64(s.Injected)
		}
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Injected != out[j].Injected {
			return out[i].Injected > out[j].Injected
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// StatsColumns head a table of SkillStats rows (Row).
var StatsColumns = []string{"SKILL", "INJECTED", "FOLLOWED", "RATE", "SUGGESTED", "SUGGEST-FOLLOWED", "MODEL-LOADED", "USER-INVOKED",
	"FOUND", "FOUND-LOADED", "TOOL-LOADS", "SESSIONS"}

// Row is s as a row under StatsColumns. notInjected, when not "", stands
// for the follow rate of a skill never injected (else it reads 0%).
func (s SkillStats) Row(notInjected string) []string {
	rate := fmt.Sprintf("%.0f%%", 100*s.FollowRate)
	if s.Injected == 0 && notInjected != "" {
		rate = notInjected
	}
	return []string{s.ID, fmt.Sprint(s.Injected), fmt.Sprint(s.Followed), rate, fmt.Sprint(s.Suggested),
		fmt.Sprint(s.SuggestionsFollowed), fmt.Sprint(s.ModelLoaded), fmt.Sprint(s.UserInvoked),
		fmt.Sprint(s.Found), fmt.Sprint(s.FoundLoaded), fmt.Sprint(s.ToolLoads), fmt.Sprint(s.Sessions)}
}

// Searches counts the calls of skill_search in ledgers.
func Searches(ledgers []*Ledger) int {
	n := 0
	for _, l := range ledgers {
		for _, e := range l.events {
			if e.Kind == EventSearch {
				n++
			}
		}
	}
	return n
}
