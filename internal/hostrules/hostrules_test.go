package hostrules

import (
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/record"
)

func TestCheck(t *testing.T) {
	ok := record.Skill{Name: "helm-chart", Dir: "/s/helm-chart", Description: "Lint and package Helm charts."}
	for _, host := range []string{record.HostClaude, record.HostOpencode} {
		if w := Check(host, ok); len(w) != 0 {
			t.Errorf("%s: a skill within the rules got %v", host, w)
		}
	}
	for _, c := range []struct {
		host string
		edit func(*record.Skill)
		want string
	}{
		{record.HostClaude, func(s *record.Skill) { s.Description = strings.Repeat("x", 1100) }, "description is 1100 characters; the host allows 1024"},
		{record.HostOpencode, func(s *record.Skill) { s.Description = strings.Repeat("x", 1025) }, "description is 1025 characters"},
		{record.HostClaude, func(s *record.Skill) { s.Name = strings.Repeat("a", 65) }, "name is 65 characters; the host allows 64"},
		{record.HostClaude, func(s *record.Skill) { s.Name = "Helm_Chart" }, `name "Helm_Chart": the host allows only lowercase letters, digits and hyphens`},
		{record.HostClaude, func(s *record.Skill) { s.Name = "claude-helper" }, `reserved word "claude"`},
		{record.HostClaude, func(s *record.Skill) { s.Description = "Use for <b>charts</b>" }, "contains < or >"},
		{record.HostOpencode, func(s *record.Skill) { s.Name, s.Dir = "helm--chart", "/s/helm--chart" }, "single hyphens"},
		{record.HostOpencode, func(s *record.Skill) { s.Name = "helm" }, `name "helm" differs from its folder "helm-chart"`},
	} {
		s := ok
		c.edit(&s)
		w := Check(c.host, s)
		if len(w) != 1 || !strings.Contains(w[0].Reason, c.want) || w[0].Kind != "warning" {
			t.Errorf("%s %+v: got %v, want one warning with %q", c.host, s.Name, w, c.want)
		}
	}
	// Claude Code takes a name that differs from the folder.
	s := ok
	s.Name = "helm"
	if w := Check(record.HostClaude, s); len(w) != 0 {
		t.Errorf("claude, name differs from folder: %v", w)
	}
}
