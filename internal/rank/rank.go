// Package rank scores every skill of an index against each query: cosine
// similarity, plus a weighted BM25 score of the prompt against the skill's
// text, plus a boost for the skill's keywords and aliases appearing in the
// prompt, plus explicit mentions, which outrank everything.
package rank

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/intent"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/mention"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/vecfile"
)

// MentionScore is added to a mentioned skill's score so it ranks first and
// sets the top against which the others are measured.
const MentionScore = 1.0

// MaxKeywordHits caps how many keyword hits add to one skill's score.
const MaxKeywordHits = 2

// Catalog is an index prepared for ranking. Its rankings take turns: it
// keeps what one leaves for the next (not safe for concurrent use).
type Catalog struct {
	idx      *vecfile.Index
	text     *bm25.Inverted // idx.TextField()
	model    embed.Model
	keywords [][]string   // each entry's keywords, aliases and tags, lower case (nil when none has any)
	err      error        // the first damage found decoding entries
	judge    *judge.Model // nil: no judge for the model, or no background in the index
	// near keeps intentBoosts' answers, which depend on the index alone:
	// a catalog kept between queries (Held) works each out once.
	near map[intentBoost][]float64
	// scratch holds a ranking's per-skill numbers for the next one: a
	// catalog kept between queries makes no garbage of them (five
	// slices of 80 kB a ranking at 10,000 skills). Rankings of one
	// catalog take turns.
	scratch struct {
		cos, scores, text, body []float64
		hits                    []int
	}
}

// NewCatalog prepares idx for ranking.
func NewCatalog(idx *vecfile.Index) *Catalog {
	c := &Catalog{idx: idx}
	c.model, _ = embed.Lookup(idx.Header.Model)
	c.text, _ = idx.TextField()
	if bg := idx.Header.Background; bg != nil && judge.Background(*bg).Valid() {
		// The judges are compiled in and tested one by one: an error here
		// cannot come from the index, so the scores are used instead.
		c.judge, _ = judge.For(idx.Header.Model)
	}
	for _, i := range idx.Keyworded() {
		s, err := idx.Skill(i)
		if err != nil {
			c.err = err
			return c
		}
		if c.keywords == nil {
			c.keywords = make([][]string, idx.Len())
		}
		var words []string
		for _, k := range uniq(append(append(append([]string{}, s.Keywords...), s.Aliases...), s.Tags...)...) {
			if k = strings.TrimSpace(strings.ToLower(k)); len(k) >= 2 {
				words = append(words, k)
			}
		}
		c.keywords[i] = words
	}
	return c
}

// names are the names skills can be mentioned by, looked up in the
// index; the entries of each name found are kept in found, the first
// damage found in err.
type names struct {
	idx   *vecfile.Index
	found map[string][]int
	err   error
}

// Has reports whether some skill can be mentioned by name.
func (n *names) Has(name string) bool {
	got, err := n.idx.Mentioned(name)
	if err != nil && n.err == nil {
		n.err = err
	}
	if len(got) == 0 {
		return false
	}
	if n.found == nil {
		n.found = map[string][]int{}
	}
	n.found[name] = got
	return true
}

// skill returns entry i's skill, keeping the first damage found in c.err.
func (c *Catalog) skill(i int) record.Skill {
	s, err := c.idx.Skill(i)
	if err != nil && c.err == nil {
		c.err = err
	}
	return s
}

// fieldScores is weight × each entry's BM25 score in field for terms, or
// nil when the weight is 0 or the field does not cover the n entries.
func fieldScores(field *bm25.Inverted, terms bm25.Query, weight float64, n int, buf *[]float64) ([]float64, error) {
	if weight == 0 || len(terms) == 0 || field == nil || field.Len() != n {
		return nil, nil
	}
	scores := zeroed(buf, n)
	if err := field.AddScores(terms, weight, scores); err != nil {
		return nil, fmt.Errorf("%w: %v", vecfile.ErrCorrupt, err)
	}
	return scores, nil
}

