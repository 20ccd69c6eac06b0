package vecfile

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/quant"
	"github.com/skill-inject/ski/internal/record"
)

// namesSection is the names section of entries: the hash of each of an
// entry's names and the entry, sorted.
func namesSection(entries []Entry) []byte {
	var pairs []uint64
	for i, e := range entries {
		for _, k := range record.MentionKeys(e.Skill.Name, e.Skill.Invoke, e.Skill.ID) {
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
