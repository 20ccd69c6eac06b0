// Package scan finds the SKILL.md files a host would see and turns each into
// a record.Skill, or a record.ScanError when it cannot be used.
package scan

import "github.com/skill-inject/ski/internal/record"

// Options say where to look.
type Options struct {
	Host string // record.HostClaude or record.HostOpencode ("" means claude)
	Cwd  string // the project directory the host runs in (absolute)
	// Roots, when not empty, replace the host's own roots (--root, SKI_ROOTS).
	Roots []string
	// ExtraRoots are added to the host roots (config extra_roots).
	ExtraRoots []string
	Home       string // the user's home directory
	ConfigHome string // XDG config home (opencode's ~/.config)
	MaxDepth   int    // 0 means the default; negative means a root's own SKILL.md only
	MaxSize    int64  // bytes; 0 means the default

	// ClaudeConfigDir is Claude Code's config folder (CLAUDE_CONFIG_DIR);
	// "" means Home/.claude.
	ClaudeConfigDir string
	// OpencodeConfigDir is opencode's extra config folder
	// (OPENCODE_CONFIG_DIR); "" means none.
	OpencodeConfigDir string
	// Warn receives one line per problem that is not about a skill (an
	// extra root that does not exist, an unreadable opencode.json). nil
	// drops them.
	Warn func(string) `json:"-"`
	// KeepShadowed lists skills that another one shadows as skills too, not
	// as error records. A host never loads both; this is for evaluating over
	// a corpus of repositories, where ids, not names, tell skills apart.
	KeepShadowed bool

	places bool // Roots lists the host's folders that do not exist too (Places)
}

// Root is one directory skills are looked for in.
type Root struct {
	Path  string
	Scope string // record.Scope*
	// Plugin is the plugin name for plugin roots ("" otherwise).
	Plugin string
	// Source says where the root came from ("~/.claude/skills",
	// "skills.paths in /p/opencode.json", "--root"), for messages.
	Source string
	// Explicit roots (Options.Roots) must exist; Scan fails otherwise.
	Explicit bool
	// UserDir says the directory is a user root too (a project root when
	// the cwd is the home): its skills keep the ids of user skills.
	UserDir bool
}

// Result is what a scan found.
type Result struct {
	Skills []record.Skill
	Errors []record.ScanError
}
