package front

import (
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/embedsrv"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/hostrules"
	"github.com/skill-inject/ski/internal/install"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
)

const doctorDoc = `Usage: ski doctor [--host claude|opencode] [--cwd DIR]

Checks what a working install needs, one line each, with the fix for
each problem: no other program named ski ahead of this one on PATH (told
apart by its Go build info; another copy of ski there is a warning naming
both versions), the stages beside ski (same version), the config files,
the model's files (sha256) and that the model loads and embeds, the
project's index, the embed server, the hooks (installed once in Claude
Code and in opencode), and the skills. Then the config in force, each value with where it came
from (default, file, project file, environment).

Exit status: 0 when nothing is broken (warnings allowed), 1 otherwise.`

// Check outcomes.
const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "FAIL"
)

// check is one line of ski doctor.
type check struct {
	name, status, detail, fix string
}

func runDoctor(w *world, args []string) error {
	f := w.flags("doctor", doctorDoc)
	if err := w.parseNoArgs(f, args); err != nil {
		return err
	}
	checks, hosts := w.doctor()
	l := &lines{}
	failed := 0
	for _, c := range checks {
		line := fmt.Sprintf("%-4s  %-15s %s", c.status, c.name, c.detail)
		if c.fix != "" && c.status != statusOK {
			line += " — fix: " + c.fix
		}
		l.add("%s", line)
		if c.status == statusFail {
			failed++
		}
	}
	w.listings(l, hosts)
	l.add("")
	l.add("config in force (%s):", w.cwd)
	for _, s := range w.effectiveConfig() {
		l.add("  %-20s %-28s %s", s.key, s.value, s.source)
	}
	if _, err := fmt.Fprint(w.env.Stdout, l.String()); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(checks))
	}
	return nil
}

// doctor runs every check; it also returns the hosts ski is installed in.
func (w *world) doctor() ([]check, []string) {
	checks := []check{w.checkPath(), w.checkStages()}
	// The config is read before anything else uses it, so its warnings are
	// all there is to report.
	w.config()
	checks = append(checks, w.checkConfig())
	checks = append(checks, w.checkModel()...)
	checks = append(checks, w.checkReader())
	o := w.scanOptions()
	checks = append(checks, w.checkIndex(o), w.checkServer())
	hooks, hosts := w.checkHooks()
	checks = append(checks, hooks...)
	checks = append(checks, w.checkSkills(o))
	return checks, hosts
}

// checkPath: the first ski on PATH is this one. skill-inject's own
// binary is also called ski: which program a ski is, its build info says
// (a Go binary records its module); a copy of this ski is asked its
// version.
func (w *world) checkPath() check {
	c := check{name: "ski on PATH"}
	self := filepath.Join(w.bin, "ski")
	for _, dir := range w.env.Environ.Path {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "ski")
		st, err := os.Stat(p)
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			continue
		}
		if same(p, self) {
			c.status, c.detail = statusOK, fmt.Sprintf("%s is this ski (%s)", p, cli.Version())
			return c
		}
		c.fix = fmt.Sprintf("put the directory install.sh links ski into (~/.local/bin) before %s in PATH, or remove %s", dir, p)
		if isSki(p) {
			c.status = statusWarn
			c.detail = fmt.Sprintf("%s comes first on PATH and is another copy of ski (%s); this one is %s (%s)", p, versionOf(p), self, cli.Version())
			return c
		}
		c.status = statusFail
		c.detail = fmt.Sprintf("%s comes first on PATH and is another program (skill-inject's binary has the same name); this ski is %s", p, self)
		return c
	}
	c.status, c.detail = statusWarn, fmt.Sprintf("ski is not on PATH (this one is %s)", self)
	c.fix = "add ~/.local/bin to PATH (scripts/install.sh links ski there)"
	return c
}

// isSki reports whether the executable at path is a build of this ski
// command, by the package and module its Go build info names.
func isSki(path string) bool {
	own, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	info, err := buildinfo.ReadFile(path)
	return err == nil && info.Path == own.Path && info.Main.Path == own.Main.Path
}

// versionOf is what the ski at path says its version is ("-" when it
// does not say within two seconds).
func versionOf(path string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if err != nil || v == "" {
		return "-"
	}
	return v
}

