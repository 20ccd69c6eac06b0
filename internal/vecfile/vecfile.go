// Package vecfile reads and writes ski's index: a versioned, model-tagged
// file holding each skill's record, vector and BM25 terms.
//
// Layout (fixed-size numbers little-endian; n is a uvarint; a string is n
// and its bytes, a list is n strings):
//
//	magic    "SKIVEC\n"
//	version  uint16
//	header   uint32 length + uint32 CRC-32 of the header + JSON Header
//	table    uint32 length + uint32 CRC-32 (IEEE) of the table + the table:
//	           count × { id, name, invoke, path, dir,
//	                     keywords, aliases, tags, affinity (lists),
//	                     byte flags (1 disable_model_invocation, 2 auto_inject,
//	                     4 not user_invocable, 8 invoke is the name (stored
//	                     empty), 16 dir is the path's folder (stored empty)) }
//	           count × Dim × binary16: the vectors (package quant)
//	           n × { intent kind, concept text, Dim × float32 vector }
//	           text  n + bm25.Inverted of the skills' text terms
//	           body  n + bm25.Inverted of the skills' whole bodies
//	records  uint32 length + uint32 CRC-32 of the records + the records,
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
// is about half the size, and ranking reads the vectors in place.
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
	"sort"
	"strings"
	"unsafe"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/quant"
	"github.com/skill-inject/ski/internal/record"
)

// Version is the current file format version.
const Version = 7

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

// Entry is one skill, its vector and the term counts of its text (both
// nil from ReadRanking, which leaves them in the Index: see Cosine).
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
	headerOnly part = iota
	ranking         // the header and the table
	verified        // and the records' checksum, not decompressed
	whole           // and the records
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
		data, err = mapFile(f)
	default:
		var b []byte
		b, err = io.ReadAll(f)
		data = string(b)
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
	tbl, err := c.checked()
	if err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	if err := decodeTable(tbl, idx); err != nil {
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

// decodeTable reads the table. Terms and names are substrings of tbl,
// vectors share one backing array.
func decodeTable(tbl string, idx *Index) error {
	c := &cursor{s: tbl}
	dim := idx.Header.Dim
	if 2*dim*idx.Header.Count > len(tbl) {
		return fmt.Errorf("%d vectors of %d dims do not fit in %d bytes", idx.Header.Count, dim, len(tbl))
	}
	idx.Entries = make([]Entry, idx.Header.Count)
	for i := range idx.Entries {
		e := &idx.Entries[i]
		sk := &e.Skill
		sk.ID, sk.Name, sk.Invoke, sk.Path, sk.Dir = c.str(), c.str(), c.str(), c.str(), c.str()
		sk.Keywords, sk.Aliases, sk.Tags, sk.Affinity = c.list(), c.list(), c.list(), c.list()
		flags := c.u8()
		sk.DisableModelInvocation, sk.AutoInject = flags&1 != 0, flags&2 != 0
		// Set when a skill is not user-invocable, so indexes written before
		// the flag read as the default, user-invocable.
		sk.UserInvocable = flags&4 == 0
		if flags&8 != 0 {
			sk.Invoke = sk.Name
		}
		if flags&16 != 0 {
			sk.Dir = pathDir(sk.Path)
		}
		if c.bad {
			return fmt.Errorf("entry %d: cut short", i)
		}
	}
	idx.quant = c.take(2 * dim * len(idx.Entries))
	if c.bad {
		return errors.New("vectors: cut short")
	}
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
	if c.bad {
		return errors.New("intents: cut short")
	}
	var err error
	if idx.Text, err = field(c, "text", len(idx.Entries)); err != nil {
		return err
	}
	if idx.Body, err = field(c, "body", len(idx.Entries)); err != nil {
		return err
	}
	if len(c.s) > 0 {
		return errors.New("trailing data")
	}
	return nil
}

// field reads a BM25 field of n documents, in place.
func field(c *cursor, name string, n int) (*bm25.Inverted, error) {
	data := c.take(c.n())
	if c.bad {
		return nil, fmt.Errorf("%s field: cut short", name)
	}
	f, err := bm25.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s field: %w", name, err)
	}
	if f.Len() != n {
		return nil, fmt.Errorf("%s field has %d documents for %d entries", name, f.Len(), n)
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
	tbl, err := appendTable(nil, idx)
	if err != nil {
		return err
	}
	out = appendChecked(out, tbl)
	packed, err := rc.Compress(recs)
	if err != nil {
		return fmt.Errorf("compress records: %w", err)
	}
	out = appendChecked(out, packed)
	_, err = w.Write(out)
	return err
}

// appendTable appends the table of idx: the entries, the intents' concepts,
// then the text and body fields (their terms sorted, so that equal indexes are equal files).
func appendTable(b []byte, idx *Index) ([]byte, error) {
	for _, e := range idx.Entries {
		sk := e.Skill
		// An invoke name equal to the name, and a folder that is the
		// path's own, are flagged rather than stored twice.
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
		b = append(b, flags)
	}
	for _, e := range idx.Entries {
		b = append(b, quant.Half(e.Vector)...)
	}
	kinds := make([]string, 0, len(idx.Header.Intents))
	for k := range idx.Header.Intents {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	b = binary.AppendUvarint(b, uint64(len(kinds)))
	for _, k := range kinds {
		c := idx.Header.Intents[k]
		if len(c.Vector) != idx.Header.Dim {
			return nil, fmt.Errorf("intent %s: vector has %d dims, header says %d", k, len(c.Vector), idx.Header.Dim)
		}
		b = appendStr(appendStr(b, k), c.Text)
		b = embed.AppendVector(b, c.Vector)
	}
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
	for _, f := range []*bm25.Inverted{text, body} {
		data, err := f.MarshalBinary()
		if err != nil {
			return nil, err
		}
		b = binary.AppendUvarint(b, uint64(len(data)))
		b = append(b, data...)
	}
	return b, nil
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendSection appends a uint32 length and data.
func appendSection(b, data []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(b, uint32(len(data))), data...)
}

// appendChecked appends a uint32 length, the CRC-32 of data and data.
func appendChecked(b, data []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(data)), data...)
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
	if crc32.ChecksumIEEE(unsafe.Slice(unsafe.StringData(b), len(b))) != sum {
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
