// Package skillfind answers the model's two questions about skills, for
// ski-mcp's skill_search and skill_load and for ski search: which skills
// fit a task, ranked by ski's own index, model and judge (the stages the
// prompt hook runs, in process; not the reader, whose share of the embed
// server's time is the prompts'), and what one skill says. It never loads
// a model: queries are embedded by the embed server, and while none runs
// (it starts one) they are ranked with the project's lexical index.
package skillfind

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/skill-inject/ski/internal/builder"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/embedsrv"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/query"
	"github.com/skill-inject/ski/internal/rank"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/settings"
	"github.com/skill-inject/ski/internal/skill"
	"github.com/skill-inject/ski/internal/skilltool"
)

// Finder searches and loads the skills a host sees from one project.
type Finder struct {
	Env  environ.Env
	Host string // record.HostClaude or record.HostOpencode
	Cwd  string // the project directory (absolute)
	Res  *settings.Resolver
	Warn func(string)
	// Embed is the ski-embed program that starts embed servers and index
	// builds; "" means the one beside this executable, else on PATH.
	Embed string
	// Hidden reports whether the host's own settings turn a skill off for
	// the model (nil: none are).
	Hidden func(record.Skill) bool
	// Timeout bounds a round trip to the embed server (0: 300 ms).
	Timeout time.Duration

	started map[string]time.Time // what was started, when (startOnce)
}

// Result is what a search found.
type Result struct {
	Hits  []skilltool.Hit
	Model string // the model the query was ranked with ("" when no index)
	Note  string // for the model: how the ranking fell short, or ""
}

// rankTop is how many candidates a search ranks before it drops those the
// model may not use.
const rankTop = 50

// Search ranks the project's skills against q as the prompt hook ranks a
// prompt, and returns the best limit of those the model may invoke, each
// with its band and why.
func (f *Finder) Search(q string, limit int) (Result, error) {
	if limit <= 0 {
		limit = skilltool.DefaultLimit
	}
	limit = min(limit, skilltool.MaxLimit)
	if len(q) > skilltool.MaxQuery {
		q = strings.ToValidUTF8(q[:skilltool.MaxQuery], "")
	}
	cfg := f.Res.Config(f.Cwd)
	model := f.Res.Model(f.Cwd)
	so := scan.ForDir(f.Env, cfg, f.Host, f.Cwd, f.Warn)
	auto, client := f.embedder(model)
	qo := query.Options{Host: f.Host, Model: model, Embed: embed.Env{Environ: f.Env, Runtime: cfg.OnnxRuntime},
		CacheDir: f.Env.Dirs.Cache, Scan: so, MaxLine: 1 << 20, Warn: f.warn, Now: time.Now, Auto: auto,
		Start: func(scan.Options, string) { f.startOnce("build", "--refresh", "--background") }}
	if client != nil {
		qo.Seen = func(so scan.Options, model string) {
			client.Project, _ = json.Marshal(builder.Project{Scan: so, Model: model, CacheDir: f.Env.Dirs.Cache})
		}
	}
	event, _ := json.Marshal(map[string]string{"prompt": q, "cwd": f.Cwd})
	var qrec bytes.Buffer
	err := query.Run(qo, bytes.NewReader(append(event, '\n')), &qrec)
	if client != nil {
		client.Close() // starts a server when none answered
	}
	if err != nil {
		return Result{}, err
	}
	if qrec.Len() == 0 {
		return Result{Note: "ski has no index of this project's skills yet (it is being built); try again shortly."}, nil
	}
	cands, err := f.rank(qrec.Bytes())
	if err != nil || len(cands) == 0 {
		return Result{}, err
	}
	res := Result{Model: cands[0].Model}
	if model != res.Model {
		res.Note = fmt.Sprintf("ski ranked with %s while the model %s starts; search again for a sharper ranking.", res.Model, model)
	}
	g, err := f.Res.Gate(res.Model, f.Cwd)
	if err != nil {
		return res, err
	}
	res.Hits = hits(cands, g, f.Hidden, limit)
	return res, nil
}

// rank ranks a query record as ski-rank does, asking the embed server
// (which keeps the index read) when it runs.
func (f *Finder) rank(qrec []byte) ([]record.Candidate, error) {
	ranker := &embedsrv.Ranker{Environ: f.Env, Runtime: func(cwd string) string { return f.Res.Config(cwd).OnnxRuntime }, Log: f.warn}
	o := rank.Options{MaxLine: 1 << 24, Remote: ranker.Rank, Settings: func(model, cwd string) rank.Settings {
		s := rank.Settings{Top: rankTop}
		if r, err := f.Res.Rank(model, cwd); err == nil {
			return s.WithConfig(r.KeywordBoost, r.SmallEditPenalty)
		}
		return s
	}}
	var out bytes.Buffer
	if err := rank.Run(o, bytes.NewReader(qrec), &out); err != nil {
		return nil, err
	}
	var cands []record.Candidate
	r := ndjson.NewReader(&out, "ranking", 1<<24)
	err := r.Each(func(line []byte) error {
		var c record.Candidate
		if err := json.Unmarshal(line, &c); err != nil {
			return r.Errorf("%w", err)
		}
		cands = append(cands, c)
		return nil
	})
	return cands, err
}

