package front

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/query"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
)

const whyDoc = `Usage: ski why [--host claude|opencode] [--cwd DIR] [--top N] [--session ID] [--json] "PROMPT"

Runs the prompt through the pipeline the prompt hook runs (ski-embed
--query, ski-rank, ski-select) for the project and host, and shows every
candidate: its score and the parts of it, the decision, the gate that
made it and why, and its band by score (inject: at or above
inject_similarity; suggest: from min_similarity up to it; silent: under
min_similarity or more than score_margin below the best score).
Nothing is recorded: the session ledger is only read, and only with
--session. An index of the project's skills that is missing or out of
date is built first, as ski embed --refresh builds it (with progress on
a terminal); when there are no skills, it says so and where it looked.`

// whyReport is what ski why --json prints.
type whyReport struct {
	Prompt     string         `json:"prompt"`
	Host       string         `json:"host"`
	Cwd        string         `json:"cwd"`
	Model      string         `json:"model"`
	Index      string         `json:"index"`
	Text       string         `json:"text"`
	Intent     string         `json:"intent"`
	Gates      whyGates       `json:"gates"`
	Candidates []whyCandidate `json:"candidates"`
	// Reader says whether the reader read the prompt (package reader).
	Reader   string   `json:"reader,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// whyGates are the gate values in force, by their config keys.
type whyGates struct {
	MinSimilarity    float64 `json:"min_similarity"`
	InjectSimilarity float64 `json:"inject_similarity"`
	ScoreMargin      float64 `json:"score_margin"`
	MaxSkills        int     `json:"max_skills"`
	MaxSuggestions   int     `json:"max_suggestions"`
	// InjectConfidence and SuggestConfidence are the bands' floors for the
	// candidates the judge gave a confidence; absent when the model has no
	// judge or score thresholds of the user's turn it off.
	InjectConfidence  *float64 `json:"inject_confidence,omitempty"`
	SuggestConfidence *float64 `json:"suggest_confidence,omitempty"`
	Deny              []string `json:"deny"`
	Force             []string `json:"force"`
}

func gatesOf(g gate.Settings, model string) whyGates {
	w := whyGates{MinSimilarity: g.MinSimilarity, InjectSimilarity: g.InjectSimilarity, ScoreMargin: g.ScoreMargin,
		MaxSkills: g.MaxSkills, MaxSuggestions: g.MaxSuggestions, Deny: g.Deny, Force: g.Force}
	if judge.Has(model) && !g.Judged.Off {
		w.InjectConfidence, w.SuggestConfidence = &g.Judged.InjectConfidence, &g.Judged.SuggestConfidence
	}
	return w
}

type whyCandidate struct {
	record.Selection
	Band string `json:"band"`
}

func runWhy(w *world, args []string) error {
	f := w.flags("why", whyDoc)
	asJSON := f.Bool("json", false, "print one JSON object for machines instead of a table")
	top := f.Int("top", 10, "candidates shown, `n`; 0 means all")
	session := f.String("session", "", "take what session `ID` has already seen into account (read only)")
	if err := w.parse(f, args); err != nil {
		return err
	}
	if f.NArg() != 1 || strings.TrimSpace(f.Arg(0)) == "" {
		return cli.Usagef("give the prompt as one argument: ski why \"PROMPT\"")
	}
	rep, err := w.why(f.Arg(0), *top, *session)
	if err != nil {
		return err
	}
	if *asJSON {
		return w.printJSON(rep)
	}
	return writeWhy(w.env.Stdout, rep)
}

// why brings the project's index up to date, then runs the prompt
// through the stages beside ski.
func (w *world) why(prompt string, top int, session string) (*whyReport, error) {
	rep := &whyReport{Prompt: prompt, Host: w.host, Cwd: w.cwd, Candidates: []whyCandidate{}}
	skills, err := w.refresh()
	if err != nil {
		return nil, err
	}
	if skills == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("no skills: ski found none for %s in %s", w.host, strings.Join(scan.Places(w.scanOptions()), ", ")))
		return rep, nil
	}
	event, _ := json.Marshal(map[string]string{"prompt": prompt, "cwd": w.cwd, "session_id": session})
	q, err := w.stage(event, "ski-embed", "--query", "--host", w.host)
	if err != nil {
		return nil, fmt.Errorf("ski-embed --query: %w", err)
	}
	if len(bytes.TrimSpace(q)) == 0 {
		if query.Hint(event) == "" {
			rep.Warnings = append(rep.Warnings, "the prompt gives nothing to rank (empty after the host's control text and commands are taken out)")
		} else {
			rep.Warnings = append(rep.Warnings, "the project's index could not be read: ski status shows it")
		}
		return rep, nil
	}
	var qr struct {
		Model, Index, Text, Intent string
	}
	if err := json.Unmarshal(q, &qr); err != nil {
		return nil, fmt.Errorf("ski-embed --query wrote %q: %w", cut(q), err)
	}
	rep.Model, rep.Index, rep.Text, rep.Intent = qr.Model, qr.Index, qr.Text, qr.Intent
	if want := w.model(); rep.Model != want {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("ranked with %s: the index for %s is not ready (ski status shows its build)", rep.Model, want))
	}
	cands, err := w.stage(q, "ski-rank", "--top", fmt.Sprint(top))
	if err != nil {
		return nil, fmt.Errorf("ski-rank: %w", err)
	}
	selArgs := []string{"--all"}
	if session == "" {
		selArgs = append(selArgs, "--no-ledger")
	}
	sels, err := w.stage(cands, "ski-select", selArgs...)
	if err != nil {
		return nil, fmt.Errorf("ski-select: %w", err)
	}
	g, err := w.res.Gate(rep.Model, w.cwd)
	if err != nil {
		return nil, err
	}
	rep.Gates = gatesOf(g, rep.Model)
	rep.Reader = w.readerNote(rep.Model, cands)
	r := ndjson.NewReader(bytes.NewReader(sels), "ski-select", 1<<24)
	err = r.Each(func(line []byte) error {
		var s record.Selection
		if err := json.Unmarshal(line, &s); err != nil {
			return r.Errorf("%w", err)
		}
		band, _ := gate.BandOf(s.Candidate, g)
		rep.Candidates = append(rep.Candidates, whyCandidate{Selection: s, Band: string(band)})
		return nil
	})
	rep.Warnings = append(rep.Warnings, w.warnings...)
	return rep, err
}

// refresh brings the automatic index of the project up to date, as
// ski embed --refresh does, its progress and messages on ski's stderr, and
// says how many skills it holds.
func (w *world) refresh() (int, error) {
	event, _ := json.Marshal(map[string]string{"cwd": w.cwd})
	cmd := exec.Command(filepath.Join(w.bin, "ski-embed"), "--refresh", "--host", w.host)
	cmd.Dir, cmd.Env = w.cwd, w.env.Environ.List()
	cmd.Stdin, cmd.Stderr = bytes.NewReader(event), w.env.Stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("ski-embed --refresh: %w", err)
	}
	var line struct{ Count int }
	if err := json.Unmarshal(out, &line); err != nil {
		return 0, fmt.Errorf("ski-embed --refresh wrote %q: %w", cut(out), err)
	}
	return line.Count, nil
}

func writeWhy(out interface{ Write([]byte) (int, error) }, rep *whyReport) error {
	l := &lines{}
	l.add("prompt:  %q", rep.Prompt)
	if rep.Model != "" {
		l.add("ranked:  %q (intent %s)", rep.Text, orDash(rep.Intent))
		l.add("model:   %s, host %s, index %s", rep.Model, rep.Host, rep.Index)
		g := rep.Gates
		if g.InjectConfidence != nil {
			l.add("judge:   inject_confidence %.2f, suggest_confidence %.2f (the best %d candidates; the others by score)",
				*g.InjectConfidence, *g.SuggestConfidence, judge.Judged)
		}
		l.add("gates:   min_similarity %.3f, inject_similarity %.3f, score_margin %.3f, max_skills %d, max_suggestions %d",
			g.MinSimilarity, g.InjectSimilarity, g.ScoreMargin, g.MaxSkills, g.MaxSuggestions)
	}
	if rep.Reader != "" {
		l.add("reader:  %s", rep.Reader)
	}
	l.add("")
	if len(rep.Candidates) == 0 {
		l.add("no candidates")
	} else {
		var rows [][]string
		for _, c := range rep.Candidates {
			judged := "-"
			if c.Confidence != nil {
				judged = fmt.Sprintf("%.3f", *c.Confidence)
			}
			read := "-"
			if c.Reader != nil {
				read = fmt.Sprintf("%.3f", *c.Reader)
			}
			rows = append(rows, []string{fmt.Sprint(c.Rank), c.ID, fmt.Sprintf("%.3f", c.Score), fmt.Sprintf("%.3f", c.Cosine),
				fmt.Sprintf("%.3f", c.Lexical), fmt.Sprintf("%.3f", c.Boost), judged, read, orDash(c.Mention), c.Band, c.Decision, c.Reason})
		}
		l.table([]string{"RANK", "SKILL", "SCORE", "COSINE", "BM25", "BOOST", "JUDGE", "READER", "MENTION", "BAND", "DECISION", "REASON"}, rows)
		l.add("")
		l.add("score parts:")
		for _, c := range rep.Candidates {
			l.add("  %s: %s", c.ID, strings.Join(c.Why, "; "))
		}
	}
	for _, m := range rep.Warnings {
		l.add("warning: %s", m)
	}
	_, err := out.Write([]byte(l.String()))
	return err
}

// readerOff says why the reader does not run for model's queries from
// the project ("" when it does): a model with no judge has no unsure
// prompts to read, and the config may turn it off.
func (w *world) readerOff(model string) string {
	if !judge.Has(model) {
		return fmt.Sprintf("not used: %s has no judge, and the reader reads only what a judge is unsure of", model)
	}
	if r, err := w.res.Rank(model, w.cwd); err != nil || !r.Reader {
		return "off (the judge decides alone; reader = true in the config turns it on)"
	}
	return ""
}

// readerNote says what the reader did with the prompt whose ranked
// candidates (as ski-rank wrote them) are cands.
func (w *world) readerNote(model string, cands []byte) string {
	if off := w.readerOff(model); off != "" {
		return off
	}
	var read, first []record.Candidate
	rd := ndjson.NewReader(bytes.NewReader(cands), "ski-rank", 1<<24)
	rd.Each(func(line []byte) error {
		var c record.Candidate
		if json.Unmarshal(line, &c) == nil {
			if c.Reader != nil {
				read = append(read, c)
			}
			first = append(first, c)
		}
		return nil
	})
	switch {
	case len(read) > 0:
		return fmt.Sprintf("read the best %d candidates: the judge was unsure of the prompt", len(read))
	case reader.Default().Unsure(first):
		return "the judge was unsure, but the reader did not answer (no embed server, too slow: see hook.log; or past its share of the prompts: see ski status)"
	}
	return "not needed: the judge is sure of this prompt"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printJSON prints v as indented JSON: what --json prints.
func (w *world) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w.env.Stdout, "%s\n", b)
	return err
}

// cut shortens output quoted in an error.
func cut(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
