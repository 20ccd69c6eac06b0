// Package reader is the second look ski takes at a prompt the judge is
// unsure of: a small cross-encoder (the reader) reads the prompt and each
// of the best candidates' text together and says how likely the prompt
// needs that skill; its belief and the judge's make the candidates'
// confidence, and the candidates it read are ordered by it.
//
// The reader runs where its model is loaded (the embed server, or ski-eval
// in process) behind Scorer; Step is what every caller runs, so that ski-eval
// scores what the hook does. Its fitted values are params.json.
package reader

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/record"
)

// Params are the reader's fitted values (params.json).
type Params struct {
	// Model names the reader model they were fitted for.
	Model string `json:"model"`
	// On says whether the reader runs by default (the config key reader
	// overrides it).
	On bool `json:"on"`
	// Read is how many of the best candidates it reads.
	Read int `json:"read"`
	// Low and High bound the judge's confidence in the best candidate of
	// the prompts the judge is unsure of: the reader runs on those only.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Judge, Reader and Bias weigh the two beliefs' log-odds into the
	// confidence: logistic(Judge·logit(judge) + Reader·logit(reader) + Bias).
	Judge  float64 `json:"judge"`
	Reader float64 `json:"reader"`
	Bias   float64 `json:"bias"`
	// Unjudged, when set, stands for Judge·logit(judge) in a candidate
	// below the judge's few (judge.Judged), which the judge never rated:
	// without it such a candidate counts as rated 0, and no reading lifts it.
	Unjudged *float64 `json:"unjudged,omitempty"`
	// MaxShare is the most of the prompts it reads over time (Share).
	MaxShare float64 `json:"max_share"`
	// FittedOn says on what.
	FittedOn string `json:"fitted_on"`
}

//go:embed params.json
var paramsJSON []byte

// Default returns the shipped values.
func Default() Params {
	var p Params
	if err := json.Unmarshal(paramsJSON, &p); err != nil {
		panic(fmt.Sprintf("reader: params.json: %v", err)) // compiled in and tested
	}
	return p
}

// Scorer reads a prompt with skill texts and returns, for each, the
// reader's belief (0 to 1) that the prompt needs that skill.
type Scorer interface {
	Score(prompt string, skills []string) ([]float64, error)
}

// CandidateScorer reads a prompt with the text of each candidate's skill,
// wherever it finds them (the index the server holds, the skills ski-eval
// scanned), and returns the reader's beliefs, one per candidate.
type CandidateScorer interface {
	ScoreCandidates(prompt string, cands []record.Candidate) ([]float64, error)
}

// WithTexts is a CandidateScorer that finds each candidate's text with
// text and reads it with s.
func WithTexts(s Scorer, text func(id string) (string, bool)) CandidateScorer {
	return textScorer{s, text}
}

type textScorer struct {
	s    Scorer
	text func(id string) (string, bool)
}

func (t textScorer) ScoreCandidates(prompt string, cands []record.Candidate) ([]float64, error) {
	skills := make([]string, len(cands))
	for i, c := range cands {
		var ok bool
		if skills[i], ok = t.text(c.ID); !ok {
			return nil, fmt.Errorf("reader: no text of skill %q", c.ID)
		}
	}
	return t.s.Score(prompt, skills)
}

// Unsure reports whether the judge is unsure of the prompt whose ranked
// candidates cands are: its best candidate that the prompt does not name
// has a confidence from Low to High. A prompt that names a skill, or whose
// candidates the judge did not rate, is not read.
func (p Params) Unsure(cands []record.Candidate) bool {
	for _, c := range cands {
		if c.Mention != "" {
			return false
		}
	}
	if len(cands) == 0 || cands[0].Confidence == nil {
		return false
	}
	conf := *cands[0].Confidence
	return conf >= p.Low && conf <= p.High
}

