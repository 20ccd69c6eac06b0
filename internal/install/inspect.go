package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// ClaudeWiring is what of ski a Claude Code settings file holds.
type ClaudeWiring struct {
	// Hooks counts ski's hook commands per event ski uses.
	Hooks map[string]int
	// Plugin is the key ("ski@marketplace") of the enabled ski plugin, or "".
	Plugin string
	// Scripts are the hook scripts ski's commands run, once each.
	Scripts []string
}

// HookEvents lists the Claude Code events ski hooks.
func HookEvents() []string {
	events := make([]string, len(claudeHooks))
	for i, h := range claudeHooks {
		events[i] = h.event
	}
	return events
}

// InspectClaude reads the settings file at path. A missing file holds
// nothing; one that is not a JSON object is an error.
func InspectClaude(path string) (ClaudeWiring, error) {
	w := ClaudeWiring{Hooks: map[string]int{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return w, nil
	}
	if err != nil {
		return w, fmt.Errorf("read %s: %w", path, err)
	}
	if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
		return w, fmt.Errorf("%s is not a JSON object", path)
	}
	for _, h := range claudeHooks {
		for _, g := range gjson.GetBytes(data, "hooks."+h.event).Array() {
			for _, c := range g.Get("hooks").Array() {
				if cmd := c.Get("command").Str; strings.Contains(cmd, hookMarker) {
					w.Hooks[h.event]++
					if s := commandScript(cmd); s != "" && !slices.Contains(w.Scripts, s) {
						w.Scripts = append(w.Scripts, s)
					}
				}
			}
		}
	}
	gjson.GetBytes(data, "enabledPlugins").ForEach(func(k, v gjson.Result) bool {
		if name, _, _ := strings.Cut(k.Str, "@"); name == "ski" && v.Bool() {
			w.Plugin = k.Str
			return false
		}
		return true
	})
	return w, nil
}

// commandScript is the script a hook command of ski's form runs
// (sh 'SCRIPT' MODE), or "".
func commandScript(cmd string) string {
	rest, ok := strings.CutPrefix(cmd, "sh '")
	if !ok {
		return ""
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(rest, '\'')
		if i < 0 {
			return ""
		}
		b.WriteString(rest[:i])
		rest = rest[i+1:]
		// '\'' is a quote inside the quoted path.
		if after, ok := strings.CutPrefix(rest, `\''`); ok {
			b.WriteByte('\'')
			rest = after
			continue
		}
		return b.String()
	}
}

// OpencodeInstalled reports whether ski's opencode plugin is at path, and the
// hook script it runs.
func OpencodeInstalled(path string) (installed bool, script string) {
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), pluginMarker) {
		return false, ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "const HOOK = "); ok {
			json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(v), ";")), &script)
		}
	}
	return true, script
}

// HooksMarker is the file under ski's data folder that says ski's hooks are
// in Claude Code's settings.json (it holds that file's path). The Claude
// Code plugin's copy of the hooks stands down while it exists, so a user
// with both runs each hook once.
func HooksMarker(dataDir string) string { return filepath.Join(dataDir, "claude-hooks-installed") }

// MarkHooks writes (installed) or removes the marker for settings.
func MarkHooks(dataDir, settings string, installed bool) error {
	path := HooksMarker(dataDir)
	if !installed {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", path, err)
		}
		return nil
	}
	return writeAtomic(path, []byte(settings+"\n"))
}
