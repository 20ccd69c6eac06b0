package evalcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/eval"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/record"
)

// readerParams are the reader's values o asks for, and whether it runs.
func readerParams(o Options) (reader.Params, bool, error) {
	p := reader.Default()
	if o.ReaderParams != "" {
		data, err := os.ReadFile(o.ReaderParams)
		if err != nil {
			return p, false, err
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return p, false, fmt.Errorf("%s: %w", o.ReaderParams, err)
		}
	}
	on := p.On
	switch o.Reader {
	case "on":
		on = true
	case "off":
		on = false
	}
	return p, on, nil
}

// reread runs the reader's step on every row, as ski-rank has it run on
// each prompt (reader.Params.Step), with the model in process and the
// skill texts the index would hold and the server's share of the prompts
// (reader.Share, rows in order); it says how often it ran, how long that
// took and how often the share declined it.
func reread(env cli.Env, p reader.Params, rows []eval.Labelled, skills []record.Skill) error {
	model, err := reader.Open(embed.Env{Environ: env.Environ})
	if err != nil {
		return err
	}
	defer model.Close()
	texts := make(map[string]string, len(skills))
	for _, s := range skills {
		texts[s.ID] = index.DocumentText(s, "")
	}
	share := reader.NewShare(p.MaxShare)
	scorer := reader.Within(share, reader.WithTexts(model, func(id string) (string, bool) { t, ok := texts[id]; return t, ok }))
	ran, declined := 0, 0
	var took time.Duration
	for i := range rows {
		share.Prompt()
		start := time.Now()
		did, err := p.Step(rows[i].Cands, prompt.Read(rows[i].Case.Prompt).Text, scorer)
		if errors.Is(err, reader.ErrPastShare) {
			declined++
			continue
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", rows[i].Case.Line, err)
		}
		if did {
			ran++
			took += time.Since(start)
		}
	}
	per := 0.0
	if ran > 0 {
		per = float64(took.Microseconds()) / 1000 / float64(ran)
	}
	fmt.Fprintf(env.Stderr, "ski-eval: the reader read %d of %d prompts (%.1f %%), %.1f ms a prompt read, %d past its share left to the judge\n",
		ran, len(rows), 100*float64(ran)/float64(max(len(rows), 1)), per, declined)
	return nil
}
