package scan

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skill-inject/ski/internal/record"
)

// Claude Code keeps which plugins are on in the enabledPlugins map of its
// settings files ({"name@marketplace": true}) and where each is installed in
// plugins/installed_plugins.json under its config folder:
//
//	{"version": 2, "plugins": {"name@marketplace": [
//	    {"scope": "user", "installPath": "...", "version": "..."},
//	    {"scope": "project", "projectPath": "/repo", "installPath": "..."}]}}
//
// Version 1 of that file held one object per plugin instead of a list.
// A plugin's skills are <installPath>/skills/*/SKILL.md plus the folders
// its .claude-plugin/plugin.json lists under "skills". Any problem with a
// plugin skips it: a broken plugin must not break the scan.

type installEntry struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	ProjectPath string `json:"projectPath"`
}

// pluginRoots returns the skill folders of the enabled, installed plugins,
// ordered by plugin key.
func pluginRoots(o Options) []Root {
	if o.ClaudeConfigDir == "" {
		return nil
	}
	enabled := enabledPlugins(o)
	installed := installedPlugins(o)
	keys := make([]string, 0, len(enabled))
	for k, on := range enabled {
		if on {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)

	var roots []Root
	for _, key := range keys {
		dir := pickInstall(installed[key], o.Cwd, filepath.Join(o.ClaudeConfigDir, "plugins"))
		if dir == "" {
			continue
		}
		name, skillDirs := readManifest(o, dir)
		if name == "" {
			name, _, _ = strings.Cut(key, "@")
		}
		if name == "" {
			continue
		}
		for _, sd := range skillDirs {
			if isDir(sd) {
				roots = append(roots, Root{Path: filepath.Clean(sd), Scope: record.ScopePlugin, Plugin: name, Source: "plugin " + key})
			}
		}
	}
	return roots
}

// enabledPlugins merges enabledPlugins from the user settings, then the
// project settings from the repository root down to cwd, each
// settings.json before its settings.local.json: later files win.
func enabledPlugins(o Options) map[string]bool {
	files := []string{filepath.Join(o.ClaudeConfigDir, "settings.json")}
	dirs := projectDirs(o.Cwd)
	for i := len(dirs) - 1; i >= 0; i-- {
		files = append(files,
			filepath.Join(dirs[i], ".claude", "settings.json"),
			filepath.Join(dirs[i], ".claude", "settings.local.json"))
	}
	enabled := map[string]bool{}
	for _, f := range files {
		var s struct {
			EnabledPlugins map[string]json.RawMessage `json:"enabledPlugins"`
		}
		ok, err := readJSONC(f, &s)
		if !ok {
			continue
		}
		if err != nil {
			o.Warn(fmt.Sprintf("%s: %v (plugins enabled there are ignored)", f, err))
			continue
		}
		for k, v := range s.EnabledPlugins {
			var on bool
			// Only a JSON true enables; anything else disables.
			enabled[k] = json.Unmarshal(v, &on) == nil && on
		}
	}
	return enabled
}

// installedPlugins reads installed_plugins.json in either version.
func installedPlugins(o Options) map[string][]installEntry {
	f := filepath.Join(o.ClaudeConfigDir, "plugins", "installed_plugins.json")
	var doc struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	ok, err := readJSONC(f, &doc)
	if !ok {
		return nil
	}
	if err != nil {
		o.Warn(fmt.Sprintf("%s: %v (plugin skills are not scanned)", f, err))
		return nil
	}
	out := map[string][]installEntry{}
	for k, raw := range doc.Plugins {
		var list []installEntry
		if json.Unmarshal(raw, &list) == nil {
			out[k] = list
			continue
		}
		var one installEntry
		if json.Unmarshal(raw, &one) == nil {
			out[k] = []installEntry{one}
		}
	}
	return out
}

// pickInstall chooses the install of a plugin that applies in cwd: a
// project or local install whose projectPath holds cwd (the deepest one),
// else a user install, else any other; the first whose folder exists.
func pickInstall(entries []installEntry, cwd, pluginsDir string) string {
	type cand struct {
		rank, depth int
		path        string
	}
	var cands []cand
	for _, e := range entries {
		if strings.TrimSpace(e.InstallPath) == "" {
			continue
		}
		p := e.InstallPath
		if !filepath.IsAbs(p) {
			p = filepath.Join(pluginsDir, p)
		}
		c := cand{rank: 2, path: filepath.Clean(p)}
		switch {
		case e.ProjectPath != "" && within(cwd, e.ProjectPath):
			c.rank, c.depth = 0, -len(filepath.Clean(e.ProjectPath))
		case e.Scope == "" || e.Scope == "user":
			c.rank = 1
		}
		cands = append(cands, c)
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return a.depth - b.depth
	})
	for _, c := range cands {
		if isDir(c.path) {
			return c.path
		}
	}
	return ""
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// readManifest returns the plugin's name ("" if the manifest has none) and
// its skill folders: skills/ and any the manifest adds.
func readManifest(o Options, dir string) (string, []string) {
	skillDirs := []string{filepath.Join(dir, "skills")}
	f := filepath.Join(dir, ".claude-plugin", "plugin.json")
	var m struct {
		Name   string          `json:"name"`
		Skills json.RawMessage `json:"skills"`
	}
	ok, err := readJSONC(f, &m)
	if !ok {
		return "", skillDirs
	}
	if err != nil {
		o.Warn(fmt.Sprintf("%s: %v (plugin name taken from its key)", f, err))
		return "", skillDirs
	}
	var extra []string
	var one string
	if json.Unmarshal(m.Skills, &one) == nil && one != "" {
		extra = []string{one}
	} else {
		_ = json.Unmarshal(m.Skills, &extra)
	}
	for _, p := range extra {
		if strings.TrimSpace(p) == "" || filepath.IsAbs(p) {
			continue
		}
		sd := filepath.Join(dir, p)
		if !within(sd, dir) {
			continue // stay inside the plugin
		}
		if !slices.Contains(skillDirs, sd) {
			skillDirs = append(skillDirs, sd)
		}
	}
	return strings.TrimSpace(m.Name), skillDirs
}
