package skillfind

import (
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/hostconf"
	"github.com/skill-inject/ski/internal/record"
)

// HostHidden reports whether the host's own settings, as the project in
// cwd sees them now, keep a skill from the model (Claude Code's
// skillOverrides "off" and "user-invocable-only"); nil for a host whose
// settings ski does not read.
func HostHidden(env environ.Env, host, cwd string) func(record.Skill) bool {
	if host != record.HostClaude {
		return nil
	}
	c := hostconf.ReadClaude(env.ClaudeDir(), hostconf.GlobalFile(env.Home, env.ClaudeConfigDir), cwd)
	return func(s record.Skill) bool { return c.HiddenFromModel(s.Invoke) }
}