// same reports whether two paths name one file.
func same(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// checkStages: every stage is beside ski, at ski's version.
func (w *world) checkStages() check {
	c := check{name: "stages"}
	var missing, other []string
	names := []string{embedsrv.ServerBinary}
	for _, s := range Stages {
		names = append(names, "ski-"+s)
	}
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(w.bin, name)); err != nil {
			missing = append(missing, name)
			continue
		}
		// ski-embed-onnx is the half of ski-embed that links the model
		// runtime, and names itself ski-embed.
		want := strings.TrimSuffix(name, "-onnx") + " " + cli.Version()
		out, err := w.stage(nil, name, "--version")
		if got := strings.TrimSpace(string(out)); err != nil || got != want {
			other = append(other, fmt.Sprintf("%s (%s)", name, orDash(got)))
		}
	}
	// A stage run by hand is PATH's: it should be the one beside ski.
	var elsewhere []string
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil && !same(p, filepath.Join(w.bin, name)) && len(missing) == 0 {
			elsewhere = append(elsewhere, p)
		}
	}
	switch {
	case len(missing) > 0:
		c.status, c.detail = statusFail, fmt.Sprintf("missing beside ski in %s: %s", w.bin, strings.Join(missing, ", "))
		c.fix = "scripts/install.sh (or scripts/setup.sh in a checkout)"
	case len(other) > 0:
		c.status, c.detail = statusFail, fmt.Sprintf("not at ski's version %s: %s", cli.Version(), strings.Join(other, ", "))
		c.fix = "scripts/install.sh, which installs every stage at one version"
	case len(elsewhere) > 0:
		c.status, c.detail = statusWarn, fmt.Sprintf("PATH finds other stages than those beside ski: %s", strings.Join(elsewhere, ", "))
		c.fix = "put ~/.local/bin (where install.sh links the stages) first in PATH, or use ski STAGE, which runs the one beside ski"
	default:
		c.status, c.detail = statusOK, fmt.Sprintf("%d stages in %s at %s", len(names), w.bin, cli.Version())
	}
	return c
}

// checkConfig: the config files read without a problem.
func (w *world) checkConfig() check {
	c := check{name: "config"}
	if len(w.warnings) > 0 {
		c.status, c.detail = statusFail, strings.Join(w.warnings, "; ")
		c.fix = "edit the file named (ski doctor lists the valid keys under config in force)"
		return c
	}
	files := w.config().Files
	c.status = statusOK
	if len(files) == 0 {
		c.detail = fmt.Sprintf("no config file (defaults; %s)", filepath.Join(w.dirs.Config, "config.toml"))
	} else {
		c.detail = strings.Join(files, ", ")
	}
	return c
}

// checkModel: the model's files match their sha256, and the model loads
// and embeds (ONNX Runtime, tokenizer, model) in a probe index build.
func (w *world) checkModel() []check {
	model := w.model()
	files := check{name: "model files"}
	load := check{name: "model loads"}
	m, err := embed.Lookup(model)
	if err != nil {
		files.status, files.detail, files.fix = statusFail, err.Error(), "set model in the config to one of the known ids"
		return []check{files}
	}
	if m.Backend == "lexical" {
		files.status, files.detail = statusOK, fmt.Sprintf("%s needs no model files", model)
		return []check{files}
	}
	dir, bad := w.modelFiles(m)
	if len(bad) > 0 {
		files.status, files.detail = statusFail, fmt.Sprintf("%s: %s", model, strings.Join(bad, "; "))
		files.fix = fmt.Sprintf("scripts/setup.sh, or ski embed --fetch %s", model)
	} else {
		files.status, files.detail = statusOK, fmt.Sprintf("%s in %s (sha256 checked)", model, dir)
	}
	start := time.Now()
	got, warn, err := w.probe(model)
	switch {
	case err != nil:
		load.status, load.detail = statusFail, err.Error()
	case got != model:
		why, _, _ := strings.Cut(strings.TrimSpace(warn), "\n")
		load.status, load.detail = statusFail, fmt.Sprintf("%s did not load (%s); ski falls back to %s", model, why, got)
	default:
		load.status, load.detail = statusOK, fmt.Sprintf("ONNX Runtime, tokenizer and %s loaded and embedded in %.1f s", model, time.Since(start).Seconds())
	}
	if load.status != statusOK {
		load.fix = "scripts/setup.sh installs ONNX Runtime and the models; check the onnxruntime key and ONNXRUNTIME_SHARED_LIBRARY_PATH"
	}
	return []check{files, load}
}

