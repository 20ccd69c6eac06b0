// Package vecfile reads and writes ski's index: a zstd-compressed, versioned,
// model-tagged file holding each skill's record and vector.
//
// Layout inside the zstd stream (integers little-endian):
//
//	magic   "SKIVEC\n"
//	version uint16
//	header  uint32 length + JSON Header
//	bm25    float64 mean length, uint32 terms × { uint16 length + term, float32 IDF }
//	count × { uint32 length + JSON record.Skill, Dim × float32,
//	          uint32 terms × { uint16 length + term, uint16 count } }
//	body    uint32 length + bm25.Inverted of the skills' bodies
//
// Version 2 added the BM25 statistics and each skill's term counts, in
// binary because JSON maps would make reading the index, which every
// prompt does, twice as slow. Version 3 added the body field: the terms of
// each skill's whole SKILL.md body, stored by term so that a prompt reads
// only its own terms' postings.
package vecfile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/klauspost/compress/zstd"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/record"
)

// Version is the current file format version.
const Version = 3

const magic = "SKIVEC\n"

// maxRecord bounds one skill record, so a corrupt length cannot make the
// reader allocate gigabytes.
const maxRecord = 4 << 20

// maxBody bounds the body field.
const maxBody = 256 << 20

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
	// BM25 holds the collection statistics of the entries' terms; it is
	// stored in binary after the JSON header.
	BM25 bm25.Stats `json:"-"`
	// Stamp is scan.Stamp of the skills the index was built from, when it
	// was built from a scan; equal stamps let a refresh skip the scan.
	Stamp string `json:"stamp,omitempty"`
	// Intents holds, per intent kind (package intent), the text that stands
	// for what such a prompt needs and its query vector; rank boosts the
	// skills closest to it when a prompt has that intent.
	Intents map[string]Concept `json:"intents,omitempty"`
}

// Concept is a text and its query vector.
type Concept struct {
	Text   string    `json:"text"`
	Vector []float32 `json:"vector"`
}

// Entry is one skill, its vector and the term counts of its text.
type Entry struct {
	Skill  record.Skill
	Vector []float32
	Terms  map[string]int
}

// Index is a whole file in memory.
type Index struct {
	Header  Header
	Entries []Entry
	// Body is the BM25 field of the skills' bodies, document i being
	// Entries[i]; nil writes an empty field.
	Body *bm25.Inverted
}

// Read loads the index at path. A file that is not an index, is cut short,
// or is of another version yields an error wrapping ErrCorrupt.
func Read(path string) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	defer f.Close()
	idx, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	return idx, nil
}

// Decode reads an index from r.
func Decode(r io.Reader) (*Index, error) {
	br, err := inflate(r)
	if err != nil {
		return nil, err
	}
	idx, err := decode(br, true)
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return idx, nil
}

// ReadHeader reads only the header of the index at path (and checks its
// magic and version), for callers that need to know which model built it.
func ReadHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("open index: %w", err)
	}
	defer f.Close()
	br, err := inflate(f)
	if err == nil {
		var idx *Index
		if idx, err = decode(br, false); err == nil {
			return idx.Header, nil
		}
	}
	if !errors.Is(err, ErrCorrupt) {
		err = fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return Header{}, fmt.Errorf("index %s: %w", path, err)
}

