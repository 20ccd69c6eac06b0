// Package vecfile reads and writes ski's index: a versioned, model-tagged
// file holding each skill's record, vector and BM25 terms.
//
// Layout (fixed-size numbers little-endian; n is a uvarint; a string is n
// and its bytes, a list is n strings; every checksum is a CRC-32C):
//
//	magic    "SKIVEC\n"
//	version  uint16
//	header   uint32 length + uint32 checksum + JSON Header
//	table    eight sections, each uint32 length + uint32 checksum + bytes:
//	  entry index  count × { uint32 end of the entry in the entries,
//	                         uint32 checksum of the entry }
//	  entries      count × { id, name, invoke, path, dir,
//	                         keywords, aliases, tags, affinity (lists),
//	                         byte flags (1 disable_model_invocation, 2 auto_inject,
//	                         4 not user_invocable, 8 invoke is the name (stored
//	                         empty), 16 dir is the path's folder (stored empty)) }
//	  vectors      count × Dim × binary16 (package quant)
//	  intents      n × { intent kind, concept text, Dim × float32 vector }
//	  keyworded    n + n × n: the entries with keywords, aliases or tags,
//	               each less the one before
//	  names        n × { uint32 hash of a name (nameHash), uint32 entry },
//	               sorted: each entry's names (mention.SkillNames)
//	  text         bm25.Inverted of the skills' text terms
//	  body         bm25.Inverted of the skills' whole bodies
//	records  uint32 length + uint32 checksum + the records,
//	         count × { uint32 length + JSON record.Skill } compressed by
//	         a RecordCodec (package indexfile's: one zstd frame)
//
// The table holds everything ranking reads, in binary, so that
// ReadRanking, which every prompt runs, reads the header and the table and
// no further: no JSON, and terms and names cut from one string instead of
// allocated one by one. The full records are read by Read, to rebuild an
// index; their compression is a RecordCodec the caller passes (package
// indexfile passes zstd), so a program that reads only what ranking needs
// links no compressor: zstd's package start-up alone costs ~0.16 ms.
//
// Version 2 added the BM25 statistics and each skill's term counts; version
// 3 moved what ranking reads into the table and dropped compression (v2
// compressed it all with zstd and kept each skill as JSON, which made
// ski-rank spend ~8 ms reading the index, and zstd's package start-up alone
// cost every stage linking it ~0.25 ms). Version 4 added the body field
// and compresses the records, which only a rebuild reads, with zstd again:
// the body field holds the terms of each skill's whole SKILL.md body, kept
// by term and read in place (bm25.Inverted), so a prompt touches only its
// own terms' postings. Version 5 keeps the text field (the terms of the
// embedded text) the same way instead of as a table of document
// frequencies and each entry's term counts, which ski-rank turned into
// ~200 maps on every prompt. Version 6 moved the intents' concepts (a
// text and a query vector each) from the JSON header into the table.
// Version 7 checksums the header too, so that a byte flipped anywhere in
// the file is found, keeps the vectors as half-precision floats in one
// block after the entries, and
// stores the BM25 fields' postings as varints: an index of 10,000 skills
// is about half the size, and ranking reads the vectors in place. Version
// 8 splits the table into sections with a checksum each, indexes the
// entries and keeps the names skills are mentioned by, so that ranking
// decodes only the entries it keeps and checks only the bytes it reads
// (the BM25 fields check each term's postings as it is looked up): with
// 10,000 skills, checking the whole 17 MB table and decoding every entry
// had cost ~3.5 ms of a ~6 ms ranking. Version 9 keeps a hash of each
// name instead of the name (a lookup confirms it on the entries, which
// hold the names anyway) and one checksum per block of BM25 terms instead
// of per term: 0.5 MB less for 10,000 skills.
package vecfile

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/mention"
	"github.com/skill-inject/ski/internal/quant"
	"github.com/skill-inject/ski/internal/record"
)

// Version is the current file format version.
const Version = 9

const magic = "SKIVEC\n"

// maxHeader and maxSection bound what a corrupt length can make the reader
// allocate.
const (
	maxHeader  = 4 << 20
	maxSection = 1 << 30
)

