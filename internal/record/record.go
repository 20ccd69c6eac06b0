// Package record holds the NDJSON record types that flow between the ski
// stages. docs/records.md is the schema reference; keep the two in step.
package record

import (
	"slices"
	"strings"
)

// Kinds of record. Every line carries one in its "kind" field.
const (
	KindSkill     = "skill"     // ski-scan: a usable skill
	KindError     = "error"     // ski-scan: a skill that could not be used
	KindWarning   = "warning"   // ski-scan: a usable skill that breaks a host's rule
	KindQuery     = "query"     // ski-embed --query: a prompt with its vector
	KindCandidate = "candidate" // ski-rank: one skill scored against one query
	KindSelection = "selection" // ski-select: a candidate with a decision
)

// Scopes a skill can come from. Which wins a name clash depends on the host
// (scan.Precedence): Claude Code lets a user skill override a project one,
// opencode the other way round.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
	ScopePlugin  = "plugin"
	ScopeExtra   = "extra"
)

// NameKey is the form skill names are matched in when a prompt mentions
// one: lower case, "_" read as "-", so "$My_Skill" finds my-skill.
func NameKey(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "_", "-")
}

// MentionKeys returns the names, as NameKey, a skill can be mentioned by:
// its name, its invoke name and the last segment of its id, each once.
func MentionKeys(name, invoke, id string) []string {
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	var keys []string
	for _, n := range [3]string{name, invoke, id} {
		if n == "" {
			continue
		}
		if k := NameKey(n); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// LegacyID is the id ski gave the skill of id before ids were qualified by
// their source (scan.sourceID): the folder relative to its root. Ledgers
// written then name skills by it.
func LegacyID(id string) string {
	if i := strings.LastIndexByte(id, '@'); i >= 0 && !strings.ContainsRune(id[i:], '/') {
		id = id[:i]
	}
	for _, scope := range []string{ScopeProject, ScopeExtra} {
		if rest, ok := strings.CutPrefix(id, scope+":"); ok {
			return rest
		}
	}
	if rest, ok := strings.CutPrefix(id, "plugin:"); ok {
		if _, rel, ok := strings.Cut(rest, "/"); ok {
			return rel
		}
	}
	return id
}

// Hosts ski knows.
const (
	HostClaude   = "claude"
	HostOpencode = "opencode"
)

// Skill is one ski-scan line: a SKILL.md a host would see.
type Skill struct {
	Kind        string `json:"kind"`
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// WhenToUse is the frontmatter's when_to_use, which Claude Code lists
	// after the description.
	WhenToUse string `json:"when_to_use,omitempty"`
	// Invoke is the name the host invokes the skill by ("plugin:skill" for
	// plugin skills, the name otherwise).
	Invoke string `json:"invoke"`
	Path   string `json:"path"`
	Dir    string `json:"dir"`
	Root   string `json:"root"`
	Scope  string `json:"scope"`
	Host   string `json:"host"`

	Keywords []string `json:"keywords"`
	Aliases  []string `json:"aliases"`
	Tags     []string `json:"tags"`
	// Affinity names skills this one declares complementary (seed 004).
	Affinity []string `json:"affinity"`

	DisableModelInvocation bool `json:"disable_model_invocation"`
	UserInvocable          bool `json:"user_invocable"`
	AutoInject             bool `json:"auto_inject"`

	Hash  string `json:"hash"`  // "sha256:<hex>" of the SKILL.md bytes
	Mtime string `json:"mtime"` // RFC 3339, UTC
	Size  int64  `json:"size"`

	// Shadows lists paths of lower-precedence skills with the same name.
	Shadows []string `json:"shadows,omitempty"`
}

// ScanError is a ski-scan line for a skill that cannot be used.
type ScanError struct {
	Kind   string `json:"kind"` // KindError
	Path   string `json:"path"`
	Root   string `json:"root,omitempty"`
	ID     string `json:"id,omitempty"`
	Reason string `json:"reason"`
	// ShadowedBy is the path of the skill of the same name that wins over
	// this one, when that is why it cannot be used.
	ShadowedBy string `json:"shadowed_by,omitempty"`
}

// Warning is a ski-scan line for a skill that ski can use but that breaks
// a frontmatter rule the host documents, so the host may refuse it or cut
// it short.
type Warning struct {
	Kind   string `json:"kind"` // KindWarning
	Path   string `json:"path"`
	ID     string `json:"id"`
	Host   string `json:"host"`
	Reason string `json:"reason"`
}

// Candidate is one ski-rank line: a skill scored against a query.
type Candidate struct {
	Kind      string `json:"kind"` // KindCandidate
	QueryID   string `json:"query_id"`
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Host      string `json:"host"`
	Model     string `json:"model"` // the embedder model that scored it

	Rank   int    `json:"rank"`
	ID     string `json:"id"`
	Name   string `json:"name"`
	Invoke string `json:"invoke"`
	Path   string `json:"path"`
	Dir    string `json:"dir"`

	Score    float64 `json:"score"`
	Cosine   float64 `json:"cosine"`
	Lexical  float64 `json:"lexical"` // weighted BM25 score
	Boost    float64 `json:"boost"`
	TopScore float64 `json:"top_score"` // the query's best score, before any gate
	// Confidence is the judge's belief (0 to 1) that the prompt needs this
	// skill, for the best few candidates when the model has a judge and the
	// index its background; nil otherwise, and the gate reads the score.
	Confidence *float64 `json:"confidence,omitempty"`
	// Reader is the reader's belief (0 to 1) that the prompt needs this
	// skill, from reading the two together, when it read this candidate
	// (package reader); Confidence is then what the judge and the reader
	// say together.
	Reader *float64 `json:"reader,omitempty"`
	// Features are what the judge read (judge.FeatureNames), kept in
	// process for ski-eval (training and measuring judges): the records
	// that go down the pipe carry only the confidence.
	Features []float64 `json:"-"`
	// Mention is how the prompt named the skill: "slash", "at", "dollar",
	// "phrase", "name" or "" when it did not.
	Mention string   `json:"mention"`
	Why     []string `json:"why"`

	DisableModelInvocation bool `json:"disable_model_invocation"`
	AutoInject             bool `json:"auto_inject"`
	// UserInvocable is false for a skill the host keeps out of its /
	// menu: "/name" does not load it.
	UserInvocable bool     `json:"user_invocable"`
	Affinity      []string `json:"affinity"`
}

// Decisions ski-select makes about a candidate.
const (
	DecisionInject    = "inject"     // put it in front of the model
	DecisionSuggest   = "suggest"    // name it in the suggestion line, do not inject
	DecisionHostLoads = "host-loads" // the user invoked it with /name
	DecisionDrop      = "drop"       // only with ski-select --all
)

// Selection is one ski-select line: a candidate and what to do with it.
type Selection struct {
	Candidate
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	// Shown is how the host's skill listing shows the skill to the model
	// in this session: "full", "cut", "bare" (its name alone) or "absent"
	// (not listed); "" when not known.
	Shown string `json:"shown,omitempty"`
}
