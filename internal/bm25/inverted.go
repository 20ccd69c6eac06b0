package bm25

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"sort"
	"unsafe"
)

// Inverted is one BM25 field over a whole collection, kept by term: for
// each term, the documents that hold it and how often. It lives in its
// encoded form and is read in place: scoring a query looks up the query's
// terms only and decoding builds nothing, so a field with hundreds of terms
// per document (whole skill bodies) costs the prompt path almost nothing
// beyond reading its bytes.
//
// Layout (integers little-endian; checksums CRC-32C):
//
//	uint32 documents, uint32 terms, uint32 posting bytes, uint32 term bytes,
//	uint32 blocks
//	documents × uint32 length in terms
//	terms × uint32 end of the term in the term bytes
//	(terms + 1) × uint32 where the term's postings start in the posting bytes
//	blocks × { uint32 the term after the block's last, uint32 checksum of
//	           the block's postings }
//	term bytes: the sorted terms, concatenated
//	uint32 checksum of all the above
//	posting bytes: each term's postings in document order, each a uvarint
//	  of the document less the term's previous one (the first: the
//	  document) and a uvarint count; most take two bytes
//
// Damage is found where it is read: Parse checks everything but the
// postings (a few hundred kilobytes for 10,000 skill bodies), and a lookup
// checks the postings of the block of terms it reads, so a prompt checks
// only what it scores with, not the megabytes of postings it never
// touches. A block is up to blockTerms consecutive terms whose postings
// stay under blockBytes (or one term with more): a checksum per block
// instead of per term keeps a lookup's check small and saves ~3.5 bytes a
// term.
type Inverted struct {
	data                                 string
	nDocs, nTerms, nPost, nBytes, nBlock int // nPost: posting bytes
	lens, ends, starts, blocks, post     int // offsets of the sections in data
	terms                                int
	avgLen                               float64
}

// A block of terms checked together holds at most blockTerms terms, and
// another term only while its postings stay under blockBytes.
const (
	blockTerms = 16
	blockBytes = 4096
)

// castagnoli is the CRC-32C table: hardware CRC instructions make it about
// twice as fast as the IEEE polynomial here.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrDamaged marks a field whose bytes do not match their checksums.
var ErrDamaged = errors.New("damaged BM25 field")

// MaxDocuments is the most documents a field holds.
const MaxDocuments = 1<<31 - 1

var le = binary.LittleEndian

// NewInverted builds the field of a collection of documents, each given as
// its term counts; more than MaxDocuments documents is an error.
func NewInverted(docs []map[string]int) (*Inverted, error) {
	if len(docs) > MaxDocuments {
		return nil, fmt.Errorf("%d documents: at most %d fit a BM25 field", len(docs), MaxDocuments)
	}
	var c Collector
	for d, doc := range docs {
		c.Document(d)
		for t, n := range doc {
			c.Add(d, t, n)
		}
	}
	return c.Inverted()
}

// Collector gathers a field's postings a document at a time, in any
// order, holding eight bytes a posting and each term once: what a build of
// thousands of skill bodies needs instead of a map per document.
type Collector struct {
	ids   map[string]int // term -> index in terms
	terms []string
	post  [][]uint64 // per term: document << 32 | count
	lens  []uint32   // per document: its length in terms
}

// Document makes sure document d exists (a document may have no terms).
func (c *Collector) Document(d int) {
	for len(c.lens) <= d {
		c.lens = append(c.lens, 0)
	}
}

// Add records that term t occurs n times in document d.
func (c *Collector) Add(d int, t string, n int) {
	if c.ids == nil {
		c.ids = map[string]int{}
	}
	c.Document(d)
	id, ok := c.ids[t]
	if !ok {
		id = len(c.terms)
		c.ids[t] = id
		c.terms = append(c.terms, t)
		c.post = append(c.post, nil)
	}
	c.post[id] = append(c.post[id], uint64(d)<<32|uint64(uint32(n)))
	c.lens[d] += uint32(n)
}

