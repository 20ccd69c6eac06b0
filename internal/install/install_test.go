package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/skill-inject/ski/internal/skilltool"
)

const userSettings = `{
  "model": "opus",
  "env": {"FOO": "bar"},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "prettier --write"}]},
      {"matcher": "Read|Skill", "hooks": [{"type": "command", "command": "audit-log"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "permissions": {"allow": ["Bash(ls)"]}
}`

func TestClaudeSettingsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte(userSettings), 0o600)
	script := "/home/u/.local/share/ski/scripts/hook-claude.sh"
	now := time.Unix(1700000000, 0)
	rec, _ := ReadRecord(t.TempDir())

	changed, err := ClaudeSettings(path, script, true, rec, now)
	if err != nil || changed != Changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"UserPromptSubmit", "SessionStart", "prettier --write", "audit-log", "notify-send done", `"FOO": "bar"`, "Bash(ls)"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("after install, %q is missing:\n%s", want, data)
		}
	}
	if got := gjson.GetBytes(data, `hooks.PostToolUse.#.matcher`).Array(); len(got) != 3 || got[2].Str != ObserveMatcher {
		t.Errorf("ski's PostToolUse group should sit beside the user's: %v", got)
	}
	cmd := gjson.GetBytes(data, "hooks.UserPromptSubmit.0.hooks.0.command").Str
	if cmd != "sh '"+script+"' prompt" {
		t.Errorf("command %q", cmd)
	}
	backup := path + ".ski-backup-1700000000"
	if _, err := os.Stat(backup); err != nil || !rec.Has(MadeBackup, backup) {
		t.Errorf("no backup, or not recorded: %v", err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", st.Mode().Perm())
	}
	// Idempotent.
	if changed, err := ClaudeSettings(path, script, true, rec, now.Add(time.Hour)); err != nil || changed != Unchanged {
		t.Fatalf("second install changed the file: %v %v", changed, err)
	}
	// Uninstall gives back the user's file byte for byte, and takes the
	// backup away; it makes none of its own.
	if changed, err := ClaudeSettings(path, script, false, rec, now.Add(2*time.Hour)); err != nil || changed != Restored {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	if data, _ = os.ReadFile(path); string(data) != userSettings {
		t.Errorf("uninstall did not restore the settings:\n%s", data)
	}
	if left, _ := filepath.Glob(path + ".ski-backup-*"); len(left) != 0 || len(rec.Paths(MadeBackup)) != 0 {
		t.Errorf("backups left: %v, recorded %v", left, rec.Paths(MadeBackup))
	}

	// The user changed the file since: uninstall takes out ski's entries
	// only, keeping the change (and the key order).
	ClaudeSettings(path, script, true, rec, now.Add(3*time.Hour))
	changedSince, _ := sjson.Set(readString(t, path), "model", "sonnet")
	os.WriteFile(path, []byte(changedSince), 0o600)
	if changed, err := ClaudeSettings(path, script, false, rec, now.Add(4*time.Hour)); err != nil || changed != Changed {
		t.Fatalf("uninstall after a change: %v %v", changed, err)
	}
	data, _ = os.ReadFile(path)
	want, _ := sjson.Set(userSettings, "model", "sonnet")
	if !sameJSON(data, []byte(want)) || strings.Contains(string(data), "hook-claude.sh") {
		t.Errorf("uninstall after a change:\n%s", data)
	}
	if strings.Index(string(data), `"model"`) > strings.Index(string(data), `"permissions"`) {
		t.Errorf("keys reordered:\n%s", data)
	}
	if left, _ := filepath.Glob(path + ".ski-backup-*"); len(left) != 0 {
		t.Errorf("backups left: %v", left)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A settings file ski created goes again on uninstall, with the folder it
// made for it (noted in the record); a bad one is left alone.
func TestClaudeSettingsFreshAndBad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "settings.json")
	rec, _ := ReadRecord(t.TempDir())
	if _, err := ClaudeSettings(path, "/x/hook-claude.sh", true, rec, time.Now()); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &m); err != nil || len(m["hooks"].(map[string]any)) != 3 {
		t.Fatalf("fresh settings: %s", data)
	}
	if !rec.Has(MadeFile, path) || !rec.Has(MadeDir, filepath.Join(dir, "sub")) {
		t.Fatalf("record: %v %v", rec.Paths(MadeFile), rec.Paths(MadeDir))
	}
	if err := rec.Write(); err != nil {
		t.Fatal(err)
	}
	rec, _ = ReadRecord(filepath.Dir(rec.path))
	if changed, err := ClaudeSettings(path, "/x/hook-claude.sh", false, rec, time.Now()); err != nil || changed != Removed {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the settings file ski created is still there: %v", err)
	}
	os.WriteFile(path, []byte("{not json"), 0o644)
	if _, err := ClaudeSettings(path, "/x/hook-claude.sh", true, rec, time.Now()); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("bad file: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "{not json" {
		t.Error("a bad settings file must be left alone")
	}
}

func TestOpencodePlugin(t *testing.T) {
	path := OpencodePluginPath(t.TempDir())
	if changed, err := OpencodePlugin(path, "/a b/hook-opencode.sh", true); err != nil || !changed {
		t.Fatal(changed, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `const HOOK = "/a b/hook-opencode.sh"`) || !strings.Contains(string(data), "chat.message") {
		t.Fatalf("plugin:\n%s", data)
	}
	// The tools' descriptions are skill_search's and skill_load's.
	_, tools, _ := strings.Cut(string(data), "const TOOLS = ")
	tools, _, _ = strings.Cut(tools, "\n")
	var defs map[string]skilltool.Definition
	if err := json.Unmarshal([]byte(tools), &defs); err != nil || defs[skilltool.Search].Description != skilltool.SearchDescription ||
		defs[skilltool.Load].Args["name"] != skilltool.NameDescription || strings.Contains(string(data), "__SKI_") {
		t.Fatalf("the plugin's tools %q: %v", tools, err)
	}
	if changed, _ := OpencodePlugin(path, "/a b/hook-opencode.sh", true); changed {
		t.Error("second install changed the plugin")
	}
	if changed, err := OpencodePlugin(path, "", false); err != nil || !changed {
		t.Fatal(changed, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("plugin not removed")
	}
	os.WriteFile(path, []byte("// someone else's plugin"), 0o644)
	if _, err := OpencodePlugin(path, "/x", true); err == nil {
		t.Error("must not overwrite a foreign plugin")
	}
	if _, err := OpencodePlugin(path, "/x", false); err == nil {
		t.Error("must not remove a foreign plugin")
	}
}

// The plugin's hooks.json observes the same tools as the hooks ski-install
// writes.
func TestPluginObservesTheSameTools(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(data, "hooks.PostToolUse.0.matcher").Str; got != ObserveMatcher {
		t.Fatalf("hooks/hooks.json matcher %q, want %q", got, ObserveMatcher)
	}
}

// ski's MCP server goes into the user-scope mcpServers of ~/.claude.json,
// everything else kept; again changes nothing; uninstall takes out only
// ski's entry; another server of the same name is never touched.
func TestClaudeMCP(t *testing.T) {
	dir := t.TempDir()
	rec, _ := ReadRecord(dir)
	path := filepath.Join(dir, ".claude.json")
	orig := `{"numStartups": 3, "mcpServers": {"other": {"command": "x"}}, "projects": {"/p": {"allowedTools": []}}}`
	os.WriteFile(path, []byte(orig), 0o600)
	if change, err := ClaudeMCP(path, "/d/bin/ski-mcp", true, rec); err != nil || change != Changed {
		t.Fatalf("install: %v %v", change, err)
	}
	if ClaudeMCPCommand(path) != "/d/bin/ski-mcp" {
		t.Fatalf("not registered: %s", readFile(t, path))
	}
	if change, err := ClaudeMCP(path, "/d/bin/ski-mcp", true, rec); err != nil || change != Unchanged {
		t.Fatalf("second install: %v %v", change, err)
	}
	if change, err := ClaudeMCP(path, "", false, rec); err != nil || change != Changed {
		t.Fatalf("uninstall: %v %v", change, err)
	}
	if got := readFile(t, path); !sameJSON([]byte(got), []byte(orig)) {
		t.Fatalf("uninstall left %s", got)
	}
	theirs := `{"mcpServers": {"ski": {"command": "/opt/other-ski"}}}`
	os.WriteFile(path, []byte(theirs), 0o600)
	if _, err := ClaudeMCP(path, "/d/bin/ski-mcp", true, rec); err == nil {
		t.Fatal("installed over another program's server named ski")
	}
	if change, err := ClaudeMCP(path, "", false, rec); err != nil || change != Unchanged || readFile(t, path) != theirs {
		t.Fatalf("uninstall touched another program's server: %v %v", change, err)
	}
}

// A ~/.claude.json the install created for ski's server alone is gone
// after uninstall; one that gained other state meanwhile stays without
// ski's entry.
func TestClaudeMCPCreatedFile(t *testing.T) {
	for _, other := range []bool{false, true} {
		dir := t.TempDir()
		rec, _ := ReadRecord(dir)
		path := filepath.Join(dir, ".claude.json")
		if change, err := ClaudeMCP(path, "/d/bin/ski-mcp", true, rec); err != nil || change != Changed {
			t.Fatalf("install: %v %v", change, err)
		}
		if other {
			data, _ := sjson.SetBytes([]byte(readFile(t, path)), "numStartups", 1)
			os.WriteFile(path, data, 0o600)
		}
		change, err := ClaudeMCP(path, "", false, rec)
		_, statErr := os.Stat(path)
		switch {
		case err != nil:
			t.Fatal(err)
		case !other && (change != Removed || statErr == nil):
			t.Fatalf("a file ski created is left (%v)", change)
		case other && (change != Changed || readFile(t, path) != `{"numStartups":1}`):
			t.Fatalf("uninstall left %q (%v)", readFile(t, path), change)
		}
		if rec.Has(MadeFile, path) {
			t.Fatal("the record still holds the file")
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
