package ledger

import "sort"

// SkillStats sums up, over many sessions, what happened to one skill.
type SkillStats struct {
	Kind        string  `json:"kind"` // "stats"
	ID          string  `json:"id"`
	Sessions    int     `json:"sessions"`     // sessions that saw any event of it
	Injected    int     `json:"injected"`     // times ski injected it
	Followed    int     `json:"followed"`     // injections the model followed by loading it
	FollowRate  float64 `json:"follow_rate"`  // followed / injected
	Recommended int     `json:"recommended"`  // times ski named it without injecting
	ModelLoaded int     `json:"model_loaded"` // times the model loaded it (followed or not)
	UserInvoked int     `json:"user_invoked"` // times the user invoked it with /name
}

// Stats computes per-skill statistics from the event logs of ledgers. An
// injection counts as followed when the model loads the same skill later in
// the same session, before the skill is injected again or the session is
// re-armed. Skills come out most injected first, ties by id.
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
		pending := map[string]bool{} // injected, not yet followed
		for _, e := range l.events {
			if e.Kind == EventRearm {
				pending = map[string]bool{}
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
			case EventRecommend:
				s.Recommended++
			case EventLoad:
				s.ModelLoaded++
				if pending[e.ID] {
					s.Followed++
					delete(pending, e.ID)
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
