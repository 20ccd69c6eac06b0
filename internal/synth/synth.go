// Package synth makes deterministic synthetic skill catalogs for scale
// benchmarks: any number of skills whose descriptions and bodies have the
// lengths and the vocabulary of a real catalog, with none of its text
// copied (each is a random walk over the word pairs of the real texts).
package synth

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skill-inject/ski/internal/skill"
)

// Model is what the generator learnt from a real catalog: which word
// follows which, in descriptions and in bodies, and how long each is.
type Model struct {
	desc, body chain
	descLens   []int // words per description
	bodyLens   []int // words per body
}

// chain maps a word to the words seen after it (repeats kept, so frequent
// pairs are drawn more often); "" starts a text.
type chain map[string][]string

func (c chain) learn(words []string) {
	prev := ""
	for _, w := range words {
		c[prev] = append(c[prev], w)
		prev = w
	}
}

// Learn reads every SKILL.md under root (in a fixed order, so the same
// catalog always gives the same model).
func Learn(root string) (*Model, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "SKILL.md" {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", root, err)
	}
	sort.Strings(paths)
	m := &Model{desc: chain{}, body: chain{}}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		doc, err := skill.Parse(p, data)
		if err != nil {
			continue
		}
		if d := strings.Fields(doc.Description); len(d) > 0 {
			m.desc.learn(d)
			m.descLens = append(m.descLens, len(d))
		}
		if b := strings.Fields(doc.Body); len(b) > 0 {
			m.body.learn(b)
			m.bodyLens = append(m.bodyLens, len(b))
		}
	}
	if len(m.descLens) == 0 || len(m.bodyLens) == 0 {
		return nil, fmt.Errorf("no skills with a description and a body under %s", root)
	}
	return m, nil
}

// walk draws n words from c.
func (c chain) walk(r *rand.Rand, n int) []string {
	out := make([]string, 0, n)
	prev := ""
	for len(out) < n {
		next := c[prev]
		if len(next) == 0 {
			next = c[""]
		}
		w := next[r.IntN(len(next))]
		out = append(out, w)
		prev = w
	}
	return out
}

// Skill is one generated skill.
type Skill struct {
	Name, Description, Body string
}

// Generate makes count skills from seed: the same arguments give the same
// skills.
func (m *Model) Generate(count int, seed uint64) []Skill {
	r := rand.New(rand.NewPCG(seed, uint64(count)))
	out := make([]Skill, count)
	for i := range out {
		desc := m.desc.walk(r, m.descLens[r.IntN(len(m.descLens))])
		body := m.body.walk(r, m.bodyLens[r.IntN(len(m.bodyLens))])
		name := fmt.Sprintf("synth-%05d-%s", i, slug(desc))
		out[i] = Skill{Name: name, Description: strings.Join(desc, " "), Body: paragraphs(name, body)}
	}
	return out
}

// slug makes two name words of a description's first letters and digits.
func slug(words []string) string {
	var parts []string
	for _, w := range words {
		w = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			if r >= 'A' && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return -1
		}, w)
		if len(w) > 2 {
			parts = append(parts, w)
		}
		if len(parts) == 2 {
			break
		}
	}
	if len(parts) == 0 {
		return "skill"
	}
	out := strings.Join(parts, "-")
	if len(out) > 40 { // names stay within the hosts' 64 characters
		out = strings.TrimRight(out[:40], "-")
	}
	return out
}

// paragraphs lays body words out as a markdown document.
func paragraphs(title string, words []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	for i, w := range words {
		b.WriteString(w)
		switch {
		case i == len(words)-1:
			b.WriteString("\n")
		case (i+1)%60 == 0:
			b.WriteString("\n\n")
		default:
			b.WriteString(" ")
		}
	}
	return b.String()
}

// Write writes skills under dir, one folder each.
func Write(dir string, skills []Skill) error {
	for _, s := range skills {
		sd := filepath.Join(dir, s.Name)
		if err := os.MkdirAll(sd, 0o755); err != nil {
			return err
		}
		// The description is quoted, as YAML needs for arbitrary text.
		q := strings.ReplaceAll(strings.ReplaceAll(s.Description, `\`, `\\`), `"`, `\"`)
		doc := fmt.Sprintf("---\nname: %s\ndescription: \"%s\"\n---\n%s", s.Name, q, s.Body)
		if err := os.WriteFile(filepath.Join(sd, "SKILL.md"), []byte(doc), 0o644); err != nil {
			return err
		}
	}
	return nil
}
