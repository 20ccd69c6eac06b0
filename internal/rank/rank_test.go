package rank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/intent"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/vecfile"
)

func testIndex(t *testing.T) string {
	t.Helper()
	skills := []record.Skill{
		{ID: "writing/postmortem", Name: "postmortem", Invoke: "postmortem", Hash: "sha256:1",
			Description: "Write blameless incident postmortems with a timeline and follow-up actions."},
		{ID: "k8s/helm-chart", Name: "helm-chart", Invoke: "helm-chart", Hash: "sha256:2", Keywords: []string{"helm", "values.yaml"},
			Description: "Create and lint Kubernetes charts."},
		{ID: "debugging/systematic-debugging", Name: "systematic-debugging", Invoke: "systematic-debugging", Hash: "sha256:3",
			Description: "Find the root cause of a bug or test failure before fixing it."},
		{ID: "acme/commit", Name: "commit", Invoke: "acme:commit", Hash: "sha256:4", Scope: record.ScopePlugin,
			Description: "Commit changes following the team's conventions."},
	}
	return writeIndex(t, skills)
}

// writeIndex builds a lexical index of skills and returns its path.
func writeIndex(t *testing.T, skills []record.Skill) string {
	t.Helper()
	return writeBuilt(t, buildIndex(t, skills))
}

// buildIndex builds a lexical index of skills.
func buildIndex(t *testing.T, skills []record.Skill) *vecfile.Index {
	t.Helper()
	idx, _, err := index.Build(skills, nil, embed.NewLexical(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// writeBuilt writes idx to a file and returns its path.
func writeBuilt(t *testing.T, idx *vecfile.Index) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "i.skv")
	if err := indexfile.Write(path, idx); err != nil {
		t.Fatal(err)
	}
	return path
}

// testdataSkills are the skills of testdata/skills.
func testdataSkills(t *testing.T) []record.Skill {
	t.Helper()
	res, err := scan.Scan(scan.Options{Host: record.HostClaude, Roots: []string{filepath.Join("..", "..", "testdata", "skills")}})
	if err != nil || len(res.Skills) < 10 {
		t.Fatalf("scan: %d skills, %v", len(res.Skills), err)
	}
	return res.Skills
}

func rank(t *testing.T, path, prompt string, o Settings) []record.Candidate {
	t.Helper()
	vec, _ := embed.NewLexical().Embed([]string{prompt}, embed.Query)
	q, _ := json.Marshal(map[string]any{"kind": "query", "query_id": "q1", "session_id": "s", "prompt": prompt,
		"model": embed.LexicalID, "index": path, "vector": vec[0]})
	var out bytes.Buffer
	if err := Run(Options{Settings: func(string, string) Settings { return o }}, bytes.NewReader(append(q, '\n')), &out); err != nil {
		t.Fatal(err)
	}
	var cands []record.Candidate
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		var c record.Candidate
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		cands = append(cands, c)
	}
	return cands
}

func TestRankOrderAndWhy(t *testing.T) {
	path := testIndex(t)
	c := rank(t, path, "write a blameless postmortem for the outage", Settings{})
	if len(c) == 0 || c[0].ID != "writing/postmortem" || c[0].Rank != 1 || c[0].TopScore != c[0].Score {
		t.Fatalf("top candidate: %+v", c)
	}
	if len(c[0].Why) != 2 || !strings.HasPrefix(c[0].Why[0], "cosine 0.") || !strings.HasPrefix(c[0].Why[1], "bm25 +") {
		t.Errorf("why: %v", c[0].Why)
	}
	for i := 1; i < len(c); i++ {
		if c[i].Score > c[i-1].Score {
			t.Errorf("not sorted: %v", c)
		}
	}
}

func TestKeywordBoost(t *testing.T) {
	path := testIndex(t)
	c := rank(t, path, "bump the replica count in values.yaml of our helm release", Settings{})
	if c[0].ID != "k8s/helm-chart" || c[0].Boost != 0.2 || len(c[0].Why) != 4 {
		t.Fatalf("want two keyword hits on helm-chart: %+v", c[0])
	}
	fixed := 0.5
	c = rank(t, path, "helm", Settings{KeywordBoost: &fixed})
	if c[0].Boost != 0.5 {
		t.Fatalf("boost from options: %+v", c[0])
	}
}

