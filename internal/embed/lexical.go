package embed

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// lexicalDim is the width of the hashed lexical vectors.
const lexicalDim = 1024

// Lexical is the offline fallback embedder: hashed bags of stemmed words and
// word pairs. It needs no model and no network and is fully deterministic.
type Lexical struct{}

// NewLexical returns the lexical embedder.
func NewLexical() *Lexical { return &Lexical{} }

// Model describes the lexical model.
func (*Lexical) Model() Model { return models[LexicalID] }

// Close releases nothing.
func (*Lexical) Close() error { return nil }

// Embed embeds each text. Queries and documents are treated alike.
func (*Lexical) Embed(texts []string, _ Purpose) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = lexicalVector(t)
	}
	return out, nil
}

func lexicalVector(text string) []float32 {
	v := make([]float32, lexicalDim)
	counts := map[string]int{}
	words := Terms(text)
	for i, w := range words {
		counts[w]++
		if i > 0 {
			counts[words[i-1]+" "+w]++
		}
	}
	for term, n := range counts {
		weight := float32(1 + math.Log(float64(n)))
		if strings.Contains(term, " ") {
			weight *= 0.5
		}
		h := fnv.New64a()
		h.Write([]byte(term))
		sum := h.Sum64()
		if sum>>63 == 1 {
			weight = -weight
		}
		v[sum%lexicalDim] += weight
	}
	Normalize(v)
	return v
}

// Terms splits text into lower-case, stemmed content words, dropping
// stop words. Ranking uses it too, so keyword matching and the lexical
// vectors agree on what a word is.
func Terms(text string) []string {
	var out []string
	for _, w := range Words(text) {
		if len(w) < 2 || stopWords[w] {
			continue
		}
		out = append(out, Stem(w))
	}
	return out
}

// Words splits text into lower-case runs of letters and digits.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Stem strips common English inflections so "tests", "testing" and
// "tested" meet. It is deliberately light: over-stemming merges words that
// mean different things.
func Stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 5 && strings.HasSuffix(w, "ing"):
		return trimDouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		return trimDouble(w[:n-2])
	case n > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
}

// trimDouble undoes consonant doubling ("debugg" -> "debug").
func trimDouble(w string) string {
	n := len(w)
	if n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// stopWords are words that carry no topic. Skill descriptions share a
// house style ("Use when the user asks ..."), so its words are here too.
var stopWords = set(`a about above after again all also am an and any are as at be because been
before being below between both but by can could did do does doing done down during each
either etc few for from further get gets got had has have having he her here hers him his
how i if in into is it its itself just let like make me more most my need needs no nor not
now of off on once only or other our ours out over own please same she should so some such
than that the their them then there these they this those through to too under until up
us very via was we were what when where which while who whom why will with within without
would you your yours use used uses using user users ask asks asked want wants skill skills
trigger triggers triggered e g i.e eg ie new help`)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