// inflate decompresses a whole file in one call. The decoder's one-shot
// DecodeAll costs ~1 ms and 1 MB on a 200-skill index where its streaming
// reader costs ~5 ms and 9 MB, which a short-lived stage feels.
func inflate(r io.Reader) (*bufio.Reader, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(256<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer zr.Close()
	plain, err := zr.DecodeAll(raw, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return bufio.NewReader(bytes.NewReader(plain)), nil
}

// decode reads the index, or only its header when entries is false.
func decode(r *bufio.Reader, entries bool) (*Index, error) {
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != magic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	var version uint16
	if err := binary.Read(r, binary.LittleEndian, &version); err != nil {
		return nil, err
	}
	if version != Version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrCorrupt, version, Version)
	}
	idx := &Index{}
	if err := readJSON(r, &idx.Header); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if err := readStats(r, &idx.Header.BM25); err != nil {
		return nil, fmt.Errorf("bm25 statistics: %w", err)
	}
	h := idx.Header
	if h.Dim <= 0 || h.Dim > 8192 || h.Count < 0 || h.Count > 1_000_000 {
		return nil, fmt.Errorf("%w: implausible header dim=%d count=%d", ErrCorrupt, h.Dim, h.Count)
	}
	if !entries {
		return idx, nil
	}
	idx.Entries = make([]Entry, 0, h.Count)
	raw := make([]byte, 4*h.Dim)
	for i := 0; i < h.Count; i++ {
		var e Entry
		if err := readJSON(r, &e.Skill); err != nil {
			return nil, fmt.Errorf("skill %d: %w", i, err)
		}
		if _, err := io.ReadFull(r, raw); err != nil {
			return nil, fmt.Errorf("vector %d: %w", i, err)
		}
		e.Vector = make([]float32, h.Dim)
		embed.DecodeVector(e.Vector, raw)
		var err error
		if e.Terms, err = readTerms(r); err != nil {
			return nil, fmt.Errorf("terms %d: %w", i, err)
		}
		idx.Entries = append(idx.Entries, e)
	}
	if err := readBody(r, idx); err != nil {
		return nil, fmt.Errorf("body terms: %w", err)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data", ErrCorrupt)
	}
	return idx, nil
}

func readJSON(r io.Reader, v any) error {
	var n uint32
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return err
	}
	if n > maxRecord {
		return fmt.Errorf("%w: record of %d bytes", ErrCorrupt, n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return err
	}
	return json.Unmarshal(buf, v)
}

// Write stores idx at path atomically: a temporary file in the same
// directory, synced, then renamed over the old one.
func Write(path string, idx *Index) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create index dir: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".index-*.tmp")
	if err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := Encode(tmp, idx); err != nil {
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

// Encode writes idx to w. Header.Count and Header.Dim are set from the entries.
func Encode(w io.Writer, idx *Index) error {
	idx.Header.Count = len(idx.Entries)
	for i, e := range idx.Entries {
		if len(e.Vector) != idx.Header.Dim {
			return fmt.Errorf("entry %d (%s): vector has %d dims, header says %d", i, e.Skill.ID, len(e.Vector), idx.Header.Dim)
		}
	}
	var buf bytes.Buffer
	buf.WriteString(magic)
	binary.Write(&buf, binary.LittleEndian, uint16(Version))
	if err := writeJSON(&buf, idx.Header); err != nil {
		return err
	}
	writeStats(&buf, idx.Header.BM25)
	raw := make([]byte, 0, 4*idx.Header.Dim)
	for _, e := range idx.Entries {
		if err := writeJSON(&buf, e.Skill); err != nil {
			return err
		}
		buf.Write(embed.AppendVector(raw[:0], e.Vector))
		writeTerms(&buf, e.Terms)
	}
	if err := writeBody(&buf, idx); err != nil {
		return err
	}
	zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	if _, err := zw.Write(buf.Bytes()); err != nil {
		zw.Close()
		return err
	}
	return zw.Close()
}

// writeBody writes the body field, which must have one document per entry.
func writeBody(buf *bytes.Buffer, idx *Index) error {
	body := idx.Body
	if body == nil {
		var err error
		if body, err = bm25.NewInverted(make([]map[string]int, len(idx.Entries))); err != nil {
			return err
		}
	}
	if body.Len() != len(idx.Entries) {
		return fmt.Errorf("body field has %d documents for %d entries", body.Len(), len(idx.Entries))
	}
	data, err := body.MarshalBinary()
	if err != nil {
		return err
	}
	binary.Write(buf, binary.LittleEndian, uint32(len(data)))
	buf.Write(data)
	return nil
}

func readBody(r *bufio.Reader, idx *Index) error {
	var n uint32
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return err
	}
	if n > maxBody {
		return fmt.Errorf("%w: body field of %d bytes", ErrCorrupt, n)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return err
	}
	idx.Body = &bm25.Inverted{}
	if err := idx.Body.UnmarshalBinary(data); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if idx.Body.Len() != len(idx.Entries) {
		return fmt.Errorf("%w: body field has %d documents for %d entries", ErrCorrupt, idx.Body.Len(), len(idx.Entries))
	}
	return nil
}