func TestMentions(t *testing.T) {
	path := testIndex(t)
	c := rank(t, path, "@systematic-debugging why is the sky blue", Settings{Top: 1})
	if c[0].ID != "debugging/systematic-debugging" || c[0].Mention != "at" || c[0].Score < MentionScore {
		t.Fatalf("mention: %+v", c[0])
	}
	// "_" for "-" and case do not matter.
	c = rank(t, path, "$Systematic_Debugging why is the sky blue", Settings{Top: 1})
	if c[0].ID != "debugging/systematic-debugging" || c[0].Mention != "dollar" {
		t.Fatalf("$Systematic_Debugging: %+v", c[0])
	}
	// A slash command names the skill but gets no bonus and sets no top.
	c = rank(t, path, "/postmortem", Settings{})
	var slash *record.Candidate
	for i := range c {
		if c[i].Mention == "slash" {
			slash = &c[i]
		}
	}
	if slash == nil || slash.ID != "writing/postmortem" || slash.Score >= MentionScore {
		t.Fatalf("slash: %+v", c)
	}
	// Plugin skills are mentioned by their invoke name too.
	c = rank(t, path, "/acme:commit", Settings{})
	if c[0].Mention != "slash" || c[0].ID != "acme/commit" {
		t.Fatalf("plugin slash: %+v", c)
	}
}

func TestTop(t *testing.T) {
	path := testIndex(t)
	if c := rank(t, path, "write a postmortem and fix a bug in the chart", Settings{Top: 1}); len(c) != 1 {
		t.Fatalf("--top 1 gave %d", len(c))
	}
}

func TestModelMismatch(t *testing.T) {
	path := testIndex(t)
	q := `{"kind":"query","query_id":"q","prompt":"x","model":"bge-small-en-v1.5","vector":[0.1]}` + "\n"
	err := Run(Options{IndexPath: path}, strings.NewReader(q), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "line 1: query embedded with") {
		t.Fatalf("err = %v", err)
	}
	err = Run(Options{IndexPath: path}, strings.NewReader(`{"kind":"candidate"}`+"\n"), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "pipe ski-embed --query into ski-rank") {
		t.Fatalf("err = %v", err)
	}
}

func TestLexicalWeight(t *testing.T) {
	path := testIndex(t)
	w := 0.1
	c := rank(t, path, "our kubernetes charts fail to lint", Settings{LexicalWeight: &w})
	if c[0].ID != "k8s/helm-chart" || c[0].Lexical <= 0 || c[0].Score != round(c[0].Cosine+c[0].Lexical) {
		t.Fatalf("want a BM25 part on helm-chart: %+v", c[0])
	}
	if !strings.HasPrefix(c[0].Why[1], "bm25 +") {
		t.Errorf("why: %v", c[0].Why)
	}
	w = 0
	if c = rank(t, path, "our kubernetes charts fail to lint", Settings{LexicalWeight: &w}); c[0].Lexical != 0 {
		t.Errorf("weight 0 must leave BM25 out: %+v", c[0])
	}
}

func TestSmallEditPenalty(t *testing.T) {
	path := testIndex(t)
	const p = "rename the helm values key replicas to replicaCount, nothing else"
	plain := rank(t, path, p, Settings{SmallEditPenalty: new(float64)})
	got := rank(t, path, p, Settings{})
	m, _ := embed.Lookup(embed.LexicalID)
	pen := m.SmallEditPenalty
	if pen <= 0 {
		t.Fatal("the lexical model has no small-edit penalty")
	}
	if plain[0].ID != got[0].ID || got[0].Score >= plain[0].Score-pen+0.0002 || got[0].Score <= plain[0].Score-pen-0.0002 {
		t.Errorf("top %s %.4f, without penalty %s %.4f; want %.2f less", got[0].ID, got[0].Score, plain[0].ID, plain[0].Score, pen)
	}
	if !strings.Contains(strings.Join(got[0].Why, "; "), "small edit") {
		t.Errorf("why: %v", got[0].Why)
	}
	if other := rank(t, path, "write a postmortem for the outage", Settings{}); strings.Contains(strings.Join(other[0].Why, "; "), "small edit") {
		t.Errorf("penalty on a plain request: %v", other[0].Why)
	}
}

