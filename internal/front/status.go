package front

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skill-inject/ski/internal/builder"
	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/embedsrv"
	"github.com/skill-inject/ski/internal/hostrules"
	"github.com/skill-inject/ski/internal/ledger"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/vecfile"
)

const statusDoc = `Usage: ski status [--host claude|opencode] [--cwd DIR]

For the project and host: the skill roots and how many usable skills (and
shadowed skills, error and warning records) each holds, each skill a
skill of the same name shadows with the one that wins, how many of them the
host's skill listing shows as bare names (without their description), the
index (model, age, size, whether it is up to date, build progress), the
embed server (with how many prompts it embedded and the reader read since
it started), and what ski
did in the most recent session: skills injected, suggested, and loaded by
the model itself.`

func runStatus(w *world, args []string) error {
	f := w.flags("status", statusDoc)
	if err := w.parseNoArgs(f, args); err != nil {
		return err
	}
	out := &lines{}
	out.add("ski %s — project %s, host %s", cli.Version(), w.cwd, w.host)

	o := w.scanOptions()
	res, err := scan.Scan(o)
	if err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	warns := hostrules.CheckAll(w.host, res.Skills)
	errs, shadowed := splitShadowed(res.Errors)
	out.add("")
	out.add("skills: %d usable, %d shadowed, %d errors, %d warnings", len(res.Skills), len(shadowed), len(errs), len(warns))
	for _, r := range scan.Roots(o) {
		n := 0
		for _, s := range res.Skills {
			if s.Root == r.Path {
				n++
			}
		}
		extra := ""
		if sh := inRoot(shadowed, r.Path); sh > 0 {
			extra = fmt.Sprintf(", %d shadowed", sh)
		}
		if e := inRoot(errs, r.Path); e > 0 {
			extra += fmt.Sprintf(", %d errors", e)
		}
		if _, err := os.Stat(r.Path); err != nil {
			extra += " (missing)"
		}
		out.add("  %-8s %s: %d skills%s", r.Scope, r.Path, n, extra)
	}
	for _, e := range shadowed {
		out.add("  shadowed %s: %s", e.Path, strings.TrimPrefix(e.Reason, "shadowed "))
	}
	for _, e := range errs {
		out.add("  error    %s: %s", e.Path, e.Reason)
	}
	for _, wr := range warns {
		out.add("  warning  %s: %s", wr.Path, wr.Reason)
	}
	w.listingStatus(out)

	out.add("")
	ix := w.indexState(o)
	out.add("index: %s", ix.path)
	out.add("  %s", ix.summary())
	out.add("  %s", ix.build.summary())

	out.add("")
	out.add("embed server: %s", w.serverState().summary())

	out.add("")
	w.lastSession(out)
	for _, m := range w.warnings {
		out.add("warning: %s", m)
	}
	_, err = fmt.Fprint(w.env.Stdout, out.String())
	return err
}

// splitShadowed parts a scan's error records into the skills that cannot
// be used and those a skill of the same name wins over.
func splitShadowed(all []record.ScanError) (errs, shadowed []record.ScanError) {
	for _, e := range all {
		if e.ShadowedBy != "" {
			shadowed = append(shadowed, e)
		} else {
			errs = append(errs, e)
		}
	}
	return errs, shadowed
}

// inRoot counts the records found under root.
func inRoot(recs []record.ScanError, root string) int {
	n := 0
	for _, e := range recs {
		if e.Root == root {
			n++
		}
	}
	return n
}

// lines builds a report line by line.
type lines struct{ strings.Builder }

func (l *lines) add(format string, args ...any) {
	fmt.Fprintf(&l.Builder, format, args...)
	l.WriteByte('\n')
}

// table adds rows under a header, in aligned columns.
func (l *lines) table(header []string, rows [][]string) {
	tw := tabwriter.NewWriter(&l.Builder, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// indexInfo is the state of the project's automatic index.
type indexInfo struct {
	path   string
	model  string // the model the config asks for
	header vecfile.Header
	size   int64
	mtime  time.Time
	err    error // unreadable; nil when missing or fine
	exists bool
	fresh  bool // built by model from the skill files as they are now
	build  buildProgress
}

func (w *world) indexState(o scan.Options) indexInfo {
	model := w.model()
	p := builder.Project{Scan: o, Model: model, CacheDir: w.dirs.Cache}
	ix := indexInfo{model: model, path: p.IndexPath()}
	ix.build = readProgress(p.ProgressPath())
	st, err := os.Stat(ix.path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ix.err = err
		}
		return ix
	}
	ix.exists, ix.size, ix.mtime = true, st.Size(), st.ModTime()
	if ix.header, ix.err = vecfile.ReadHeader(ix.path); ix.err != nil {
		return ix
	}
	stamp, err := scan.Stamp(o)
	ix.fresh = err == nil && stamp == ix.header.Stamp && ix.header.Model == model
	return ix
}

func (ix indexInfo) summary() string {
	switch {
	case ix.err != nil:
		return fmt.Sprintf("unreadable: %v", ix.err)
	case !ix.exists:
		return "not built yet"
	}
	state := "up to date"
	if !ix.fresh {
		state = "out of date (skills changed since it was built)"
		if ix.header.Model != ix.model {
			state = fmt.Sprintf("built with %s, the config asks for %s", ix.header.Model, ix.model)
		}
	}
	return fmt.Sprintf("model %s, %d skills, %s, built %s ago; %s", ix.header.Model, ix.header.Count,
		size(ix.size), age(time.Since(ix.mtime)), state)
}

// buildProgress is what a running index build writes beside the index,
// as read.
type buildProgress struct {
	builder.Progress
	found bool
	err   error
}

func readProgress(path string) buildProgress {
	var p buildProgress
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p
	}
	p.found = true
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	p.err = err
	return p
}