// Rank scores every skill against q with the settings o, best first, ties
// broken by id.
func (c *Catalog) Rank(q Query, o Settings) ([]record.Candidate, error) {
	if c.err != nil {
		return nil, c.err
	}
	h := c.idx.Header
	if q.Model != "" && q.Model != h.Model {
		return nil, fmt.Errorf("query embedded with %q but the index holds %q vectors", q.Model, h.Model)
	}
	if len(q.Vector) != h.Dim {
		return nil, fmt.Errorf("query vector has %d dims, index has %d", len(q.Vector), h.Dim)
	}
	sc, err := c.score(q, o)
	if err != nil {
		return nil, err
	}
	out, inputs := c.explain(q, sc, c.keep(sc.scores, sc.mentioned, o.Top))
	c.judgeAll(out, inputs, o)
	if c.err != nil {
		return nil, c.err
	}
	return out, nil
}

// scored is a query's numbers for every skill of a catalog, and what
// made them.
type scored struct {
	boost, penalty  float64
	kind            intent.Kind
	low             string // the prompt in lower case, for keywords
	text, body, cos []float64
	near            []float64 // the intent's boost of each skill, or nil
	hits            []int     // keywords found, per skill
	mentioned       map[int]string
	scores          []float64
	top             float64 // the best score of a skill not named by a slash
}

// score scores every skill for q with numbers only; records (and the
// reasons they carry) are made for the few that are kept (explain): with
// thousands of skills the records, not the arithmetic, took the time.
func (c *Catalog) score(q Query, o Settings) (*scored, error) {
	sc := &scored{boost: c.model.KeywordBoost, low: strings.ToLower(q.Prompt)}
	if o.KeywordBoost != nil {
		sc.boost = *o.KeywordBoost
	}
	lexWeight := c.model.LexicalWeight
	if o.LexicalWeight != nil {
		lexWeight = *o.LexicalWeight
	}
	bodyWeight := c.model.BodyWeight
	if o.BodyWeight != nil {
		bodyWeight = *o.BodyWeight
	}
	reading := q.Reading
	if reading == nil {
		r := prompt.Read(q.Prompt)
		reading = &r
	}
	sc.kind = reading.Intent
	var terms bm25.Query
	if lexWeight != 0 || bodyWeight != 0 {
		terms = bm25.NewQuery(reading.Text)
	}
	n := c.idx.Len()
	var err error
	if sc.text, err = fieldScores(c.text, terms, lexWeight, n, &c.scratch.text); err != nil {
		return nil, err
	}
	if sc.body, err = fieldScores(c.idx.Body, terms, bodyWeight, n, &c.scratch.body); err != nil {
		return nil, err
	}
	boostIntent := c.model.IntentBoost
	if o.IntentBoost != nil {
		boostIntent = *o.IntentBoost
	}
	if boostIntent != 0 {
		if sc.near, err = c.intentBoostsOnce(sc.kind, boostIntent); err != nil {
			return nil, err
		}
	}
	if sc.kind == intent.SmallEdit {
		sc.penalty = c.model.SmallEditPenalty
		if o.SmallEditPenalty != nil {
			sc.penalty = *o.SmallEditPenalty
		}
	}
	if sc.mentioned, err = c.mentions(q.Prompt); err != nil {
		return nil, err
	}
	sc.cos = zeroed(&c.scratch.cos, n)
	if err := c.idx.Cosines(q.Vector, sc.cos); err != nil {
		return nil, err
	}
	c.sum(sc, n)
	return sc, nil
}

// sum adds up each of the n skills' score from its parts in sc, and the
// best score of a skill not named by a slash.
func (c *Catalog) sum(sc *scored, n int) {
	sc.hits = zeroed(&c.scratch.hits, n)
	sc.scores = zeroed(&c.scratch.scores, n)
	for i := range n {
		lex := 0.0
		if sc.text != nil && sc.text[i] > 0 {
			lex += sc.text[i]
		}
		if sc.body != nil && sc.body[i] > 0 {
			lex += sc.body[i]
		}
		if c.keywords != nil {
			for _, k := range c.keywords[i] {
				if sc.hits[i] < MaxKeywordHits && hasWord(sc.low, k) {
					sc.hits[i]++
				}
			}
		}
		score := sc.cos[i] + round(lex) + round(float64(sc.hits[i])*sc.boost)
		if sc.near != nil && sc.near[i] > 0 {
			score += sc.near[i]
		}
		if sc.penalty > 0 {
			score -= sc.penalty
		}
		how, isMentioned := sc.mentioned[i]
		if isMentioned && how != mention.Slash {
			score += MentionScore
		}
		sc.scores[i] = round(score)
		if how != mention.Slash && sc.scores[i] > sc.top {
			sc.top = sc.scores[i]
		}
	}
}