func TestIntentBoost(t *testing.T) {
	// Enough skills for one to stand two deviations above the rest.
	skills := []record.Skill{{ID: "debugging/systematic-debugging", Name: "systematic-debugging", Hash: "h0",
		Description: "Debug any failure: find the root cause of the error before fixing it."}}
	for i, d := range []string{"Write blameless postmortems.", "Create Kubernetes charts.", "Commit with conventions.",
		"Draw charts with seaborn.", "Plan a sprint backlog.", "Design a landing page.", "Write release notes.",
		"Translate documents.", "Organise invoices by vendor.", "Scaffold a FastAPI service."} {
		skills = append(skills, record.Skill{ID: fmt.Sprintf("other/s%d", i), Name: fmt.Sprintf("s%d", i), Hash: "h", Description: d})
	}
	path := writeIndex(t, skills)
	bug := rank(t, path, "the importer panics with a nil map after the upgrade, find out why", Settings{})
	var debug record.Candidate
	for _, c := range bug {
		if c.ID == "debugging/systematic-debugging" {
			debug = c
		}
	}
	if !strings.Contains(strings.Join(debug.Why, "; "), "bug-hunt +") {
		t.Errorf("no bug-hunt boost for the debugging skill: %+v", debug.Why)
	}
	off := 0.0
	plain := rank(t, path, "the importer panics with a nil map after the upgrade, find out why", Settings{IntentBoost: &off})
	for _, c := range plain {
		if c.ID == debug.ID && c.Score >= debug.Score {
			t.Errorf("boost did not raise the score: %.4f without, %.4f with", c.Score, debug.Score)
		}
		if strings.Contains(strings.Join(c.Why, "; "), "bug-hunt") {
			t.Errorf("boost with weight 0: %v", c.Why)
		}
	}
	for _, c := range rank(t, path, "write a postmortem for the outage", Settings{}) {
		if strings.Contains(strings.Join(c.Why, "; "), "bug-hunt") {
			t.Errorf("boost on a plain request: %s %v", c.ID, c.Why)
		}
	}
}

// Ranking reads only the index's table (vecfile.ReadRanking); what it
// ranks must be what the whole index ranks, for every skill field ranking
// or its candidates use.
func TestRankingReadRanksLikeWholeIndex(t *testing.T) {
	path := writeIndex(t, testdataSkills(t))
	whole, err := indexfile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	table, err := vecfile.ReadRanking(path)
	if err != nil {
		t.Fatal(err)
	}
	a, b := NewCatalog(whole), NewCatalog(table)
	for _, p := range []string{"write a blameless postmortem for the outage", "the helm chart fails to lint",
		"use the systematic-debugging skill on this flaky test", "@postmortem please", "/commit fix typo", "rename this variable"} {
		vec, _ := embed.NewLexical().Embed([]string{p}, embed.Query)
		q := Query{ID: "q", SessionID: "s", Prompt: p, Model: embed.LexicalID, Vector: vec[0]}
		want, err1 := a.Rank(q, Settings{})
		got, err2 := b.Rank(q, Settings{})
		if err1 != nil || err2 != nil || len(want) == 0 {
			t.Fatalf("%q: %d candidates, %v, %v", p, len(want), err1, err2)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: ranking read differs:\n got %+v\nwant %+v", p, got, want)
		}
	}
}

// hasWord finds a keyword as a whole word, as the pattern
// (?i)(^|[^\pL\pN_])KEYWORD($|[^\pL\pN_]) does, without compiling one per
// keyword on every prompt.
func TestHasWordLikeThePattern(t *testing.T) {
	prompts := []string{
		"deploy the Helm chart", "helmfile sync", "my_helm chart", "helm_chart", "Helm, then k8s.", "k8s-helm",
		"(helm)", "über-helm", "helmé", "HELM", "helm", "", "a helm helmet helm", "the go-to guide", "go to",
		"ci/cd pipelines", "ci/cd", "pipeline ci/cd!", "naïve api", "API2 api", "x api_", "日本語api", "api日本語",
		"c++ code", "the c++", "node.js app", "nodejs", "ＡＰＩ", "straße api",
	}
	words := []string{"helm", "helm chart", "k8s", "go-to", "ci/cd", "api", "c++", "node.js", "straße"}
	for _, p := range prompts {
		for _, w := range words {
			re := regexp.MustCompile(`(?i)(^|[^\pL\pN_])` + regexp.QuoteMeta(w) + `($|[^\pL\pN_])`)
			if got, want := hasWord(strings.ToLower(p), w), re.MatchString(p); got != want {
				t.Errorf("hasWord(%q, %q) = %v, the pattern says %v", p, w, got, want)
			}
		}
	}
}