func (p buildProgress) summary() string {
	switch {
	case !p.found:
		return "no build running"
	case p.err != nil:
		return fmt.Sprintf("build progress unreadable: %v", p.err)
	}
	pct := 0
	if p.Total > 0 {
		pct = 100 * p.Done / p.Total
	}
	if !alive(p.PID) {
		return fmt.Sprintf("no build running (one stopped at %d of %d skills, %d%%; it resumes at the next session start)", p.Done, p.Total, pct)
	}
	return fmt.Sprintf("building with %s: %d of %d skills (%d%%), pid %d, started %s ago", p.Model, p.Done, p.Total, pct, p.PID, age(time.Since(p.Started)))
}

// serverInfo is the state of the embed server for the configured model.
type serverInfo struct {
	model   string
	lexical bool // the model needs no server
	socket  string
	pid     int
	err     error // the run dir is unusable, or the server did not answer
	running bool
	stats   embedsrv.Stats // its counts, when running
	other   string         // the executable of a server of another install or build
}

func (w *world) serverState() serverInfo {
	model := w.model()
	s := serverInfo{model: model}
	m, err := embed.Lookup(model)
	if err != nil {
		s.err = err
		return s
	}
	if m.Backend == "lexical" {
		s.lexical = true
		return s
	}
	run, err := embedsrv.RunDir(w.env.Environ.RuntimeDir, w.dirs.State)
	if err != nil {
		s.err = err
		return s
	}
	s.socket = embedsrv.SocketPath(run, model, embed.Env{Environ: w.env.Environ, Runtime: w.config().OnnxRuntime})
	if b, err := os.ReadFile(s.socket + ".lock"); err == nil {
		s.pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if _, err := os.Stat(s.socket); err != nil {
		return s
	}
	// A server takes a handshake of another build as its cue to make way,
	// so one run by another program is only reported, not asked.
	ours := filepath.Join(w.bin, embedsrv.ServerBinary)
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", s.pid)); err == nil && alive(s.pid) && !same(exe, ours) {
		s.other = exe
		return s
	}
	c := &embedsrv.Client{Local: embedsrv.ModelOnly(m), Socket: s.socket, Build: embedsrv.BuildOf(ours), Timeout: 2 * time.Second}
	defer c.Close()
	if s.stats, s.err = c.Stats(); s.err == nil {
		s.running = true
	}
	return s
}

func (s serverInfo) summary() string {
	switch {
	case s.lexical:
		return fmt.Sprintf("not used (%s needs no model process)", s.model)
	case s.running:
		return fmt.Sprintf("running for %s (pid %d), %s; since it started: %s", s.model, s.pid, s.socket, s.stats.Summary())
	case s.other != "":
		return fmt.Sprintf("a server of another install or build runs (pid %d, %s); it makes way for this one at the next prompt", s.pid, s.other)
	case s.err != nil && s.socket == "":
		return fmt.Sprintf("unusable: %v", s.err)
	case s.err != nil:
		return fmt.Sprintf("not answering at %s: %v", s.socket, s.err)
	}
	return "not running (the next session start starts it; prompts until then load the model in process)"
}

// lastSession reports what ski did in the most recently updated session.
func (w *world) lastSession(out *lines) {
	st := &ledger.Store{Dir: ledger.Dir(w.dirs.State)}
	ledgers, err := st.List()
	if err != nil {
		out.add("sessions: %v", err)
		return
	}
	var last *ledger.Ledger
	for _, l := range ledgers {
		if last == nil || l.Updated().After(last.Updated()) {
			last = l
		}
	}
	if last == nil {
		out.add("last session: none recorded yet")
		return
	}
	out.add("last session: %s, updated %s ago", last.SessionID(), age(time.Since(last.Updated())))
	byKind := map[string][]string{}
	for _, e := range last.Events() {
		if e.ID != "" {
			byKind[e.Kind] = appendNew(byKind[e.Kind], e.ID)
		}
	}
	for _, k := range []struct{ kind, label string }{
		{ledger.EventInject, "injected"},
		{ledger.EventSuggest, "suggested"},
		{ledger.EventLoad, "loaded by the model"},
		{ledger.EventHostLoad, "invoked by the user"},
	} {
		ids := byKind[k.kind]
		if len(ids) == 0 {
			ids = []string{"-"}
		}
		out.add("  %-20s %s", k.label+":", strings.Join(ids, ", "))
	}
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// age is a duration for people: "40s", "12m", "5h", "3d".
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// size is a byte count for people.
func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