// mentions are the skills the prompt names, by index, and how.
func (c *Catalog) mentions(p string) (map[int]string, error) {
	mentioned := map[int]string{}
	known := &names{idx: c.idx}
	for _, m := range mention.Find(p, known) {
		for _, i := range known.found[m.Name] {
			if _, dup := mentioned[i]; !dup {
				mentioned[i] = m.How
			}
		}
	}
	return mentioned, known.err
}

// explain makes the records of the kept skills, with the reasons for
// their scores, and the judge's inputs for each.
func (c *Catalog) explain(q Query, sc *scored, kept []int) ([]record.Candidate, []judge.Input) {
	var out []record.Candidate
	var inputs []judge.Input
	for _, i := range kept {
		cd := c.candidate(q, c.skill(i))
		cd.Cosine = round(sc.cos[i])
		cd.Why = []string{fmt.Sprintf("cosine %.3f", sc.cos[i])}
		lex := 0.0
		if sc.text != nil && sc.text[i] > 0 {
			lex += sc.text[i]
			cd.Why = append(cd.Why, fmt.Sprintf("bm25 +%.3f", sc.text[i]))
		}
		if sc.body != nil && sc.body[i] > 0 {
			lex += sc.body[i]
			cd.Why = append(cd.Why, fmt.Sprintf("body bm25 +%.3f", sc.body[i]))
		}
		cd.Lexical = round(lex)
		n := 0
		for _, k := range c.keywordsOf(i) {
			if n < sc.hits[i] && hasWord(sc.low, k) {
				n++
				cd.Why = append(cd.Why, fmt.Sprintf("keyword %q +%.2f", k, sc.boost))
			}
		}
		cd.Boost = round(float64(sc.hits[i]) * sc.boost)
		if sc.near != nil && sc.near[i] > 0 {
			cd.Why = append(cd.Why, fmt.Sprintf("%s +%.3f", sc.kind, sc.near[i]))
		}
		if sc.penalty > 0 {
			cd.Why = append(cd.Why, fmt.Sprintf("small edit -%.2f", sc.penalty))
		}
		if how, ok := sc.mentioned[i]; ok {
			cd.Mention = how
			cd.Why = append(cd.Why, "mentioned ("+how+")")
		}
		cd.Score = sc.scores[i]
		cd.TopScore = sc.top
		cd.Rank = len(out) + 1
		out = append(out, cd)
		inputs = append(inputs, judge.Input{Score: sc.scores[i], Lexical: cd.Lexical, Mention: cd.Mention != "", Asked: cd.Mention != "" && cd.Mention != mention.Slash,
			SmallEdit: sc.penalty > 0, Intent: sc.near != nil && sc.near[i] > 0})
	}
	return out, inputs
}

// judgeAll gives the candidates the judge's features and, when it judges
// (o and the index let it), its confidence.
func (c *Catalog) judgeAll(out []record.Candidate, inputs []judge.Input, o Settings) {
	jm := c.judge
	if o.Judge != nil {
		jm = o.Judge
	}
	bg := c.idx.Header.Background
	judged := jm != nil && !o.NoJudge && bg != nil
	if bg == nil || !(judged || o.Features) {
		return
	}
	feats := judge.Features(inputs, judge.Background(*bg))
	ran := slices.ContainsFunc(feats, func(f []float64) bool { return f != nil })
	for i, f := range feats {
		if f == nil {
			if judged && ran && out[i].Mention == "" {
				// Below the judged few: never read by its score
				// above them.
				zero := 0.0
				out[i].Confidence = &zero
				out[i].Why = append(out[i].Why, fmt.Sprintf("judge: not among the best %d", judge.Judged))
			}
			continue
		}
		out[i].Features = f
		if judged {
			p := round(jm.Predict(f))
			out[i].Confidence = &p
			out[i].Why = append(out[i].Why, fmt.Sprintf("judge %.3f", p))
		}
	}
}

// keywordsOf returns entry i's keywords, aliases and tags.
func (c *Catalog) keywordsOf(i int) []string {
	if c.keywords == nil {
		return nil
	}
	return c.keywords[i]
}