// Inverted encodes the field.
func (c *Collector) Inverted() (*Inverted, error) {
	if len(c.lens) > MaxDocuments {
		return nil, fmt.Errorf("%d documents: at most %d fit a BM25 field", len(c.lens), MaxDocuments)
	}
	order := make([]int, len(c.terms))
	nBytes := 0
	for i, t := range c.terms {
		order[i] = i
		nBytes += len(t)
	}
	sort.Slice(order, func(a, b int) bool { return c.terms[order[a]] < c.terms[order[b]] })
	var post []byte
	starts := make([]uint32, 0, len(order)+1)
	for _, id := range order {
		starts = append(starts, uint32(len(post)))
		ps := c.post[id]
		slices.Sort(ps)
		prev := 0
		for _, p := range ps {
			d := int(p >> 32)
			post = binary.AppendUvarint(post, uint64(d-prev))
			post = binary.AppendUvarint(post, p&0xffffffff)
			prev = d
		}
	}
	starts = append(starts, uint32(len(post)))
	// Each block's end (the term after its last) and the checksum of its
	// postings.
	var blocks []uint32
	for first := 0; first < len(order); {
		end := first + 1
		for end < len(order) && end-first < blockTerms && starts[end+1]-starts[first] <= blockBytes {
			end++
		}
		blocks = append(blocks, uint32(end), crc32.Checksum(post[starts[first]:starts[end]], castagnoli))
		first = end
	}
	out := make([]byte, 0, 20+4*len(c.lens)+8*len(order)+4*len(blocks)+8+len(post)+nBytes)
	for _, n := range []int{len(c.lens), len(order), len(post), nBytes, len(blocks) / 2} {
		out = le.AppendUint32(out, uint32(n))
	}
	for _, n := range c.lens {
		out = le.AppendUint32(out, n)
	}
	end := 0
	for _, id := range order {
		end += len(c.terms[id])
		out = le.AppendUint32(out, uint32(end))
	}
	for _, st := range starts {
		out = le.AppendUint32(out, st)
	}
	for _, b := range blocks {
		out = le.AppendUint32(out, b)
	}
	for _, id := range order {
		out = append(out, c.terms[id]...)
	}
	out = le.AppendUint32(out, crc32.Checksum(out, castagnoli))
	out = append(out, post...)
	v := &Inverted{}
	if err := v.parse(string(out)); err != nil {
		return nil, err
	}
	return v, nil
}

// Len is the number of documents.
func (v *Inverted) Len() int { return v.nDocs }

func (v *Inverted) u32(section, i int) int { return u32At(v.data, section+4*i) }

// each calls fn with the document and count of each posting of term i, in
// document order; damaged postings end the walk.
func (v *Inverted) each(i int, fn func(doc, count int)) {
	from, to := v.u32(v.starts, i), v.u32(v.starts, i+1)
	if from > to || to > v.nPost {
		return
	}
	p := v.data[v.post+from : v.post+to]
	doc := 0
	for len(p) > 0 {
		delta, n := uvarint(p)
		if n <= 0 {
			return
		}
		count, m := uvarint(p[n:])
		if m <= 0 {
			return
		}
		p = p[n+m:]
		doc += delta
		if doc < 0 || doc >= v.nDocs {
			return
		}
		fn(doc, count)
	}
}

// uvarint reads a uvarint of at most 31 bits from s, returning it and its
// length (<= 0 when it is damaged).
func uvarint(s string) (int, int) {
	x := 0
	for i := 0; i < len(s) && i < 5; i++ {
		b := s[i]
		x |= int(b&0x7f) << (7 * i)
		if b < 0x80 {
			if x > 1<<31-1 {
				return 0, -1
			}
			return x, i + 1
		}
	}
	return 0, -1
}

// u32At reads the little-endian uint32 at s[at:].
func u32At(s string, at int) int {
	return int(s[at]) | int(s[at+1])<<8 | int(s[at+2])<<16 | int(s[at+3])<<24
}

// term returns the i-th term, or "" when its offsets are damaged.
func (v *Inverted) term(i int) string {
	from, to := 0, v.u32(v.ends, i)
	if i > 0 {
		from = v.u32(v.ends, i-1)
	}
	if from > to || to > v.nBytes {
		return ""
	}
	return v.data[v.terms+from : v.terms+to]
}

// find returns the number of term t, or -1.
func (v *Inverted) find(t string) int {
	i := sort.Search(v.nTerms, func(i int) bool { return v.term(i) >= t })
	if i < v.nTerms && v.term(i) == t {
		return i
	}
	return -1
}

// checkPostings checks the postings of the block holding term i against
// their checksum.
func (v *Inverted) checkPostings(i int) error {
	// The first block ending after i.
	b := sort.Search(v.nBlock, func(b int) bool { return v.u32(v.blocks, 2*b) > i })
	if b == v.nBlock {
		return fmt.Errorf("%w: term %d in no block", ErrDamaged, i)
	}
	first, end := 0, v.u32(v.blocks, 2*b)
	if b > 0 {
		first = v.u32(v.blocks, 2*b-2)
	}
	if first > i || end > v.nTerms {
		return fmt.Errorf("%w: block %d out of range", ErrDamaged, b)
	}
	from, to := v.u32(v.starts, first), v.u32(v.starts, end)
	if from > to || to > v.nPost {
		return fmt.Errorf("%w: postings of block %d out of range", ErrDamaged, b)
	}
	p := v.data[v.post+from : v.post+to]
	if crc32.Update(0, castagnoli, unsafe.Slice(unsafe.StringData(p), len(p))) != uint32(v.u32(v.blocks, 2*b+1)) {
		return fmt.Errorf("%w: postings of %q fail their checksum", ErrDamaged, v.term(i))
	}
	return nil
}