// ErrCorrupt marks a file that is not a readable index of this version.
var ErrCorrupt = errors.New("not a valid ski index")

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
	Background *judge.Background `json:"background,omitempty"`
	// Intents holds, per intent kind (package intent), the text that stands
	// for what such a prompt needs and its query vector; rank boosts the
	// skills closest to it when a prompt has that intent.
	// They are stored in the table (ReadHeader leaves them out): as JSON
	// their vectors made every header read parse hundreds of numbers.
	Intents map[string]Concept `json:"-"`
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
// (as mention.Key; see mention.SkillNames); an error when that part of
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
		if slices.Contains(mention.SkillNames(sk.Name, sk.Invoke, sk.ID), name) {
			out = append(out, i)
		}
	}
	return out, nil
}

// namesSection is the names section of entries: the hash of each of an
// entry's names and the entry, sorted.
func namesSection(entries []Entry) []byte {
	var pairs []uint64
	for i, e := range entries {
		for _, k := range mention.SkillNames(e.Skill.Name, e.Skill.Invoke, e.Skill.ID) {
			pairs = append(pairs, uint64(nameHash(k))<<32|uint64(i))
		}
	}
	slices.Sort(pairs)
	pairs = slices.Compact(pairs) // two names of one entry with one hash
	b := make([]byte, 0, 8*len(pairs))
	for _, p := range pairs {
		b = binary.LittleEndian.AppendUint32(b, uint32(p>>32))
		b = binary.LittleEndian.AppendUint32(b, uint32(p))
	}
	return b
}

