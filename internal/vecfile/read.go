package vecfile

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/quant"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/xdg"
)

// part says how much of a file to decode.
type part int

const (
	headerOnly  part = iota
	ranking          // the header and the table
	verified         // and the records' checksum, not decompressed
	whole            // and the records
	rankingCopy      // ranking, from a copy of the file (readFile only)
	skills           // the header, the table and the records' skills alone
	skillsCopy       // skills, from a copy of the file (readFile only)
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

// ReadSkills loads the full skill records of the index at path,
// decompressed by rc, and nothing of their vectors or terms: what reading
// the skills' texts needs, from a copy of the file that is dropped after.
func ReadSkills(path string, rc RecordCodec) ([]record.Skill, error) {
	idx, err := readFile(path, skillsCopy, rc)
	if err != nil {
		return nil, err
	}
	return idx.records, nil
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
	f, err := xdg.OpenRegular(path)
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
		switch upto {
		case rankingCopy:
			upto = ranking // decoded as if mapped
		case skillsCopy:
			upto = skills
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
	if err := decodeTable(c, idx, upto == ranking || upto == skills); err != nil {
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
	if upto == skills {
		if idx.records, err = decodeSkills(recs, idx.Header.Count); err != nil {
			return nil, fmt.Errorf("records: %w", err)
		}
	} else if err := decodeRecords(recs, idx); err != nil {
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

// decodeSkills reads count full skill records.
func decodeSkills(recs string, count int) ([]record.Skill, error) {
	c := &cursor{s: recs}
	out := make([]record.Skill, count)
	for i := range out {
		rec := c.take(int(c.u32()))
		if c.bad {
			return nil, fmt.Errorf("skill %d: %w", i, io.ErrUnexpectedEOF)
		}
		if err := json.Unmarshal([]byte(rec), &out[i]); err != nil {
			return nil, fmt.Errorf("skill %d: %w", i, err)
		}
	}
	if len(c.s) > 0 {
		return nil, errors.New("trailing data")
	}
	return out, nil
}

// decodeRecords reads the full skill records over the table's part of them.
func decodeRecords(recs string, idx *Index) error {
	skills, err := decodeSkills(recs, len(idx.Entries))
	if err != nil {
		return err
	}
	dim := idx.Header.Dim
	for i, sk := range skills {
		if id := idx.Entries[i].Skill.ID; sk.ID != id {
			return fmt.Errorf("skill %d: record of %q, table says %q", i, sk.ID, id)
		}
		idx.Entries[i].Skill = sk
		idx.Entries[i].Vector = quant.Expand(idx.quant[2*i*dim : 2*(i+1)*dim])
	}
	for i, terms := range idx.Text.Documents() {
		idx.Entries[i].Terms = terms
	}
	return nil
}
