package front

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/skill-inject/ski/internal/ledger"
	"github.com/skill-inject/ski/internal/scan"
)

const statsDoc = `Usage: ski stats [--host claude|opencode] [--cwd DIR]

Per skill, over every recorded session: how often ski injected it, how
often the model followed by loading it, how often ski only suggested it
and how often the model followed the suggestion, and how often the model or the user loaded it themselves, how often the
model's skill_search found it and the model then loaded it, and its loads
with skill_load (what ski-ledger stats counts); then the searches and
loads of ski's tools in all. Then, once at least 20 sessions are recorded
(it says how many it read), advice: a skill injected often and never
followed has a description broader than its use (narrow it, or deny it in
the config); a skill the model loaded without ski, or one of the
project's skills no session used, needs the words people use for it in
its description or keywords (skills with disable-model-invocation, which
ski never injects, are left out).`

const historyDoc = `Usage: ski history [--limit N]

The last decisions across sessions, newest first: when, which session,
what happened (inject, suggestion, load by the model, user invocation,
rearm after compaction) and to which skill.`

// Advice thresholds: a skill injected this often and followed less than
// this share of the time is worth a look.
// Advice waits for adviceMinSessions sessions: before, every skill looks
// unused.
const (
	adviceMinInjected = 3
	adviceLowFollow   = 0.25
	adviceMinSessions = 20
)

func (w *world) ledgers() ([]*ledger.Ledger, error) {
	st := &ledger.Store{Dir: ledger.Dir(w.dirs.State)}
	return st.List()
}

func runStats(w *world, args []string) error {
	f := w.flags("stats", statsDoc)
	if err := w.parseNoArgs(f, args); err != nil {
		return err
	}
	ledgers, err := w.ledgers()
	if err != nil {
		return err
	}
	stats := ledger.Stats(ledgers)
	l := &lines{}
	if len(stats) == 0 {
		l.add("no sessions recorded yet")
	} else {
		var rows [][]string
		for _, s := range stats {
			rows = append(rows, s.Row("-"))
		}
		l.table(ledger.StatsColumns, rows)
	}
	if n := ledger.Searches(ledgers); n > 0 {
		loads, foundLoaded := 0, 0
		for _, s := range stats {
			loads += s.ToolLoads
			foundLoaded += s.FoundLoaded
		}
		l.add("")
		l.add("the model's tools: %d searches (skill_search), %d loads with skill_load; %d times it loaded a skill a search had found", n, loads, foundLoaded)
	}
	switch {
	case len(ledgers) == 0:
	case len(ledgers) < adviceMinSessions:
		l.add("")
		l.add("advice: none until %d sessions are recorded (%d read so far)", adviceMinSessions, len(ledgers))
	default:
		if advice := w.advice(stats); len(advice) > 0 {
			l.add("")
			l.add("advice (from the %d sessions read):", len(ledgers))
			for _, a := range advice {
				l.add("  %s", a)
			}
		}
	}
	_, err = fmt.Fprint(w.env.Stdout, l.String())
	return err
}

// advice says which skills' descriptions to look at, from their stats.
func (w *world) advice(stats []ledger.SkillStats) []string {
	var advice []string
	reached := map[string]bool{}
	for _, s := range stats {
		reached[s.ID] = true
		switch {
		case s.Injected >= adviceMinInjected && s.Followed == 0:
			advice = append(advice, fmt.Sprintf("%s: injected %s and never followed: its description is broader than its use; narrow it, or add it to deny in the config", s.ID, times(s.Injected)))
		case s.Injected >= adviceMinInjected && s.FollowRate < adviceLowFollow:
			advice = append(advice, fmt.Sprintf("%s: followed %d of %d times: check its description against the prompts it was injected for (ski why \"PROMPT\")", s.ID, s.Followed, s.Injected))
		}
		if s.ModelLoaded > s.Followed && s.Injected == 0 && s.Suggested == 0 {
			advice = append(advice, fmt.Sprintf("%s: the model loaded it %s without ski: ski did not reach it for those prompts; add their words to its description or keywords", s.ID, times(s.ModelLoaded)))
		}
	}
	if res, err := scan.Scan(w.scanOptions()); err == nil {
		var never []string
		for _, s := range res.Skills {
			if !reached[s.ID] && !s.DisableModelInvocation {
				never = append(never, s.ID)
			}
		}
		if len(never) > 0 {
			advice = append(advice, fmt.Sprintf("never used in any session: %s. If people ask for one of them, put the words they use (the task, the tool, the file type) in its description or under keywords:, and check with ski why \"PROMPT\"", joinMax(never, 8)))
		}
	}
	return advice
}

func runHistory(w *world, args []string) error {
	f := w.flags("history", historyDoc)
	limit := f.Int("limit", 20, "decisions shown, `n`; 0 means all")
	if err := w.parseNoArgs(f, args); err != nil {
		return err
	}
	ledgers, err := w.ledgers()
	if err != nil {
		return err
	}
	type row struct {
		session string
		ledger.Event
	}
	var rows []row
	for _, lg := range ledgers {
		for _, e := range lg.Events() {
			rows = append(rows, row{lg.SessionID(), e})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if !rows[i].At.Equal(rows[j].At) {
			return rows[i].At.After(rows[j].At)
		}
		return rows[i].session < rows[j].session
	})
	if *limit > 0 && len(rows) > *limit {
		rows = rows[:*limit]
	}
	l := &lines{}
	if len(rows) == 0 {
		l.add("no sessions recorded yet")
	} else {
		var table [][]string
		for _, r := range rows {
			table = append(table, []string{r.At.UTC().Format(time.DateTime), r.session, eventLabel(r.Kind), orDash(r.ID)})
		}
		l.table([]string{"WHEN (UTC)", "SESSION", "EVENT", "SKILL"}, table)
	}
	_, err = fmt.Fprint(w.env.Stdout, l.String())
	return err
}

// eventLabel says what a ledger event means.
func eventLabel(kind string) string {
	switch kind {
	case ledger.EventInject:
		return "injected"
	case ledger.EventSuggest:
		return "suggested"
	case ledger.EventLoad:
		return "loaded by the model"
	case ledger.EventHostLoad:
		return "invoked by the user"
	case ledger.EventRearm:
		return "compacted (re-armed)"
	case ledger.EventSearch:
		return "searched (skill_search)"
	case ledger.EventFound:
		return "found by the search"
	}
	return kind
}

// times says how often: "once", "3 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// joinMax joins up to n items and says how many more there are.
func joinMax(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
