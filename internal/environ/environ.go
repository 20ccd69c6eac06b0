// Package environ is everything ski reads from its environment, resolved
// once at a command's edge into one value: the folders (XDG, the run
// folder, the hosts' config folders), the model and runtime overrides, the
// skill roots and the switches. Packages below the commands take this
// value, or plain fields of it, and never read a variable themselves.
// Variables lists every variable ski reads; ski doctor prints it. A new
// variable is added here, and nowhere else.
package environ

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/skill-inject/ski/internal/xdg"
)

// Variable is one variable ski reads, and what for.
type Variable struct {
	Name    string
	Meaning string
	// Shell is set for the variables only the hook scripts read.
	Shell bool
	// Setting is set for the variables that change what ski does, which
	// ski doctor lists with the config values in force when they are set.
	Setting bool
}

// Variables are every environment variable ski reads, in the order ski
// doctor lists them.
var Variables = []Variable{
	{Name: "SKI_ROOTS", Meaning: "skill folders to search instead of the host's (colon-separated)", Setting: true},
	{Name: "SKI_MODEL_DIR", Meaning: "where the model files are, instead of $XDG_DATA_HOME/ski/models", Setting: true},
	{Name: "ONNXRUNTIME_SHARED_LIBRARY_PATH", Meaning: "the ONNX Runtime library to load", Setting: true},
	{Name: "SKI_EMBED_SERVER", Meaning: "0: no embed server (embed and rank in each stage)", Setting: true},
	{Name: "SKI_HOOK_TIMEOUT", Meaning: "seconds a hook's stages may take (default 10)", Shell: true, Setting: true},
	{Name: "SKI_STAGE_TIMEOUT", Meaning: "seconds from its start a stage may run (the hooks set it)"},
	{Name: "SKI_BIN", Meaning: "the folder the hooks take the stages from", Shell: true, Setting: true},
	{Name: "SKI_DEBUG", Meaning: "1: a hook says on stderr why it printed nothing", Shell: true, Setting: true},
	{Name: "CLAUDE_CONFIG_DIR", Meaning: "Claude Code's config folder, instead of ~/.claude", Setting: true},
	{Name: "OPENCODE_CONFIG_DIR", Meaning: "an extra opencode config folder", Setting: true},
	{Name: "ANTHROPIC_MODEL", Meaning: "the model Claude Code runs, for the budget of its skill listing", Setting: true},
	{Name: "SLASH_COMMAND_TOOL_CHAR_BUDGET", Meaning: "the budget of Claude Code's skill listing, in characters", Setting: true},
	{Name: "HOME", Meaning: "the user's home"},
	{Name: "XDG_CONFIG_HOME", Meaning: "config (ski's config.toml, opencode's plugin)"},
	{Name: "XDG_DATA_HOME", Meaning: "models, runtime, installed binaries"},
	{Name: "XDG_CACHE_HOME", Meaning: "indexes and cached embeddings"},
	{Name: "XDG_STATE_HOME", Meaning: "session ledgers, hook log"},
	{Name: "XDG_RUNTIME_DIR", Meaning: "the embed server's socket"},
	{Name: "LD_LIBRARY_PATH", Meaning: "where the system loader finds ONNX Runtime"},
	{Name: "PATH", Meaning: "where ski doctor looks for other programs named ski"},
	{Name: "HF_ENDPOINT", Meaning: "ski-embed-onnx --fetch: the Hugging Face mirror"},
	{Name: "HF_TOKEN", Meaning: "ski-embed-onnx --fetch: the Hugging Face token"},
}

// Env is ski's environment, resolved.
type Env struct {
	// vars is the environment as given, NAME=value each: what children get.
	vars []string

	Home string
	// Dirs are ski's own folders under the XDG base directories.
	Dirs xdg.Dirs
	// ConfigHome is the XDG config home itself, where other tools such as
	// opencode keep their configuration.
	ConfigHome string
	// DataHome is $XDG_DATA_HOME as given (relative or not): part of the
	// embed server's socket name.
	DataHome string
	// RuntimeDir is $XDG_RUNTIME_DIR when absolute, else "".
	RuntimeDir string

	// ModelDir is $SKI_MODEL_DIR: the model files, instead of the data folder.
	ModelDir string
	// OnnxRuntime is $ONNXRUNTIME_SHARED_LIBRARY_PATH.
	OnnxRuntime string
	// LibraryPath is $LD_LIBRARY_PATH, split.
	LibraryPath []string

	// ClaudeConfigDir and OpencodeConfigDir are the hosts' config folder
	// variables when absolute, else "".
	ClaudeConfigDir   string
	OpencodeConfigDir string
	// ClaudeModel is $ANTHROPIC_MODEL, the model Claude Code runs when
	// no flag says otherwise.
	ClaudeModel string
	// ListingBudget is $SLASH_COMMAND_TOOL_CHAR_BUDGET as a number (0:
	// unset or not a number): the budget of Claude Code's skill listing.
	ListingBudget float64
	// Roots are the entries of $SKI_ROOTS, as given (package scan checks
	// them).
	Roots []string
	// NoServer is $SKI_EMBED_SERVER=0: no embed server is asked or started.
	NoServer bool
	// StageTimeout is $SKI_STAGE_TIMEOUT as given (package cli reads it).
	StageTimeout string
	// Path is $PATH, split.
	Path []string
	// HFEndpoint and HFToken are the Hugging Face mirror and token for
	// ski-embed-onnx --fetch.
	HFEndpoint, HFToken string
}