// A query record that carries the prompt's reading ("text" and "intent",
// from ski-embed --query) is ranked by it; one without is read here, to
// the same result; a bad reading is an error.
func TestQueryReading(t *testing.T) {
	path := testIndex(t)
	const p = "rename the helm values key replicas to replicaCount, nothing else"
	vec, _ := embed.NewLexical().Embed([]string{p}, embed.Query)
	run := func(extra map[string]any) (string, error) {
		q := map[string]any{"kind": "query", "query_id": "q1", "prompt": p, "model": embed.LexicalID, "index": path, "vector": vec[0]}
		for k, v := range extra {
			q[k] = v
		}
		line, _ := json.Marshal(q)
		var out bytes.Buffer
		err := Run(Options{}, bytes.NewReader(append(line, '\n')), &out)
		return out.String(), err
	}
	read := prompt.Read(p)
	if read.Intent != intent.SmallEdit {
		t.Fatalf("the prompt reads as %q", read.Intent)
	}
	itself, err1 := run(nil)
	given, err2 := run(map[string]any{"text": read.Text, "intent": string(read.Intent)})
	if err1 != nil || err2 != nil || itself != given {
		t.Fatalf("the record's reading ranks differently from the prompt's (%v, %v)", err1, err2)
	}
	other, err := run(map[string]any{"text": "write a blameless postmortem", "intent": ""})
	if err != nil || strings.Contains(other, "small edit") || !strings.Contains(other, "bm25 +") || other == given {
		t.Fatalf("the record's reading was not used: %v\n%s", err, other)
	}
	for _, bad := range []map[string]any{
		{"text": "x", "intent": "refactor"}, {"text": "x"}, {"intent": ""}, {"text": 1, "intent": ""},
	} {
		if _, err := run(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// BenchmarkRankFile reads the index at SKI_BENCH_INDEX and ranks the query
// record at SKI_BENCH_QUERY, as one ski-rank run does:
//
//	SKI_BENCH_INDEX=... SKI_BENCH_QUERY=... go test ./internal/rank -run '^$' -bench RankFile
func BenchmarkRankFile(b *testing.B) {
	path, line := benchInputs(b)
	q, err := parseQuery(line)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		idx, err := vecfile.ReadRanking(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := NewCatalog(idx).Rank(q, Settings{Top: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

// With a judge and a background, the five best candidates that are not
// mentions get its confidence and the rest 0, so none of them is read by
// its score above the judged; a prompt that names a skill is judged not
// at all.
func TestJudgedConfidences(t *testing.T) {
	idx := buildIndex(t, testdataSkills(t))
	idx.Header.Background = &vecfile.Background{Q50: 0.05, Q90: 0.3}
	path := writeBuilt(t, idx)
	n := len(judge.FeatureNames)
	m := &judge.Model{Features: judge.FeatureNames, Mean: make([]float64, n), Std: make([]float64, n), Weights: make([]float64, n)}
	for j := range n {
		m.Std[j] = 1
	}
	m.Weights[0] = 1 // the relative score alone
	cands := rank(t, path, "the helm chart fails to lint, fix the values.yaml and the deployment", Settings{Judge: m})
	if len(cands) <= judge.Judged {
		t.Fatalf("%d candidates, want more than %d", len(cands), judge.Judged)
	}
	for i, c := range cands {
		if c.Confidence == nil {
			t.Fatalf("candidate %d (%s) has no confidence", i+1, c.ID)
		}
		if judged := i < judge.Judged; judged != (*c.Confidence > 0) {
			t.Errorf("candidate %d (%s): confidence %v", i+1, c.ID, *c.Confidence)
		}
	}
	for _, c := range rank(t, path, "@postmortem for the helm chart outage", Settings{Judge: m}) {
		if c.Confidence != nil {
			t.Errorf("%s judged although the prompt names a skill", c.ID)
		}
	}
	for _, c := range rank(t, path, "the helm chart fails to lint", Settings{Judge: m, NoJudge: true}) {
		if c.Confidence != nil {
			t.Errorf("%s judged with NoJudge", c.ID)
		}
	}
}

// BenchmarkHeldRank ranks the query record at SKI_BENCH_QUERY against the
// index at SKI_BENCH_INDEX held in memory, as the embed server does for
// ski-rank (Held.Rank) once it has read the index:
//
//	SKI_BENCH_INDEX=... SKI_BENCH_QUERY=... go test ./internal/rank -run '^$' -bench HeldRank
func BenchmarkHeldRank(b *testing.B) {
	path, line := benchInputs(b)
	settings := []byte(`{"top":10}`)
	var h Held
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Rank(path, line, settings); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInputs are the index path and the query record line the ranking
// benchmarks read from SKI_BENCH_INDEX and SKI_BENCH_QUERY.
func benchInputs(b *testing.B) (path string, line []byte) {
	path, query := os.Getenv("SKI_BENCH_INDEX"), os.Getenv("SKI_BENCH_QUERY")
	if path == "" || query == "" {
		b.Skip("SKI_BENCH_INDEX and SKI_BENCH_QUERY are not set")
	}
	line, err := os.ReadFile(query)
	if err != nil {
		b.Fatal(err)
	}
	return path, bytes.TrimSpace(line)
}