// DocumentsOf returns the documents holding term t, in order (none when the
// field does not have it); an error when its postings are damaged.
func (v *Inverted) DocumentsOf(t string) ([]int, error) {
	i := v.find(t)
	if i < 0 {
		return nil, nil
	}
	if err := v.checkPostings(i); err != nil {
		return nil, err
	}
	var docs []int
	v.each(i, func(d, _ int) { docs = append(docs, d) })
	return docs, nil
}

// AddScores adds weight × the BM25 score of every document for q to
// scores, which has one slot per document. It checks the postings it
// reads: damaged ones are an error.
func (v *Inverted) AddScores(q Query, weight float64, scores []float64) error {
	if v.avgLen == 0 || weight == 0 {
		return nil
	}
	n := float64(v.nDocs)
	for _, t := range q {
		i := v.find(t)
		if i < 0 {
			continue
		}
		if err := v.checkPostings(i); err != nil {
			return err
		}
		df := 0
		v.each(i, func(int, int) { df++ })
		w := weight * idf(n, float64(df))
		v.each(i, func(d, count int) {
			if d >= len(scores) {
				return
			}
			f := float64(count)
			norm := k1 * (1 - b + b*float64(v.u32(v.lens, d))/v.avgLen)
			scores[d] += w * f * (k1 + 1) / (f + norm)
		})
	}
	return nil
}

// Walk calls fn with every posting: each term, a document holding it and
// how often; for rebuilding a collection without a map per document.
func (v *Inverted) Walk(fn func(term string, doc, count int)) {
	for i := range v.nTerms {
		if t := v.term(i); t != "" {
			v.each(i, func(d, count int) { fn(t, d, count) })
		}
	}
}

// Documents returns each document's term counts: the inverse of
// NewInverted, for rebuilding a collection with some documents kept.
func (v *Inverted) Documents() []map[string]int {
	docs := make([]map[string]int, v.nDocs)
	for i := range docs {
		docs[i] = map[string]int{}
	}
	for i := range v.nTerms {
		t := v.term(i)
		if t == "" {
			continue
		}
		v.each(i, func(d, count int) { docs[d][t] = count })
	}
	return docs
}

// MarshalBinary returns the encoded field.
func (v *Inverted) MarshalBinary() ([]byte, error) {
	return []byte(v.data), nil
}

// errBadField is the error of a field that does not decode.
var errBadField = errors.New("bad BM25 field")

// UnmarshalBinary decodes a field written by MarshalBinary, as Parse does.
func (v *Inverted) UnmarshalBinary(data []byte) error {
	return v.parse(string(data))
}

// Parse takes an encoded field, which it keeps and reads in place (a
// substring of a larger read stays uncopied). It checks the sizes and
// every checksum but the postings', which lookups check (AddScores,
// DocumentsOf); Walk and Documents, for rebuilds from a file checked
// whole, do not.
func Parse(data string) (*Inverted, error) {
	v := &Inverted{}
	if err := v.parse(data); err != nil {
		return nil, err
	}
	return v, nil
}

func (v *Inverted) parse(data string) error {
	if len(data) < 20 {
		return fmt.Errorf("%w: %d bytes", errBadField, len(data))
	}
	nDocs, nTerms, nPost, nBytes, nBlock := u32At(data, 0), u32At(data, 4), u32At(data, 8), u32At(data, 12), u32At(data, 16)
	if nDocs > len(data) || nTerms > len(data) || nPost > len(data) || nBytes > len(data) || nBlock > nTerms ||
		20+4*nDocs+4*nTerms+4*(nTerms+1)+8*nBlock+nBytes+4+nPost != len(data) {
		return fmt.Errorf("%w: sizes do not add up", errBadField)
	}
	w := Inverted{data: data, nDocs: nDocs, nTerms: nTerms, nPost: nPost, nBytes: nBytes, nBlock: nBlock}
	w.lens = 20
	w.ends = w.lens + 4*nDocs
	w.starts = w.ends + 4*nTerms
	w.blocks = w.starts + 4*(nTerms+1)
	w.terms = w.blocks + 8*nBlock
	w.post = w.terms + nBytes + 4
	meta := data[:w.post-4]
	if crc32.Update(0, castagnoli, unsafe.Slice(unsafe.StringData(meta), len(meta))) != uint32(u32At(data, w.post-4)) {
		return fmt.Errorf("%w: checksum mismatch", ErrDamaged)
	}
	total := 0
	for d := range nDocs {
		total += w.u32(w.lens, d)
	}
	if nDocs > 0 {
		w.avgLen = float64(total) / float64(nDocs)
	}
	*v = w
	return nil
}
