package front

import (
	"fmt"
	"strings"

	"github.com/skill-inject/ski/internal/cli"
	textcut "github.com/skill-inject/ski/internal/cut"
	"github.com/skill-inject/ski/internal/skillfind"
	"github.com/skill-inject/ski/internal/skilltool"
)

const searchDoc = `Usage: ski search [--host claude|opencode] [--cwd DIR] [--limit N] [--json] "QUERY"

Ranks the project's skills against the query as ski-mcp's skill_search
tool does for the model (ski's index, model and judge, as the prompt
hook ranks a prompt), and prints the best as a table: rank, name, band
(inject, suggest or weak), score, description and why. Skills the model
may not invoke are left out. The model runs in the embed server: with
none running, ski search starts one and ranks with the lexical index
meanwhile (and says so).`

// searchReport is what ski search --json prints.
type searchReport struct {
	Query string          `json:"query"`
	Host  string          `json:"host"`
	Cwd   string          `json:"cwd"`
	Model string          `json:"model"`
	Note  string          `json:"note,omitempty"`
	Hits  []skilltool.Hit `json:"skills"`
}

func runSearch(w *world, args []string) error {
	f := w.flags("search", searchDoc)
	asJSON := f.Bool("json", false, "print one JSON object for machines instead of a table")
	limit := f.Int("limit", 10, fmt.Sprintf("skills shown, `n` (1-%d)", skilltool.MaxLimit))
	if err := w.parse(f, args); err != nil {
		return err
	}
	if f.NArg() != 1 || strings.TrimSpace(f.Arg(0)) == "" {
		return cli.Usagef("give the query as one argument: ski search \"QUERY\"")
	}
	finder := &skillfind.Finder{Env: w.env.Environ, Host: w.host, Cwd: w.cwd, Res: w.res,
		Warn: func(s string) { w.warnings = append(w.warnings, s) }, Hidden: skillfind.HostHidden(w.env.Environ, w.host, w.cwd)}
	res, err := finder.Search(f.Arg(0), *limit)
	if err != nil {
		return err
	}
	rep := searchReport{Query: f.Arg(0), Host: w.host, Cwd: w.cwd, Model: res.Model, Note: res.Note, Hits: res.Hits}
	if rep.Hits == nil {
		rep.Hits = []skilltool.Hit{}
	}
	if *asJSON {
		return w.printJSON(rep)
	}
	l := &lines{}
	if len(rep.Hits) == 0 {
		l.add("no skill matches %q", rep.Query)
	} else {
		l.add("ranked with %s for %s in %s", rep.Model, rep.Host, rep.Cwd)
		var rows [][]string
		for i, h := range rep.Hits {
			rows = append(rows, []string{fmt.Sprint(i + 1), h.Name, h.Band, fmt.Sprintf("%.3f", h.Score), textcut.Short(h.Description, 60), h.Why})
		}
		l.table([]string{"RANK", "SKILL", "BAND", "SCORE", "DESCRIPTION", "WHY"}, rows)
	}
	if rep.Note != "" {
		l.add("note: %s", rep.Note)
	}
	_, err = fmt.Fprint(w.env.Stdout, l.String())
	return err
}
