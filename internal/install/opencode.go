package install

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skill-inject/ski/internal/skilltool"
)

//go:embed ski-opencode-plugin.js
var opencodePlugin string

// pluginMarker marks the plugin file as ski's, so uninstall removes only it.
const pluginMarker = "ski-install-marker"

// OpencodePluginPath is where the plugin goes for an XDG config home.
func OpencodePluginPath(configHome string) string {
	return filepath.Join(configHome, "opencode", "plugin", "ski.js")
}

// OpencodePlugin writes (install) or removes (uninstall) ski's opencode
// plugin, which runs script, and gives the model ski's two tools (their
// descriptions are skilltool's). It reports whether anything changed. A file of
// that name that ski did not write is never touched.
func OpencodePlugin(path, script string, install bool) (bool, error) {
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !os.IsNotExist(err) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if exists && !strings.Contains(string(old), pluginMarker) {
		return false, fmt.Errorf("%s exists and is not ski's plugin; move it away first", path)
	}
	if !install {
		if !exists {
			return false, nil
		}
		if err := os.Remove(path); err != nil {
			return false, fmt.Errorf("remove %s: %w", path, err)
		}
		return true, nil
	}
	quoted, _ := json.Marshal(script)
	tools, _ := json.Marshal(skilltool.Definitions())
	text := strings.NewReplacer("__SKI_HOOK__", string(quoted), "__SKI_TOOLS__", string(tools)).Replace(opencodePlugin)
	if exists && string(old) == text {
		return false, nil
	}
	return true, writeAtomic(path, []byte(text))
}
