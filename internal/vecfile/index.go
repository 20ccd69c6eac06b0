package vecfile

import (
	"fmt"
	"hash/crc32"
	"slices"
	"sort"
	"unsafe"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/quant"
	"github.com/skill-inject/ski/internal/record"
)

// Header describes the whole file.
type Header struct {
	Model    string   `json:"model"`
	Embedder string   `json:"embedder"` // backend that built it: lexical, onnx
	Dim      int      `json:"dim"`
	Count    int      `json:"count"`
	Host     string   `json:"host,omitempty"`
	Roots    []string `json:"roots,omitempty"`
	Created  string   `json:"created"`
	// Text names the rules that turned skills into the embedded text;
	// vectors made under other rules are not reused.
	Text string `json:"text"`
	// Stamp is scan.Stamp of the skills the index was built from, when it
	// was built from a scan; equal stamps let a refresh skip the scan.
	Stamp string `json:"stamp,omitempty"`
	// Background is where the catalog's best scores fall for generic
	// prompts, which the judge reads scores against; absent in indexes
	// built before there was a judge.
	Background *Background `json:"background,omitempty"`
	// Intents holds, per intent kind (package intent), the text that stands
	// for what such a prompt needs and its query vector; rank boosts the
	// skills closest to it when a prompt has that intent.
	// They are stored in the table (ReadHeader leaves them out): as JSON
	// their vectors made every header read parse hundreds of numbers.
	Intents map[string]Concept `json:"-"`
}

// Background is where a catalog's best score falls for generic prompts:
// its median and 90th percentile, and the ranking weights they were
// measured under. The judge (package judge) reads scores against it; the
// file keeps it as it is given.
type Background struct {
	Q50     float64 `json:"q50"`
	Q90     float64 `json:"q90"`
	Scoring string  `json:"scoring,omitempty"`
}

// Concept is a text and its query vector.
type Concept struct {
	Text   string    `json:"text"`
	Vector []float32 `json:"vector"`
}

// Entry is one skill, its vector and the term counts of its text (none
// from ReadRanking, which leaves them in the Index: see Len, Skill and
// Cosine).
type Entry struct {
	Skill  record.Skill
	Vector []float32
	Terms  map[string]int
}

// Index is a whole file in memory.
type Index struct {
	Header  Header
	Entries []Entry
	// Text is the BM25 field of the entries' terms, document i being
	// Entries[i]. Encode builds it from the entries' Terms; decoding sets
	// it (and Read also sets each entry's Terms from it).
	Text *bm25.Inverted
	// Body is the BM25 field of the skills' whole bodies, document i being
	// Entries[i]; nil writes an empty field.
	Body *bm25.Inverted

	// The vectors as stored, Dim binary16s each, set by decoding (or
	// Quantize).
	quant string

	// Set by ReadRanking, which leaves Entries empty and decodes an entry
	// when it is asked for (Skill).
	lazy       bool
	entryIndex string // the entry index section
	entries    string // the entries section
	keyworded  []int
	// The names section; built on first use for an index in memory.
	names     string
	namesMade bool
	// The skill records alone, set by ReadSkills (Entries stays empty).
	records []record.Skill
	// The vectors' checksum, checked by Cosines.
	vectorsSum     uint32
	vectorsChecked bool
}

// Len is the number of entries.
func (idx *Index) Len() int {
	if idx.lazy {
		return idx.Header.Count
	}
	return len(idx.Entries)
}

// Skill returns entry i's skill: from ReadRanking, only the fields ranking
// reads (see ReadRanking), decoded and checked now.
func (idx *Index) Skill(i int) (record.Skill, error) {
	if !idx.lazy {
		return idx.Entries[i].Skill, nil
	}
	from := 0
	if i > 0 {
		from = int(le32(idx.entryIndex, 8*(i-1)))
	}
	to, sum := int(le32(idx.entryIndex, 8*i)), le32(idx.entryIndex, 8*i+4)
	if from > to || to > len(idx.entries) {
		return record.Skill{}, fmt.Errorf("%w: entry %d out of range", ErrCorrupt, i)
	}
	b := idx.entries[from:to]
	if checksum(b) != sum {
		return record.Skill{}, fmt.Errorf("%w: entry %d fails its checksum", ErrCorrupt, i)
	}
	c := &cursor{s: b}
	sk := decodeEntry(c)
	if c.bad || len(c.s) > 0 {
		return record.Skill{}, fmt.Errorf("%w: entry %d does not decode", ErrCorrupt, i)
	}
	return sk, nil
}

