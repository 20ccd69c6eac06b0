package listing

import (
	"cmp"
	"path/filepath"
	"slices"
	"time"

	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/hostconf"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
)

// For works out what host shows the model of the skills ski finds for it
// from the project in cwd. For Claude Code the budget is model's; with
// model "" it is $ANTHROPIC_MODEL's, else the settings' model's, else the
// smallest any model gets. With SKI_ROOTS, whether Claude Code lists a
// skill that is not in its own folders is not known.
func For(env environ.Env, cfg config.Config, host, cwd, model string, now time.Time, warn func(string)) (Listing, error) {
	o := scan.ForDir(env, cfg, host, cwd, warn)
	res, err := scan.Scan(o)
	if err != nil {
		return Listing{}, err
	}
	if host == record.HostOpencode {
		return Opencode(res.Skills), nil
	}
	conf := hostconf.ReadClaude(env.ClaudeDir(), hostconf.GlobalFile(env.Home, env.ClaudeConfigDir), cwd)
	// Claude Code's own folders, whatever SKI_ROOTS says.
	folders := []string{filepath.Join(env.ClaudeDir(), "skills")}
	for _, d := range scan.ProjectDirs(cwd) {
		if f := filepath.Join(d, ".claude", "skills"); !slices.Contains(folders, f) {
			folders = append(folders, f)
		}
	}
	return Claude(ClaudeInput{Skills: res.Skills, Folders: folders, Conf: conf,
		Model: cmp.Or(model, env.ClaudeModel, conf.Model), Override: env.ListingBudget, Now: now,
		Given: len(env.Roots) > 0}), nil
}
