// Package install wires ski into the hosts: it merges ski's hooks into
// Claude Code's settings.json and writes the opencode plugin, and takes
// exactly those entries out again on uninstall. Everything else in the
// user's files is left as it was.
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/skill-inject/ski/internal/skilltool"
)

// hookMarker is in every hook command ski installs; entries whose command
// contains it are ski's.
const hookMarker = "hook-claude.sh"

// ObserveMatcher is the PostToolUse matcher of the observe hook: the tools
// that load a skill (Read of a SKILL.md, Skill) and ski's own tools under
// both the names Claude Code gives them (skilltool.ClaudeToolNames).
var ObserveMatcher = "Read|Skill|" + strings.Join(append(skilltool.ClaudeToolNames(skilltool.Load), skilltool.ClaudeToolNames(skilltool.Search)...), "|")

// claudeHook is one hook event ski uses in Claude Code.
type claudeHook struct {
	event, matcher, mode string
	timeout              int
}

var claudeHooks = []claudeHook{
	{"UserPromptSubmit", "", "prompt", 10},
	{"PostToolUse", ObserveMatcher, "observe", 10},
	{"SessionStart", "startup|resume|compact", "session-start", 30},
}

// Change is what ClaudeSettings did to a settings file.
type Change int

// Changes.
const (
	Unchanged Change = iota
	Changed          // ski's hooks were added, or taken out
	Restored         // taken out: the file is again, byte for byte, what it was before ski first changed it
	Removed          // taken out of a file ski created that held nothing else: the file is gone
)

// ClaudeSettings adds (install) or removes (uninstall) ski's hooks in the
// settings file at path, calling script for the hook commands, and notes
// in rec what it made. Install backs an existing file up beside itself
// before changing it, and creates a missing one; installing twice changes
// nothing. Uninstall takes ski's entries out: a file ski created and that
// holds nothing else is removed, one that is left as it was before ski
// first changed it gets its bytes back from the backup, and ski's backups
// go. Files are written atomically.
func ClaudeSettings(path, script string, install bool, rec *Record, now time.Time) (Change, error) {
	old, err := os.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return Unchanged, fmt.Errorf("read %s: %w", path, err)
	}
	data, err := claudeData(path, old, script, install)
	if err != nil {
		return Unchanged, err
	}
	if !install {
		return restoreClaude(path, old, data, rec)
	}
	if sameJSON(old, data) {
		return Unchanged, nil
	}
	if missing {
		rec.AddCreated(path)
	} else if len(old) > 0 {
		backup := path + ".ski-backup-" + strconv.FormatInt(now.Unix(), 10)
		if err := os.WriteFile(backup, old, 0o600); err != nil {
			return Unchanged, fmt.Errorf("back up %s: %w", path, err)
		}
		rec.Add(MadeBackup, backup)
	}
	return Changed, writeAtomic(path, data)
}

// claudeData is the settings old with ski's hooks (install) or without
// them, indented.
func claudeData(path string, old []byte, script string, install bool) ([]byte, error) {
	data, err := jsonObject(path, old)
	if err != nil {
		return nil, err
	}
	for _, h := range claudeHooks {
		var groups []json.RawMessage
		for _, g := range gjson.GetBytes(data, "hooks."+h.event).Array() {
			if kept, ok := withoutSki(g); ok {
				groups = append(groups, kept)
			}
		}
		if install {
			groups = append(groups, skiGroup(h, script))
		}
		key := "hooks." + h.event
		if len(groups) == 0 {
			data, err = sjson.DeleteBytes(data, key)
		} else {
			var raw []byte
			raw, err = json.Marshal(groups)
			if err == nil {
				data, err = sjson.SetRawBytes(data, key, raw)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, key, err)
		}
	}
	if h := gjson.GetBytes(data, "hooks"); h.IsObject() && len(h.Map()) == 0 && !install {
		if data, err = sjson.DeleteBytes(data, "hooks"); err != nil {
			return nil, err
		}
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, data, "", "  "); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	pretty.WriteByte('\n')
	return pretty.Bytes(), nil
}

// restoreClaude writes clean, the settings at path without ski's entries
// (old before), as uninstall leaves them (ClaudeSettings), and removes
// ski's backups of the file.
func restoreClaude(path string, old, clean []byte, rec *Record) (Change, error) {
	var backups []string
	for _, b := range rec.Paths(MadeBackup) {
		if strings.HasPrefix(b, path+".ski-backup-") {
			backups = append(backups, b)
		}
	}
	var first []byte
	if len(backups) > 0 {
		first, _ = os.ReadFile(backups[0])
	}
	change := Unchanged
	switch {
	case rec.Has(MadeFile, path) && emptyObject(clean):
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Unchanged, fmt.Errorf("remove %s: %w", path, err)
		}
		change = Removed
	case first != nil && sameJSON(first, clean):
		if !bytes.Equal(old, first) {
			if err := writeAtomic(path, first); err != nil {
				return Unchanged, err
			}
			change = Restored
		}
	case !sameJSON(old, clean):
		if err := writeAtomic(path, clean); err != nil {
			return Unchanged, err
		}
		change = Changed
	}
	rec.Drop(MadeFile, path)
	for _, b := range backups {
		if err := os.Remove(b); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return change, fmt.Errorf("remove the backup %s: %w", b, err)
		}
		rec.Drop(MadeBackup, b)
	}
	return change, nil
}

// jsonObject is the JSON object of the settings file at path, whose
// bytes are b: an empty file is an empty object, anything else that is not
// an object an error.
func jsonObject(path string, b []byte) ([]byte, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return []byte("{}"), nil
	}
	if !gjson.ValidBytes(b) || !gjson.ParseBytes(b).IsObject() {
		return nil, fmt.Errorf("%s is not a JSON object; fix or move it, then run again", path)
	}
	return b, nil
}

// emptyObject reports whether b is a JSON object with nothing in it.
func emptyObject(b []byte) bool {
	o := gjson.ParseBytes(b)
	return o.IsObject() && len(o.Map()) == 0
}

// withoutSki returns a hook group without ski's commands; ok is false when
// nothing of the group is left.
func withoutSki(g gjson.Result) (json.RawMessage, bool) {
	hooks := g.Get("hooks").Array()
	var kept []json.RawMessage
	for _, h := range hooks {
		if !strings.Contains(h.Get("command").Str, hookMarker) {
			kept = append(kept, json.RawMessage(h.Raw))
		}
	}
	if len(kept) == len(hooks) {
		return json.RawMessage(g.Raw), true
	}
	if len(kept) == 0 {
		return nil, false
	}
	raw, _ := json.Marshal(kept)
	out, err := sjson.SetRawBytes([]byte(g.Raw), "hooks", raw)
	if err != nil {
		return json.RawMessage(g.Raw), true
	}
	return out, true
}

// skiGroup is ski's hook group for h. The command runs the script with sh
// (dash on Debian and Ubuntu), which starts and forks faster than bash.
func skiGroup(h claudeHook, script string) json.RawMessage {
	group := map[string]any{"hooks": []map[string]any{{
		"type": "command", "command": "sh " + shellQuote(script) + " " + h.mode, "timeout": h.timeout,
	}}}
	if h.matcher != "" {
		group["matcher"] = h.matcher
	}
	raw, _ := json.Marshal(group)
	return raw
}

// shellQuote quotes a path for the shell command line Claude Code runs.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
