// Package xdg holds ski's directories under the XDG base directories
// (package environ resolves them) and the checks of folders ski makes there.
package xdg

// Dirs are ski's own directories (each already ends in "ski").
type Dirs struct {
	Data   string // models, runtime
	State  string // session ledgers
	Config string // config.toml
	Cache  string // indexes
	Home   string
}