// FromOS is the process's environment.
func FromOS() Env { return Parse(os.Environ()) }

// FromMap is the environment holding just vars (for tests and tools).
func FromMap(vars map[string]string) Env {
	list := make([]string, 0, len(vars))
	for k, v := range vars {
		list = append(list, k+"="+v)
	}
	return Parse(list)
}

// Parse resolves an environment given as NAME=value entries; the last of
// two entries for one name wins, as for a process. Relative XDG and
// host-folder values are ignored, as the XDG spec says.
func Parse(vars []string) Env {
	get := lookup(vars)
	e := Env{vars: vars}
	e.Home = get("HOME")
	if e.Home == "" {
		e.Home, _ = os.UserHomeDir()
	}
	pick := func(name, fallback string) string {
		if v := abs(get(name)); v != "" {
			return v
		}
		return filepath.Join(e.Home, fallback)
	}
	e.ConfigHome = pick("XDG_CONFIG_HOME", ".config")
	e.DataHome = get("XDG_DATA_HOME")
	e.Dirs = xdg.Dirs{
		Data:   filepath.Join(pick("XDG_DATA_HOME", ".local/share"), "ski"),
		State:  filepath.Join(pick("XDG_STATE_HOME", ".local/state"), "ski"),
		Config: filepath.Join(e.ConfigHome, "ski"),
		Cache:  filepath.Join(pick("XDG_CACHE_HOME", ".cache"), "ski"),
		Home:   e.Home,
	}
	e.RuntimeDir = abs(get("XDG_RUNTIME_DIR"))
	e.ModelDir = get("SKI_MODEL_DIR")
	e.OnnxRuntime = get("ONNXRUNTIME_SHARED_LIBRARY_PATH")
	e.LibraryPath = filepath.SplitList(get("LD_LIBRARY_PATH"))
	e.ClaudeConfigDir = abs(get("CLAUDE_CONFIG_DIR"))
	e.OpencodeConfigDir = abs(get("OPENCODE_CONFIG_DIR"))
	e.ClaudeModel = strings.TrimSpace(get("ANTHROPIC_MODEL"))
	if f, err := strconv.ParseFloat(strings.TrimSpace(get("SLASH_COMMAND_TOOL_CHAR_BUDGET")), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		e.ListingBudget = f
	}
	for _, r := range filepath.SplitList(get("SKI_ROOTS")) {
		if r = strings.TrimSpace(r); r != "" {
			e.Roots = append(e.Roots, r)
		}
	}
	e.NoServer = get("SKI_EMBED_SERVER") == "0"
	e.StageTimeout = get("SKI_STAGE_TIMEOUT")
	e.Path = filepath.SplitList(get("PATH"))
	e.HFEndpoint, e.HFToken = get("HF_ENDPOINT"), get("HF_TOKEN")
	return e
}

// lookup returns a function giving the value of a name in vars (the last
// entry for it), "" when absent.
func lookup(vars []string) func(string) string {
	m := make(map[string]string, len(vars))
	for _, kv := range vars {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(name string) string { return m[name] }
}

func abs(v string) string {
	if v != "" && filepath.IsAbs(v) {
		return v
	}
	return ""
}

// ClaudeDir is Claude Code's config folder: $CLAUDE_CONFIG_DIR when it is
// absolute, else ~/.claude.
func (e Env) ClaudeDir() string {
	if e.ClaudeConfigDir != "" {
		return e.ClaudeConfigDir
	}
	return filepath.Join(e.Home, ".claude")
}

// Value is the value of a variable of Variables as given ("" when unset):
// for ski doctor's list.
func (e Env) Value(name string) string { return lookup(e.vars)(name) }

// List is the environment as given, NAME=value each, for a child process,
// without the variables named in drop.
func (e Env) List(drop ...string) []string {
	out := make([]string, 0, len(e.vars))
	for _, kv := range e.vars {
		k, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, d := range drop {
			if k == d {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// With is e with the variables of set (NAME=value each) set, for a child.
func (e Env) With(set ...string) Env {
	return Parse(append(e.List(), set...))
}