// hits are the best limit candidates the model may invoke, with their
// bands as the gate reads them.
func hits(cands []record.Candidate, g gate.Settings, hidden func(record.Skill) bool, limit int) []skilltool.Hit {
	var out []skilltool.Hit
	for _, c := range cands {
		if len(out) == limit {
			break
		}
		denied := slices.Contains(g.Deny, c.ID) || slices.Contains(g.Deny, c.Name) || slices.Contains(g.Deny, record.LegacyID(c.ID))
		if c.DisableModelInvocation || denied || hidden != nil && hidden(record.Skill{Name: c.Name, Invoke: c.Invoke, Path: c.Path}) {
			continue
		}
		band, why := gate.BandOf(c, g)
		name := string(band)
		if band == gate.BandSilent {
			name = "weak"
		}
		out = append(out, skilltool.Hit{Name: c.Invoke, ID: c.ID, Description: description(c.Path), Band: name,
			Why: whyLine(c, why), Score: c.Score, Path: c.Path})
	}
	return out
}

// description is the description in the frontmatter of the SKILL.md at
// path, or "" when it cannot be read (the index names the file; it is
// read, never run).
func description(path string) string {
	d, _ := skill.ReadDescription(path)
	return d
}

// whyLine is a candidate's reason in one short line: its band's reason and
// what lifted its score.
func whyLine(c record.Candidate, band string) string {
	parts := []string{band}
	if c.Mention != "" {
		parts = append(parts, "named in the query")
	}
	if c.Boost > 0 {
		parts = append(parts, fmt.Sprintf("keyword boost %.2f", c.Boost))
	}
	return strings.Join(parts, "; ")
}

// embedder is the embedder of queries for model: a client of its embed
// server, which stands for the model without loading it, or the lexical
// embedder for the lexical model.
func (f *Finder) embedder(model string) (embed.Embedder, *embedsrv.Client) {
	m, err := embed.Lookup(model)
	if err != nil || m.Backend == "lexical" {
		return embed.NewLexical(), nil
	}
	local := embedsrv.ModelOnly(m)
	if f.Env.NoServer {
		return local, nil
	}
	run, err := embedsrv.RunDir(f.Env.RuntimeDir, f.Env.Dirs.State)
	if err != nil {
		f.warn(fmt.Sprintf("embed server: %v", err))
		return local, nil
	}
	cfg := f.Res.Config(f.Cwd)
	c := &embedsrv.Client{Local: local, Socket: embedsrv.SocketPath(run, model, embed.Env{Environ: f.Env, Runtime: cfg.OnnxRuntime}),
		ReadPrompt: prompt.Read, Timeout: f.timeout(), PerText: f.timeout(), Log: f.warn,
		Start: func() error { f.startOnce("server", "--serve", "--detach"); return nil }}
	if exe, err := embedsrv.FindBinary(embedsrv.ServerBinary); err == nil {
		c.Build = embedsrv.BuildOf(exe)
	}
	return c, c
}

func (f *Finder) timeout() time.Duration {
	if f.Timeout > 0 {
		return f.Timeout
	}
	return embedsrv.RankTimeout
}

// restartAfter is how long after starting a server or a build the finder
// starts another when asked: each takes a while to be there.
const restartAfter = 30 * time.Second

// startOnce runs "ski-embed ARGS --host HOST" in the project (a server or
// a background index build, both of which return at once), unless the
// same was started in the last restartAfter.
func (f *Finder) startOnce(what string, args ...string) {
	if last, ok := f.started[what]; ok && time.Since(last) < restartAfter {
		return
	}
	if f.started == nil {
		f.started = map[string]time.Time{}
	}
	f.started[what] = time.Now()
	exe := f.Embed
	if exe == "" {
		var err error
		if exe, err = embedsrv.FindBinary("ski-embed"); err != nil {
			f.warn(fmt.Sprintf("start %s: %v", what, err))
			return
		}
	}
	cmd := exec.Command(exe, append(args, "--host", f.Host)...)
	cmd.Dir, cmd.Env = f.Cwd, f.Env.List()
	event, _ := json.Marshal(map[string]string{"cwd": f.Cwd})
	cmd.Stdin = bytes.NewReader(append(event, '\n'))
	if err := cmd.Start(); err != nil {
		f.warn(fmt.Sprintf("start %s: %v", what, err))
		return
	}
	go cmd.Wait()
}

func (f *Finder) warn(msg string) {
	if f.Warn != nil {
		f.Warn(msg)
	}
}
