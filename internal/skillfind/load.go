package skillfind

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/render"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/skill"
)

// NotLoaded says why skill_load loaded nothing: the name is unknown (Near
// are the nearest names), ambiguous (Candidates are the ids to choose
// from), or the skill is not the model's to load.
type NotLoaded struct {
	Reason     string
	Candidates []string
}

func (e *NotLoaded) Error() string {
	if len(e.Candidates) == 0 {
		return e.Reason
	}
	return e.Reason + ": " + strings.Join(e.Candidates, ", ")
}

// maxNear is how many of the nearest names an unknown name gets.
const maxNear = 3

// Load finds the skill called name (its exact id, invoke name or name, in
// that order) among the skills the host sees from the project, and returns
// it with its text: the SKILL.md body (under the config's char_budget),
// its base directory and its bundled files. A skill the model may not
// invoke is refused. A *NotLoaded says why nothing was loaded.
func (f *Finder) Load(name string) (record.Skill, string, error) {
	name = strings.TrimSpace(name)
	cfg := f.Res.Config(f.Cwd)
	res, err := scan.Scan(scan.ForDir(f.Env, cfg, f.Host, f.Cwd, f.Warn))
	if err != nil {
		return record.Skill{}, "", err
	}
	sk, err := pick(res.Skills, name)
	if err != nil {
		return record.Skill{}, "", err
	}
	switch {
	case sk.DisableModelInvocation:
		return sk, "", &NotLoaded{Reason: fmt.Sprintf("the skill %q has disable-model-invocation set: only the user may invoke it", sk.Name)}
	case f.Hidden != nil && f.Hidden(sk):
		return sk, "", &NotLoaded{Reason: fmt.Sprintf("the skill %q is turned off for the model in the host's settings", sk.Name)}
	}
	body, err := skill.ReadBody(sk.Path)
	if err != nil {
		return sk, "", fmt.Errorf("read %s: %w", sk.Path, err)
	}
	files, refused := skill.BundledFiles(sk.Dir)
	budget := config.DefaultCharBudget
	if r, err := f.Res.Render(f.Cwd); err == nil {
		budget = r.CharBudget
	}
	var b strings.Builder
	render.SkillBody(&b, render.Skill{Name: sk.Name, Path: sk.Path, Dir: sk.Dir, Body: body, Files: files}, budget)
	if refused > 0 {
		fmt.Fprintf(&b, "(%d links that leave the skill's folder are not listed.)\n", refused)
	}
	return sk, strings.TrimRight(b.String(), "\n"), nil
}

// pick finds the one skill name stands for: the skill of that id, else the
// skills invoked by it, else those named it.
func pick(skills []record.Skill, name string) (record.Skill, error) {
	if name == "" {
		return record.Skill{}, &NotLoaded{Reason: "give a skill's name"}
	}
	for _, by := range []func(record.Skill) string{
		func(s record.Skill) string { return s.ID },
		func(s record.Skill) string { return s.Invoke },
		func(s record.Skill) string { return s.Name },
	} {
		var found []record.Skill
		for _, s := range skills {
			if by(s) == name {
				found = append(found, s)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		}
		ids := make([]string, len(found))
		for i, s := range found {
			ids[i] = s.ID
		}
		return record.Skill{}, &NotLoaded{Reason: fmt.Sprintf("%q names %d skills; load one by its id", name, len(found)), Candidates: ids}
	}
	return record.Skill{}, &NotLoaded{Reason: fmt.Sprintf("no skill is called %q; the nearest names", name), Candidates: nearest(skills, name)}
}

// nearest are the invoke names of the skills closest to name, by edit
// distance on their name keys.
func nearest(skills []record.Skill, name string) []string {
	type near struct {
		name string
		d    int
	}
	key := record.NameKey(name)
	var all []near
	for _, s := range skills {
		if s.DisableModelInvocation || slices.ContainsFunc(all, func(n near) bool { return n.name == s.Invoke }) {
			continue
		}
		d := config.Distance(key, record.NameKey(s.Name))
		if strings.Contains(record.NameKey(s.Name), key) || strings.Contains(key, record.NameKey(s.Name)) {
			d = min(d, 1)
		}
		all = append(all, near{s.Invoke, d})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].d < all[j].d })
	var out []string
	for _, n := range all[:min(len(all), maxNear)] {
		out = append(out, n.name)
	}
	return out
}