// keep returns, best first (ties by id), the entries a ranking keeps: the
// top ones of positive score (all of them when top <= 0) and every
// mentioned one.
func (c *Catalog) keep(scores []float64, mentioned map[int]string, top int) []int {
	better := func(a, b int) bool {
		if scores[a] != scores[b] {
			return scores[a] > scores[b]
		}
		return c.skill(a).ID < c.skill(b).ID
	}
	// The best top entries of positive score, kept in a small sorted list:
	// thousands of skills are looked at once each, not sorted.
	var best []int
	for i, sc := range scores {
		if sc <= 0 {
			continue
		}
		if top > 0 && len(best) == top && !better(i, best[top-1]) {
			continue
		}
		at := sort.Search(len(best), func(k int) bool { return better(i, best[k]) })
		best = append(best, 0)
		copy(best[at+1:], best[at:])
		best[at] = i
		if top > 0 && len(best) > top {
			best = best[:top]
		}
	}
	in := make(map[int]bool, len(best))
	for _, i := range best {
		in[i] = true
	}
	for i := range mentioned {
		if !in[i] {
			best = append(best, i)
		}
	}
	sort.SliceStable(best, func(a, b int) bool { return better(best[a], best[b]) })
	return best
}

// hasWord reports whether word occurs in s as a whole word: neither
// neighbour is a letter, a digit or an underscore. Both are lower case.
func hasWord(s, word string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], word)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(word)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[j:])
		if (i == 0 || !isWordRune(before)) && (j == len(s) || !isWordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		from = i + size
	}
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// intentBoost is an intent and the weight of its boost.
type intentBoost struct {
	kind   intent.Kind
	weight float64
}

// intentBoostsOnce is intentBoosts, worked out once per catalog for each
// intent and weight; the slice it returns is shared and never written.
func (c *Catalog) intentBoostsOnce(kind intent.Kind, weight float64) ([]float64, error) {
	key := intentBoost{kind, weight}
	if near, ok := c.near[key]; ok {
		return near, nil
	}
	near, err := c.intentBoosts(kind, weight)
	if err != nil {
		return nil, err
	}
	if c.near == nil {
		c.near = map[intentBoost][]float64{}
	}
	c.near[key] = near
	return near, nil
}

// intentBoosts returns, for a prompt of intent kind, weight × how far each
// skill's cosine to the intent's concept vector stands above the mean plus
// two standard deviations of all skills' cosines; nil when the index holds
// no concept for kind.
func (c *Catalog) intentBoosts(kind intent.Kind, weight float64) ([]float64, error) {
	concept := c.idx.Header.Intents[string(kind)].Vector
	if kind == intent.None || len(concept) != c.idx.Header.Dim || c.idx.Len() < 2 {
		return nil, nil
	}
	cos := make([]float64, c.idx.Len())
	if err := c.idx.Cosines(concept, cos); err != nil {
		return nil, err
	}
	sum, sq := 0.0, 0.0
	for i := range cos {
		sum += cos[i]
		sq += cos[i] * cos[i]
	}
	n := float64(len(cos))
	mean := sum / n
	floor := mean + 2*math.Sqrt(max(0, sq/n-mean*mean))
	for i, x := range cos {
		cos[i] = weight * max(0, x-floor)
	}
	return cos, nil
}

func (c *Catalog) candidate(q Query, s record.Skill) record.Candidate {
	return record.Candidate{
		Kind: record.KindCandidate, QueryID: q.ID, SessionID: q.SessionID, Cwd: q.Cwd, Host: q.Host,
		Model: c.idx.Header.Model, ID: s.ID, Name: s.Name, Invoke: s.Invoke, Path: s.Path, Dir: s.Dir,
		DisableModelInvocation: s.DisableModelInvocation, AutoInject: s.AutoInject, UserInvocable: s.UserInvocable,
		Affinity: nonNil(s.Affinity),
	}
}

// zeroed returns *buf as n zero values, reallocating it when it is short.
func zeroed[T int | float64](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	b := (*buf)[:n]
	clear(b)
	return b
}

func round(x float64) float64 {
	const p = 10000
	if x < 0 {
		return -float64(int64(-x*p+0.5)) / p
	}
	return float64(int64(x*p+0.5)) / p
}

func uniq(xs ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