func writeJSON(buf *bytes.Buffer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	binary.Write(buf, binary.LittleEndian, uint32(len(b)))
	buf.Write(b)
	return nil
}

// writeTerms writes term counts, sorted by term so that equal indexes are
// equal files. Counts are capped at 65535.
func writeTerms(buf *bytes.Buffer, terms map[string]int) {
	keys := sortedTerms(terms)
	binary.Write(buf, binary.LittleEndian, uint32(len(keys)))
	for _, t := range keys {
		writeTerm(buf, t)
		binary.Write(buf, binary.LittleEndian, uint16(min(terms[t], math.MaxUint16)))
	}
}

func readTerms(r *bufio.Reader) (map[string]int, error) {
	n, err := readCount(r)
	if err != nil || n == 0 {
		return nil, err
	}
	terms := make(map[string]int, n)
	var word []byte
	var two [2]byte
	for range n {
		if word, err = readTerm(r, word); err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(r, two[:]); err != nil {
			return nil, err
		}
		terms[string(word)] = int(binary.LittleEndian.Uint16(two[:]))
	}
	return terms, nil
}

// writeStats writes BM25 statistics, terms sorted.
func writeStats(buf *bytes.Buffer, s bm25.Stats) {
	binary.Write(buf, binary.LittleEndian, s.AvgLen)
	keys := sortedTerms(s.IDF)
	binary.Write(buf, binary.LittleEndian, uint32(len(keys)))
	for _, t := range keys {
		writeTerm(buf, t)
		binary.Write(buf, binary.LittleEndian, float32(s.IDF[t]))
	}
}

func readStats(r *bufio.Reader, s *bm25.Stats) error {
	if err := binary.Read(r, binary.LittleEndian, &s.AvgLen); err != nil {
		return err
	}
	n, err := readCount(r)
	if err != nil || n == 0 {
		return err
	}
	s.IDF = make(map[string]float64, n)
	var word []byte
	var four [4]byte
	for range n {
		if word, err = readTerm(r, word); err != nil {
			return err
		}
		if _, err := io.ReadFull(r, four[:]); err != nil {
			return err
		}
		s.IDF[string(word)] = float64(math.Float32frombits(binary.LittleEndian.Uint32(four[:])))
	}
	return nil
}

func sortedTerms[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for t := range m {
		if len(t) <= math.MaxUint16 {
			keys = append(keys, t)
		}
	}
	sort.Strings(keys)
	return keys
}

func writeTerm(buf *bytes.Buffer, t string) {
	binary.Write(buf, binary.LittleEndian, uint16(len(t)))
	buf.WriteString(t)
}

// readTerm reads a term into word's storage.
func readTerm(r *bufio.Reader, word []byte) ([]byte, error) {
	var two [2]byte
	if _, err := io.ReadFull(r, two[:]); err != nil {
		return nil, err
	}
	word = append(word[:0], make([]byte, binary.LittleEndian.Uint16(two[:]))...)
	_, err := io.ReadFull(r, word)
	return word, err
}

// readCount reads a uint32 number of items, bounded like a record.
func readCount(r *bufio.Reader) (uint32, error) {
	var n uint32
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return 0, err
	}
	if n > maxRecord {
		return 0, fmt.Errorf("%w: %d items", ErrCorrupt, n)
	}
	return n, nil
}
