// Package bm25 is ski's lexical scorer: Okapi BM25 over the text that stands
// for each skill and over its whole body. Each field is built when the index
// is and stored in it by term (Inverted), so scoring a prompt reads the
// postings of the prompt's own terms and nothing else.
package bm25

import (
	"math"
	"strings"
	"unicode"
)

// BM25 parameters: the usual defaults.
const (
	k1 = 1.2
	b  = 0.75
)

// stopWords are English function words and verbs of request that carry no
// topic ("can you make a ..."). They are dropped from documents and queries.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on for with by from at as is are was were be been
		this that these those it its into via your you we our us i me my can could do does did how what when where which
		who why use using used make get set new just not no all any some more most than then there their them they
		will would should about also only one two over under out up please want need let so if`) {
		stopWords[w] = true
	}
}

// Tokenize splits text into lower-case terms: runs of letters and digits,
// keeping inner '+', '#' and '.' (c++, c#, next.js), without stop words and
// one-character terms.
func Tokenize(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '#' && r != '.'
	}) {
		f = strings.TrimLeft(strings.TrimRight(f, "."), ".+#")
		if len(f) < 2 || stopWords[f] {
			continue
		}
		out = append(out, Stem(f))
	}
	return out
}

// Stem folds the common English inflections of a lower-case word onto one
// term, so "tests", "testing" and "tested" all match "test": plurals, -ing
// and -ed, with a doubled final consonant undone ("running" -> "run"). It
// leaves short words and words with non-letters alone; it is no full
// stemmer, only enough that a prompt's and a skill's wording meet.
func Stem(w string) string {
	if len(w) < 4 || strings.ContainsFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		return undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		return undouble(w[:len(w)-2])
	}
	return w
}

// undouble drops the second of two equal final consonants ("runn" -> "run")
// except for l, s and z ("install", "pass", "buzz").
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// Terms counts the terms of a document.
func Terms(text string) map[string]int {
	tf := map[string]int{}
	for _, t := range Tokenize(text) {
		tf[t]++
	}
	return tf
}

// idf is BM25's inverse document frequency, kept positive.
func idf(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

// Query is a prompt's distinct terms.
type Query []string

// NewQuery tokenizes a prompt into its distinct terms.
func NewQuery(text string) Query {
	seen := map[string]bool{}
	var q Query
	for _, t := range Tokenize(text) {
		if !seen[t] {
			seen[t] = true
			q = append(q, t)
		}
	}
	return q
}