// nameHash is the 32-bit FNV-1a hash of a name.
func nameHash(name string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return h
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

// part says how much of a file to decode.
type part int

const (
	headerOnly  part = iota
	ranking          // the header and the table
	verified         // and the records' checksum, not decompressed
	whole            // and the records
	rankingCopy      // ranking, from a copy of the file (readFile only)
)

// RecordCodec compresses the records section, which only a rebuild reads.
type RecordCodec interface {
	Compress(plain []byte) ([]byte, error)
	// Decompress returns the records; an error means a corrupt section.
	Decompress(packed string) (string, error)
}

// Read loads the whole index at path, its records decompressed by rc. A
// file that is not an index, is cut short, or is of another version yields
// an error wrapping ErrCorrupt.
func Read(path string, rc RecordCodec) (*Index, error) {
	return readFile(path, whole, rc)
}

// ReadRanking loads what ranking reads of the index at path: the header,
// the BM25 statistics and every entry's vector and terms, with only these
// fields of its Skill: ID, Name, Invoke, Path, Dir, Keywords, Aliases,
// Tags, Affinity, DisableModelInvocation, AutoInject and UserInvocable.
func ReadRanking(path string) (*Index, error) {
	return readFile(path, ranking, nil)
}

// LoadRanking is ReadRanking from a copy of the file in memory instead of
// a mapping of it, for a long-lived process that drops the indexes it no
// longer needs (the embed server): a mapping is never undone.
func LoadRanking(path string) (*Index, error) {
	return readFile(path, rankingCopy, nil)
}

// Verify reads the whole index at path and checks every checksum and that
// the table matches the header, without decompressing the records: what
// a damaged file fails.
func Verify(path string) error {
	_, err := readFile(path, verified, nil)
	return err
}

// ReadHeader reads only the header of the index at path (and checks its
// magic, version and checksum), for callers that need to know which model
// built it.
func ReadHeader(path string) (Header, error) {
	idx, err := readFile(path, headerOnly, nil)
	if err != nil {
		return Header{}, err
	}
	return idx.Header, nil
}

func readFile(path string, upto part, rc RecordCodec) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	defer f.Close()
	var data string
	switch upto {
	case headerOnly:
		data, err = readPrefix(f)
	case ranking, verified:
		data, err = mapFile(f, upto == verified)
	default:
		data, err = readAll(f)
		if upto == rankingCopy {
			upto = ranking // decoded as if mapped
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read index %s: %w", path, err)
	}
	idx, err := decode(data, upto, rc)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) {
			err = fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	return idx, nil
}

// readAll reads f whole into a string of its own, allocated once at the
// file's size (a copy of a 10,000-skill index is 20 MB). ski replaces an
// index by renaming a new file over it, so a file that changes size as it
// is read is damage: a short read is an error, a longer file fails the
// checks of what was read.
func readAll(f *os.File) (string, error) {
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return "", err
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// prefixLen is the length of the magic, the version and the header's size
// and checksum.
const prefixLen = len(magic) + 2 + 8

// readPrefix reads the magic, version and header of an index, and no more.
func readPrefix(r io.Reader) (string, error) {
	b := make([]byte, prefixLen)
	if n, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return string(b[:n]), nil // too short: decode says what is wrong
		}
		return "", err
	}
	size := binary.LittleEndian.Uint32(b[prefixLen-8:])
	if size > maxHeader {
		return string(b), nil
	}
	b = append(b, make([]byte, size)...)
	n, err := io.ReadFull(r, b[prefixLen:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	return string(b[:prefixLen+n]), nil
}

// decode reads an index from data up to the given part, and no further
// (the records, decompressed by rc, only for the whole). The entries'
// strings are substrings of data.
func decode(data string, upto part, rc RecordCodec) (*Index, error) {
	c := &cursor{s: data}
	if c.take(len(magic)) != magic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	if v := c.take(2); len(v) < 2 || binary.LittleEndian.Uint16([]byte(v)) != Version {
		got := -1
		if len(v) == 2 {
			got = int(binary.LittleEndian.Uint16([]byte(v)))
		}
		return nil, fmt.Errorf("%w: version %d, want %d", ErrCorrupt, got, Version)
	}
	idx := &Index{}
	if err := decodeHeader(c, &idx.Header); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if upto == headerOnly {
		return idx, nil
	}
	if err := decodeTable(c, idx, upto == ranking); err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	if upto == ranking {
		return idx, nil
	}
	packed, err := c.checked()
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	if upto == verified {
		if len(c.s) > 0 {
			return nil, fmt.Errorf("%w: trailing data", ErrCorrupt)
		}
		return idx, nil
	}
	recs, err := rc.Decompress(packed)
	if err != nil {
		return nil, fmt.Errorf("records: %w: %v", ErrCorrupt, err)
	}
	if err := decodeRecords(recs, idx); err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	if len(c.s) > 0 {
		return nil, fmt.Errorf("%w: trailing data", ErrCorrupt)
	}
	return idx, nil
}

func decodeHeader(c *cursor, h *Header) error {
	b, err := c.checked()
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(b), h); err != nil {
		return err
	}
	if h.Dim <= 0 || h.Dim > 8192 || h.Count < 0 || h.Count > 1_000_000 {
		return fmt.Errorf("%w: implausible dim=%d count=%d", ErrCorrupt, h.Dim, h.Count)
	}
	return nil
}

// The table's sections, in order.
const (
	secEntryIndex = iota
	secEntries
	secVectors
	secIntents
	secKeyworded
	secNames
	secText
	secBody
	sections
)

var sectionNames = [sections]string{"entry index", "entries", "vectors", "intents", "keyworded", "names", "text field", "body field"}

// decodeTable reads the table's sections from c. Lazily (for ranking) it
// checks the small sections it reads whole and leaves the entries, each
// checked when decoded, the vectors, checked by Cosines, and the BM25
// fields, which check what they read; else it
// checks every section and decodes every entry. Names, terms and vectors
// stay substrings of the file.
func decodeTable(c *cursor, idx *Index, lazy bool) error {
	var sec [sections]string
	for i := range sec {
		n, sum := c.u32(), c.u32()
		b := c.take(int(n))
		if c.bad {
			return fmt.Errorf("%s: %w", sectionNames[i], io.ErrUnexpectedEOF)
		}
		partly := i == secEntries || i == secVectors || i >= secText
		if (!lazy || !partly) && checksum(b) != sum {
			return fmt.Errorf("%w: %s: checksum mismatch", ErrCorrupt, sectionNames[i])
		}
		if i == secVectors {
			idx.vectorsSum = sum
		}
		sec[i] = b
	}
	count, dim := idx.Header.Count, idx.Header.Dim
	if len(sec[secEntryIndex]) != 8*count {
		return fmt.Errorf("%w: entry index of %d bytes for %d entries", ErrCorrupt, len(sec[secEntryIndex]), count)
	}
	if len(sec[secVectors]) != 2*dim*count {
		return fmt.Errorf("%w: %d bytes of vectors for %d of %d dims", ErrCorrupt, len(sec[secVectors]), count, dim)
	}
	idx.quant = sec[secVectors]
	idx.entryIndex, idx.entries = sec[secEntryIndex], sec[secEntries]
	if count > 0 && int(le32(idx.entryIndex, 8*(count-1))) != len(idx.entries) {
		return fmt.Errorf("%w: the entry index does not end with the entries", ErrCorrupt)
	}
	if err := decodeIntents(sec[secIntents], idx); err != nil {
		return err
	}
	var err error
	if idx.keyworded, err = decodeKeyworded(sec[secKeyworded], count); err != nil {
		return err
	}
	if len(sec[secNames])%8 != 0 {
		return fmt.Errorf("%w: names section of %d bytes", ErrCorrupt, len(sec[secNames]))
	}
	idx.names = sec[secNames]
	for _, f := range []struct {
		to  **bm25.Inverted
		sec int
	}{{&idx.Text, secText}, {&idx.Body, secBody}} {
		if *f.to, err = field(sec[f.sec], sectionNames[f.sec], count); err != nil {
			return err
		}
	}
	idx.lazy = true
	if lazy {
		return nil
	}
	idx.Entries = make([]Entry, count)
	for i := range idx.Entries {
		if idx.Entries[i].Skill, err = idx.Skill(i); err != nil {
			return err
		}
	}
	idx.lazy, idx.entryIndex, idx.entries, idx.keyworded, idx.names, idx.vectorsSum = false, "", "", nil, "", 0
	return nil
}

// decodeEntry reads one entry of the entries section.
func decodeEntry(c *cursor) record.Skill {
	var sk record.Skill
	sk.ID, sk.Name, sk.Invoke, sk.Path, sk.Dir = c.str(), c.str(), c.str(), c.str(), c.str()
	sk.Keywords, sk.Aliases, sk.Tags, sk.Affinity = c.list(), c.list(), c.list(), c.list()
	flags := c.u8()
	sk.DisableModelInvocation, sk.AutoInject = flags&1 != 0, flags&2 != 0
	// Set when a skill is not user-invocable, so that the default reads
	// as user-invocable.
	sk.UserInvocable = flags&4 == 0
	if flags&8 != 0 {
		sk.Invoke = sk.Name
	}
	if flags&16 != 0 {
		sk.Dir = pathDir(sk.Path)
	}
	return sk
}

// decodeIntents reads the intents section.
func decodeIntents(b string, idx *Index) error {
	c := &cursor{s: b}
	dim := idx.Header.Dim
	if n := c.n(); n > len(c.s)/(4*dim) {
		return fmt.Errorf("intents: %d do not fit in %d bytes", n, len(c.s))
	} else if n > 0 {
		idx.Header.Intents = make(map[string]Concept, n)
		for range n {
			kind, text := c.str(), c.str()
			v := make([]float32, dim)
			if raw := c.take(4 * dim); len(raw) == 4*dim {
				embed.DecodeVector(v, raw)
			}
			idx.Header.Intents[kind] = Concept{Text: text, Vector: v}
		}
	}
	if c.bad || len(c.s) > 0 {
		return errors.New("intents: cut short or trailing data")
	}
	return nil
}

// decodeKeyworded reads the keyworded section: increasing entry numbers
// below count.
func decodeKeyworded(b string, count int) ([]int, error) {
	c := &cursor{s: b}
	n := c.n()
	var out []int
	if n > 0 {
		out = make([]int, 0, n)
	}
	prev := -1
	for range n {
		d := c.uvarint()
		if c.bad || d >= uint64(count) || prev+1+int(d) >= count {
			return nil, fmt.Errorf("%w: keyworded entries out of range", ErrCorrupt)
		}
		i := prev + 1 + int(d)
		if i >= count {
			return nil, fmt.Errorf("%w: keyworded entries out of range", ErrCorrupt)
		}
		out = append(out, i)
		prev = i
	}
	if c.bad || len(c.s) > 0 {
		return nil, fmt.Errorf("%w: keyworded entries cut short or trailing data", ErrCorrupt)
	}
	return out, nil
}

// field reads a BM25 field of n documents, in place.
func field(data, name string, n int) (*bm25.Inverted, error) {
	f, err := bm25.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, name, err)
	}
	if f.Len() != n {
		return nil, fmt.Errorf("%w: %s has %d documents for %d entries", ErrCorrupt, name, f.Len(), n)
	}
	return f, nil
}