// Reads returns the candidates the reader reads: the first p.Read of cands.
func (p Params) Reads(cands []record.Candidate) []record.Candidate {
	return cands[:min(p.Read, len(cands))]
}

// Apply takes the reader's beliefs in the first len(beliefs) candidates:
// each gets its Reader belief and the combined Confidence, and they are
// ordered by it (ties by rank) and ranked again; the others keep theirs.
func (p Params) Apply(cands []record.Candidate, beliefs []float64) {
	read := cands[:len(beliefs)]
	for i := range read {
		b := round(beliefs[i])
		read[i].Reader = &b
		c := round(logistic(p.judgeTerm(i, read[i].Confidence) + p.Reader*logit(b) + p.Bias))
		read[i].Confidence = &c
		read[i].Why = append(read[i].Why, fmt.Sprintf("reader %.3f", b))
	}
	sort.SliceStable(read, func(a, b int) bool { return *read[a].Confidence > *read[b].Confidence })
	for i := range read {
		read[i].Rank = i + 1
	}
}

// judgeTerm is the judge's part of the combined log-odds of the candidate
// at index i (0-based) whose judge confidence is conf: Judge·logit(conf),
// or Unjudged below the judged few when it is set. The reader reads only
// prompts that name no skill, so the judged few are the first ones.
func (p Params) judgeTerm(i int, conf *float64) float64 {
	if i >= judge.Judged && p.Unjudged != nil {
		return *p.Unjudged
	}
	judged := 0.0
	if conf != nil {
		judged = *conf
	}
	return p.Judge * logit(judged)
}

// Step runs the reader on cands (the ranked candidates of one prompt,
// whose text as ski reads it is text) when the judge is unsure of it, and
// reports whether it ran; on an error the candidates are left as the judge
// made them.
func (p Params) Step(cands []record.Candidate, text string, s CandidateScorer) (bool, error) {
	if s == nil || !p.Unsure(cands) {
		return false, nil
	}
	read := p.Reads(cands)
	beliefs, err := s.ScoreCandidates(text, read)
	if err != nil {
		return false, err
	}
	if len(beliefs) != len(read) || slices.ContainsFunc(beliefs, math.IsNaN) {
		return false, fmt.Errorf("reader: %d beliefs for %d candidates", len(beliefs), len(read))
	}
	p.Apply(cands, beliefs)
	return true, nil
}

func logit(x float64) float64 {
	x = min(max(x, 1e-4), 1-1e-4)
	return math.Log(x / (1 - x))
}

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func round(x float64) float64 { return math.Round(x*10000) / 10000 }

// Model is a loaded reader.
type Model interface {
	Scorer
	Close() error
}

// opener loads the reader model in builds that link a runtime for it
// (package onnx registers itself); nil in a lexical-only build.
var opener func(embed.Env) (Model, error)

// Register makes open the way to load the reader model.
func Register(open func(embed.Env) (Model, error)) { opener = open }

// Open loads the reader model, installed by scripts/setup.sh.
func Open(env embed.Env) (Model, error) {
	if opener == nil {
		return nil, errors.New("this build has no runtime for the reader")
	}
	return opener(env)
}

// Files describes the reader's installed files: the model (shipped in the
// repository's models/ and copied by scripts/setup.sh, sha256 pinned) and
// the tokenizer of all-MiniLM-L6-v2, whose weights it starts from.
func Files() embed.Model {
	m := embed.Model{ID: modelID, Files: []embed.File{{Name: "model.onnx", SHA256: modelSHA256, Size: modelSize}}}
	if base, err := embed.Lookup(BaseModel); err == nil {
		for _, f := range base.Files {
			if f.Name == "tokenizer.json" {
				m.Files = append(m.Files, embed.File{Name: f.Name, SHA256: f.SHA256, Size: f.Size})
			}
		}
	}
	return m
}

// BaseModel is the embedding model whose weights the reader was trained
// from, and whose tokenizer it reads with.
const BaseModel = "all-MiniLM-L6-v2"