// checkReader: the reader's files are installed and intact when it is on
// (package reader); without them the judge decides alone, so this only
// warns.
func (w *world) checkReader() check {
	c := check{name: "reader"}
	if off := w.readerOff(w.model()); off != "" {
		c.status, c.detail = statusOK, off
		return c
	}
	m := reader.Files()
	dir, bad := w.modelFiles(m)
	if len(bad) > 0 {
		c.status, c.detail = statusWarn, fmt.Sprintf("%s: %s: the judge decides alone", m.ID, strings.Join(bad, "; "))
		c.fix = "scripts/setup.sh installs it"
		return c
	}
	c.status, c.detail = statusOK, fmt.Sprintf("%s in %s (sha256 checked): reads the prompts the judge is unsure of", m.ID, dir)
	return c
}

// modelFiles is the folder of m's files, and what is wrong with each
// that does not match its size and sha256.
func (w *world) modelFiles(m embed.Model) (string, []string) {
	dir := embed.ModelDir(m, w.env.Environ)
	var bad []string
	for _, f := range m.Files {
		if err := fileMatches(filepath.Join(dir, f.Name), f.SHA256, f.Size); err != nil {
			bad = append(bad, err.Error())
		}
	}
	return dir, bad
}

// fileMatches checks a file's size and sha256.
func fileMatches(path, sum string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s missing", filepath.Base(path))
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fmt.Errorf("%s unreadable: %v", filepath.Base(path), err)
	}
	if size > 0 && n != size {
		return fmt.Errorf("%s is %d bytes, want %d", filepath.Base(path), n, size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); sum != "" && got != sum {
		return fmt.Errorf("%s sha256 %s, want %s", filepath.Base(path), got[:12], sum[:12])
	}
	return nil
}

// probe builds a one-skill index with model, in process (no embed
// server), and returns the model the index was built with: another one
// means the model could not be loaded (warn says why).
func (w *world) probe(model string) (built, warn string, err error) {
	dir, err := os.MkdirTemp("", "ski-doctor-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(dir)
	skill := filepath.Join(dir, "skills", "doctor-probe")
	if err := os.MkdirAll(skill, 0o700); err != nil {
		return "", "", err
	}
	text := "---\nname: doctor-probe\ndescription: Checks that ski can embed a skill.\n---\nA probe.\n"
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte(text), 0o600); err != nil {
		return "", "", err
	}
	recs, err := w.stage(nil, "ski-scan", "--root", filepath.Join(dir, "skills"))
	if err != nil {
		return "", "", fmt.Errorf("ski-scan: %w", err)
	}
	out, stderr, err := w.stageEnv(recs, []string{"SKI_EMBED_SERVER=0"}, "ski-embed", "--index", filepath.Join(dir, "probe.skv"), "--model", model)
	if err != nil {
		return "", stderr, fmt.Errorf("ski-embed --index: %w", err)
	}
	var line struct{ Model string }
	if err := json.Unmarshal(out, &line); err != nil {
		return "", stderr, fmt.Errorf("ski-embed --index wrote %q", cut(out))
	}
	return line.Model, stderr, nil
}

// checkIndex: the project's index exists and is up to date.
func (w *world) checkIndex(o scan.Options) check {
	c := check{name: "index"}
	ix := w.indexState(o)
	refresh := fmt.Sprintf(`echo '{"cwd":"%s"}' | ski embed --refresh --host %s (or start a new session)`, w.cwd, w.host)
	switch {
	case ix.err != nil:
		c.status, c.detail, c.fix = statusFail, fmt.Sprintf("%s: %v", ix.path, ix.err), "rm "+ix.path+"; then "+refresh
	case ix.build.found && ix.build.err == nil && alive(ix.build.PID):
		c.status, c.detail = statusWarn, ix.build.summary()
		c.fix = "wait for it; prompts are ranked lexically until it is done"
	case !ix.exists:
		c.status, c.detail, c.fix = statusWarn, "not built yet for this project and host", refresh
	case !ix.fresh:
		c.status, c.detail, c.fix = statusWarn, ix.summary(), refresh
	default:
		c.status, c.detail = statusOK, ix.summary()
	}
	return c
}

