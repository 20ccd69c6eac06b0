// Package xdg resolves ski's directories under the XDG base directories.
package xdg

import (
	"os"
	"path/filepath"
)

// Dirs are ski's own directories (each already ends in "ski").
type Dirs struct {
	Data   string // models, runtime
	State  string // session ledgers
	Config string // config.toml
	Cache  string // indexes
	Home   string
}

// Resolve computes the directories from an environment lookup function.
// Relative XDG values are ignored, as the spec says.
func Resolve(getenv func(string) string) Dirs {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	pick := func(env, fallback string) string {
		if v := getenv(env); v != "" && filepath.IsAbs(v) {
			return filepath.Join(v, "ski")
		}
		return filepath.Join(home, fallback, "ski")
	}
	return Dirs{
		Data:   pick("XDG_DATA_HOME", ".local/share"),
		State:  pick("XDG_STATE_HOME", ".local/state"),
		Config: pick("XDG_CONFIG_HOME", ".config"),
		Cache:  pick("XDG_CACHE_HOME", ".cache"),
		Home:   home,
	}
}

// ConfigHome is the XDG config home itself (not ski's folder in it),
// where other tools such as opencode keep their configuration.
func ConfigHome(getenv func(string) string) string {
	if v := getenv("XDG_CONFIG_HOME"); v != "" && filepath.IsAbs(v) {
		return v
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".config")
}