// decodeRecords reads the full skill records over the table's part of them.
func decodeRecords(recs string, idx *Index) error {
	c := &cursor{s: recs}
	for i := range idx.Entries {
		var sk record.Skill
		rec := c.take(int(c.u32()))
		if c.bad {
			return fmt.Errorf("skill %d: %w", i, io.ErrUnexpectedEOF)
		}
		if err := json.Unmarshal([]byte(rec), &sk); err != nil {
			return fmt.Errorf("skill %d: %w", i, err)
		}
		if id := idx.Entries[i].Skill.ID; sk.ID != id {
			return fmt.Errorf("skill %d: record of %q, table says %q", i, sk.ID, id)
		}
		idx.Entries[i].Skill = sk
		dim := idx.Header.Dim
		idx.Entries[i].Vector = quant.Expand(idx.quant[2*i*dim : 2*(i+1)*dim])
	}
	for i, terms := range idx.Text.Documents() {
		idx.Entries[i].Terms = terms
	}
	if len(c.s) > 0 {
		return errors.New("trailing data")
	}
	return nil
}

// Write stores idx at path atomically, its records compressed by rc: a
// temporary file in the same directory, synced, then renamed over the old
// one.
func Write(path string, idx *Index, rc RecordCodec) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create index dir: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".index-*.tmp")
	if err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := Encode(tmp, idx, rc); err != nil {
		tmp.Close()
		return fmt.Errorf("write index: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync index: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close index: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("install index: %w", err)
	}
	return nil
}