// checkServer: the embed server answers, when one runs.
func (w *world) checkServer() check {
	c := check{name: "embed server"}
	s := w.serverState()
	c.detail = s.summary()
	switch {
	case s.lexical, s.running:
		c.status = statusOK
	case s.err != nil && s.socket == "":
		c.status, c.fix = statusFail, "make the run directory yours and private (chmod 700), or set XDG_RUNTIME_DIR"
	case s.err != nil:
		c.status, c.fix = statusWarn, "ski embed --serve --detach starts a new one (the hooks do at session start)"
	default:
		c.status, c.fix = statusWarn, "ski embed --serve --detach, or start a session"
	}
	return c
}

// checkHooks: ski is wired into each host once. It also returns the
// hosts it is wired into.
func (w *world) checkHooks() ([]check, []string) {
	claude := check{name: "claude hooks"}
	path := filepath.Join(w.env.Environ.ClaudeDir(), "settings.json")
	wiring, err := install.InspectClaude(path)
	claudeIn := false
	if err != nil {
		claude.status, claude.detail, claude.fix = statusFail, err.Error(), "fix the JSON of "+path
	} else {
		counts, zero, many := []string{}, 0, 0
		for _, ev := range install.HookEvents() {
			n := wiring.Hooks[ev]
			counts = append(counts, fmt.Sprintf("%s %d", ev, n))
			switch {
			case n == 0:
				zero++
			case n > 1:
				many++
			}
		}
		events := len(install.HookEvents())
		_, err := os.Stat(install.HooksMarker(w.dirs.Data))
		marked := err == nil
		switch {
		case wiring.Plugin != "" && zero < events && !marked:
			claude.status = statusFail
			claude.detail = fmt.Sprintf("installed twice: the plugin %s and hooks in %s, so every hook runs twice", wiring.Plugin, path)
			claude.fix = "ski install --host claude (takes ski's hooks out of settings.json while the plugin is enabled)"
		case wiring.Plugin != "" && zero == events && marked:
			claude.status = statusFail
			claude.detail = fmt.Sprintf("the plugin %s stands down for hooks in %s that are gone (%s)", wiring.Plugin, path, install.HooksMarker(w.dirs.Data))
			claude.fix = "ski install --host claude (lets the plugin run them)"
		case wiring.Plugin != "" && zero == events:
			claude.status, claude.detail, claudeIn = statusOK, "the plugin "+wiring.Plugin, true
		case wiring.Plugin != "" && zero == 0 && many == 0:
			claude.status, claude.detail, claudeIn = statusOK, fmt.Sprintf("hooks in %s (the plugin %s stands down for them)", path, wiring.Plugin), true
		case zero == events:
			claude.status, claude.detail = statusWarn, "not installed in "+path
			claude.fix = "scripts/install.sh claude"
		case many > 0 || zero > 0:
			claude.status = statusFail
			claude.detail = fmt.Sprintf("hooks in %s not once each (%s)", path, strings.Join(counts, ", "))
			claude.fix = "ski install --host claude (writes each of ski's hooks once)"
		default:
			claude.status, claude.detail, claudeIn = statusOK, "hooks in "+path, true
		}
		if claudeIn {
			if missing := missingScripts(wiring.Scripts); missing != "" {
				claude.status, claude.detail, claudeIn = statusFail, fmt.Sprintf("the hooks in %s run %s, which is missing", path, missing), false
				claude.fix = "scripts/install.sh claude"
			}
		}
	}
	opencode := check{name: "opencode plugin"}
	plugin := install.OpencodePluginPath(w.env.Environ.ConfigHome)
	opencodeIn, script := install.OpencodeInstalled(plugin)
	switch missing := missingScripts([]string{script}); {
	case opencodeIn && missing != "":
		opencode.status, opencode.detail = statusFail, fmt.Sprintf("%s runs %s, which is missing", plugin, missing)
		opencode.fix, opencodeIn = "scripts/install.sh opencode", false
	case opencodeIn:
		opencode.status, opencode.detail = statusOK, plugin
	default:
		opencode.status, opencode.detail, opencode.fix = statusWarn, "not installed ("+plugin+")", "scripts/install.sh opencode"
	}
	var hosts []string
	if claudeIn {
		hosts = append(hosts, record.HostClaude)
	}
	if opencodeIn {
		hosts = append(hosts, record.HostOpencode)
	}
	if len(hosts) == 0 {
		for _, c := range []*check{&claude, &opencode} {
			if c.status == statusWarn {
				c.status = statusFail
			}
		}
	}
	return []check{claude, opencode}, hosts
}