// Keyworded lists, in order, the entries that have keywords, aliases or
// tags.
func (idx *Index) Keyworded() []int {
	if idx.lazy {
		return idx.keyworded
	}
	return keyworded(idx.Entries)
}

func keyworded(entries []Entry) []int {
	var out []int
	for i, e := range entries {
		if len(e.Skill.Keywords)+len(e.Skill.Aliases)+len(e.Skill.Tags) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// Mentioned returns, in order, the entries a prompt can mention by name
// (as record.NameKey; see record.MentionKeys); an error when that part of
// the index is damaged.
func (idx *Index) Mentioned(name string) ([]int, error) {
	if !idx.lazy && !idx.namesMade {
		idx.names, idx.namesMade = string(namesSection(idx.Entries)), true
	}
	h := nameHash(name)
	n := len(idx.names) / 8
	at := sort.Search(n, func(i int) bool { return le32(idx.names, 8*i) >= h })
	var out []int
	for ; at < n && le32(idx.names, 8*at) == h; at++ {
		i := int(le32(idx.names, 8*at+4))
		if i >= idx.Len() {
			return nil, fmt.Errorf("%w: names: entry %d out of range", ErrCorrupt, i)
		}
		sk, err := idx.Skill(i)
		if err != nil {
			return nil, err
		}
		// The hash may be another name's.
		if slices.Contains(record.MentionKeys(sk.Name, sk.Invoke, sk.ID), name) {
			out = append(out, i)
		}
	}
	return out, nil
}

// Quantize stores the entries' vectors as a file does, so that Cosine
// answers as it does for a file read (for indexes made in memory).
func (idx *Index) Quantize() {
	var b []byte
	for _, e := range idx.Entries {
		b = append(b, quant.Half(e.Vector)...)
	}
	idx.quant = string(b)
}

// Cosine returns the cosine of entry i's vector and the unit vector q:
// from the stored half floats when the index has them, else from
// Entries[i].Vector.
func (idx *Index) Cosine(i int, q []float32) float64 {
	if idx.quant == "" {
		return embed.Dot(q, idx.Entries[i].Vector)
	}
	dim := idx.Header.Dim
	return quant.Dot(q, idx.quant[2*i*dim:2*(i+1)*dim])
}

// cosineChunk is how many vectors Cosines checks, then reads, at a time:
// few enough that the checksum leaves them in the first-level cache for
// the dot products.
const cosineChunk = 32

// Cosines sets out[i] to the cosine of entry i's vector and the unit
// vector q, for every entry. From ReadRanking, it checks the vectors'
// checksum on the way (the first time), chunk by chunk, so each vector is
// read from memory once: damaged vectors are an error.
func (idx *Index) Cosines(q []float32, out []float64) error {
	if !idx.lazy || idx.vectorsChecked {
		for i := range out {
			out[i] = idx.Cosine(i, q)
		}
		return nil
	}
	var sum uint32
	size := 2 * idx.Header.Dim
	for from := 0; from < len(out); from += cosineChunk {
		to := min(from+cosineChunk, len(out))
		chunk := idx.quant[from*size : to*size]
		sum = crc32.Update(sum, castagnoli, unsafe.Slice(unsafe.StringData(chunk), len(chunk)))
		for i := from; i < to; i++ {
			out[i] = idx.Cosine(i, q)
		}
	}
	if len(out) != idx.Len() || sum != idx.vectorsSum {
		return fmt.Errorf("%w: vectors: checksum mismatch", ErrCorrupt)
	}
	idx.vectorsChecked = true
	return nil
}

// TextField returns the text BM25 field: as decoded, or, for an index
// made in memory (index.Build), built from the entries' Terms.
func (idx *Index) TextField() (*bm25.Inverted, error) {
	if idx.Text != nil {
		return idx.Text, nil
	}
	return termsField(idx.Entries)
}

// termsField builds the text BM25 field from the entries' Terms.
func termsField(entries []Entry) (*bm25.Inverted, error) {
	terms := make([]map[string]int, len(entries))
	for i, e := range entries {
		terms[i] = e.Terms
	}
	return bm25.NewInverted(terms)
}