// Encode writes idx to w, its records compressed by rc. Header.Count is set
// from the entries.
func Encode(w io.Writer, idx *Index, rc RecordCodec) error {
	idx.Header.Count = len(idx.Entries)
	for i, e := range idx.Entries {
		if len(e.Vector) != idx.Header.Dim {
			return fmt.Errorf("entry %d (%s): vector has %d dims, header says %d", i, e.Skill.ID, len(e.Vector), idx.Header.Dim)
		}
	}
	head, err := json.Marshal(idx.Header)
	if err != nil {
		return err
	}
	var recs []byte
	for _, e := range idx.Entries {
		b, err := json.Marshal(e.Skill)
		if err != nil {
			return err
		}
		recs = appendSection(recs, b)
	}
	out := append([]byte(magic), 0, 0)
	binary.LittleEndian.PutUint16(out[len(magic):], Version)
	out = appendChecked(out, head)
	out, err = appendTable(out, idx)
	if err != nil {
		return err
	}
	packed, err := rc.Compress(recs)
	if err != nil {
		return fmt.Errorf("compress records: %w", err)
	}
	out = appendChecked(out, packed)
	_, err = w.Write(out)
	return err
}

// appendTable appends the table of idx: its sections, each checked (the
// BM25 fields' terms sorted, so that equal indexes are equal files).
func appendTable(b []byte, idx *Index) ([]byte, error) {
	var sec [sections][]byte
	// The entries, and the index of each one's end and checksum.
	from := 0
	var ents []byte
	for _, e := range idx.Entries {
		ents = appendEntry(ents, e.Skill)
		sec[secEntryIndex] = binary.LittleEndian.AppendUint32(sec[secEntryIndex], uint32(len(ents)))
		sec[secEntryIndex] = binary.LittleEndian.AppendUint32(sec[secEntryIndex], crc32.Checksum(ents[from:], castagnoli))
		from = len(ents)
	}
	sec[secEntries] = ents
	for _, e := range idx.Entries {
		sec[secVectors] = append(sec[secVectors], quant.Half(e.Vector)...)
	}
	kinds := make([]string, 0, len(idx.Header.Intents))
	for k := range idx.Header.Intents {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	sec[secIntents] = binary.AppendUvarint(nil, uint64(len(kinds)))
	for _, k := range kinds {
		c := idx.Header.Intents[k]
		if len(c.Vector) != idx.Header.Dim {
			return nil, fmt.Errorf("intent %s: vector has %d dims, header says %d", k, len(c.Vector), idx.Header.Dim)
		}
		sec[secIntents] = appendStr(appendStr(sec[secIntents], k), c.Text)
		sec[secIntents] = embed.AppendVector(sec[secIntents], c.Vector)
	}
	kw := keyworded(idx.Entries)
	sec[secKeyworded] = binary.AppendUvarint(nil, uint64(len(kw)))
	prev := -1
	for _, i := range kw {
		sec[secKeyworded] = binary.AppendUvarint(sec[secKeyworded], uint64(i-prev-1))
		prev = i
	}
	sec[secNames] = namesSection(idx.Entries)
	text, err := termsField(idx.Entries)
	if err != nil {
		return nil, err
	}
	body := idx.Body
	if body == nil {
		if body, err = bm25.NewInverted(make([]map[string]int, len(idx.Entries))); err != nil {
			return nil, err
		}
	}
	if body.Len() != len(idx.Entries) {
		return nil, fmt.Errorf("body field has %d documents for %d entries", body.Len(), len(idx.Entries))
	}
	for i, f := range map[int]*bm25.Inverted{secText: text, secBody: body} {
		if sec[i], err = f.MarshalBinary(); err != nil {
			return nil, err
		}
	}
	for _, data := range sec {
		b = appendChecked(b, data)
	}
	return b, nil
}

// appendEntry appends one entry of the entries section.
func appendEntry(b []byte, sk record.Skill) []byte {
	// An invoke name equal to the name, and a folder that is the path's
	// own, are flagged rather than stored twice.
	invoke, dir := sk.Invoke, sk.Dir
	sameInvoke := invoke == sk.Name
	sameDir := dir != "" && dir == pathDir(sk.Path)
	if sameInvoke {
		invoke = ""
	}
	if sameDir {
		dir = ""
	}
	for _, v := range []string{sk.ID, sk.Name, invoke, sk.Path, dir} {
		b = appendStr(b, v)
	}
	for _, l := range [][]string{sk.Keywords, sk.Aliases, sk.Tags, sk.Affinity} {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, v := range l {
			b = appendStr(b, v)
		}
	}
	var flags byte
	if sk.DisableModelInvocation {
		flags |= 1
	}
	if sk.AutoInject {
		flags |= 2
	}
	if !sk.UserInvocable {
		flags |= 4
	}
	if sameInvoke {
		flags |= 8
	}
	if sameDir {
		flags |= 16
	}
	return append(b, flags)
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendSection appends a uint32 length and data.
func appendSection(b, data []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(b, uint32(len(data))), data...)
}

// appendChecked appends a uint32 length, the checksum of data and data.
func appendChecked(b, data []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(binary.LittleEndian.AppendUint32(b, crc32.Checksum(data, castagnoli)), data...)
}

// castagnoli is the CRC-32C table: hardware CRC instructions make it about
// twice as fast as the IEEE polynomial here.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the CRC-32C of s, read in place.
func checksum(s string) uint32 {
	return crc32.Checksum(unsafe.Slice(unsafe.StringData(s), len(s)), castagnoli)
}

// le32 reads the little-endian uint32 at s[at:].
func le32(s string, at int) uint32 {
	return uint32(s[at]) | uint32(s[at+1])<<8 | uint32(s[at+2])<<16 | uint32(s[at+3])<<24
}

// cursor reads a table front to back. Reading past the end, or a count
// larger than what is left, marks it bad and yields zero values from then
// on, so callers check bad once per item.
type cursor struct {
	s   string
	bad bool
}

func (c *cursor) take(n int) string {
	if c.bad || n < 0 || n > len(c.s) {
		c.bad = true
		return ""
	}
	v := c.s[:n]
	c.s = c.s[n:]
	return v
}

func (c *cursor) u8() byte {
	if b := c.take(1); len(b) == 1 {
		return b[0]
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if b := c.take(4); len(b) == 4 {
		return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	}
	return 0
}

// uvarint reads an unsigned varint.
func (c *cursor) uvarint() uint64 {
	var x uint64
	for i, shift := 0, uint(0); i < len(c.s) && i < binary.MaxVarintLen64; i, shift = i+1, shift+7 {
		b := c.s[i]
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			c.s = c.s[i+1:]
			return x
		}
	}
	c.bad = true
	return 0
}

// n reads a count of items or bytes, which cannot exceed the bytes left.
func (c *cursor) n() int {
	x := c.uvarint()
	if x > uint64(len(c.s)) {
		c.bad = true
		return 0
	}
	return int(x)
}

func (c *cursor) str() string { return c.take(c.n()) }

// checked reads what appendChecked wrote, checking its sum.
func (c *cursor) checked() (string, error) {
	n, sum := c.u32(), c.u32()
	if n > maxSection {
		return "", fmt.Errorf("%w: section of %d bytes", ErrCorrupt, n)
	}
	b := c.take(int(n))
	if c.bad {
		return "", io.ErrUnexpectedEOF
	}
	if checksum(b) != sum {
		return "", fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	return b, nil
}

func (c *cursor) list() []string {
	n := c.n()
	if n == 0 {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = c.str()
	}
	return l
}

// pathDir is the folder part of a path (a substring: no copy), or "".
func pathDir(path string) string {
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		return path[:i]
	}
	return ""
}