// missingScripts names the first of the hook scripts that is not an
// executable file, or "".
func missingScripts(scripts []string) string {
	for _, s := range scripts {
		if st, err := os.Stat(s); err != nil || !st.Mode().IsRegular() {
			return s
		}
	}
	return ""
}

// checkSkills: the skills the host would see, and any that cannot be used
// or break the host's rules.
func (w *world) checkSkills(o scan.Options) check {
	c := check{name: "skills"}
	res, err := scan.Scan(o)
	if err != nil {
		c.status, c.detail, c.fix = statusFail, err.Error(), "check SKI_ROOTS and extra_roots"
		return c
	}
	warns := hostrules.CheckAll(w.host, res.Skills)
	errs, shadowed := splitShadowed(res.Errors)
	c.detail = fmt.Sprintf("%d usable, %d shadowed, %d errors, %d warnings for %s", len(res.Skills), len(shadowed), len(errs), len(warns), w.host)
	switch {
	case len(res.Skills) == 0:
		c.status, c.fix = statusWarn, "no skills found: add some under ~/.claude/skills or the project's .claude/skills"
	case len(errs)+len(warns) > 0:
		c.status, c.fix = statusWarn, "ski status lists each with its reason"
	default:
		c.status = statusOK
	}
	return c
}

// setting is one config key in force.
type setting struct{ key, value, source string }

// effectiveConfig lists every config key with the value in force and where
// it came from, then the environment variables that change what ski does.
func (w *world) effectiveConfig() []setting {
	c := w.config()
	model := w.model()
	userFile := filepath.Join(w.dirs.Config, "config.toml")
	source := func(key, def string) string {
		switch f, ok := c.Sources[key]; {
		case !ok:
			return def
		case f == userFile:
			return "file " + f
		default:
			return "project file " + f
		}
	}
	perModel := "default for " + model
	var out []setting
	add := func(key, value, def string) { out = append(out, setting{key, value, source(key, def)}) }
	add("model", model, "default")
	if g, err := w.res.Gate(model, w.cwd); err == nil {
		if judge.Has(model) {
			add("inject_confidence", fmt.Sprintf("%.2f", g.Judged.InjectConfidence), perModel)
			add("suggest_confidence", fmt.Sprintf("%.2f", g.Judged.SuggestConfidence), perModel)
		}
		add("min_similarity", fmt.Sprintf("%.3f", g.MinSimilarity), perModel)
		add("inject_similarity", fmt.Sprintf("%.3f", g.InjectSimilarity), perModel)
		add("score_margin", fmt.Sprintf("%.3f", g.ScoreMargin), perModel)
		// Gate succeeded: the model is known, and both values are set.
		r, _ := w.res.Rank(model, w.cwd)
		add("keyword_boost", fmt.Sprintf("%.3f", r.KeywordBoost), perModel)
		add("small_edit_penalty", fmt.Sprintf("%.3f", r.SmallEditPenalty), perModel)
		add("max_skills", fmt.Sprint(g.MaxSkills), "default")
		add("max_suggestions", fmt.Sprint(g.MaxSuggestions), "default")
	}
	if r, err := w.res.Render(w.cwd); err == nil {
		add("char_budget", fmt.Sprint(r.CharBudget), "default")
		add("inject_mode", r.Mode, "default")
		add("directive_strength", r.Strength, "default")
		add("notify", fmt.Sprint(r.Notify), "default")
	}
	add("extra_roots", list(c.ExtraRoots), "default")
	add("deny", list(c.Deny), "default")
	add("force", list(c.Force), "default")
	add("onnxruntime", config.Str(c.OnnxRuntime, "(searched)"), "default")
	for _, v := range environ.Variables {
		if v.Setting {
			if val := w.env.Environ.Value(v.Name); val != "" {
				out = append(out, setting{v.Name, val, "environment"})
			}
		}
	}
	return out
}

func list(items []string) string {
	if len(items) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(items)
	return string(b)
}
