package vecfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/quant"
	"github.com/skill-inject/ski/internal/record"
)

func sample() *Index {
	return &Index{
		Header: Header{Model: "m", Embedder: "lexical", Dim: 3, Created: "2026-01-01T00:00:00Z", Text: "t1",
			Intents: map[string]Concept{"bug-hunt": {Text: "find the cause of a failure", Vector: []float32{0, 1, 0}}}},
		Entries: []Entry{
			{Skill: record.Skill{Kind: "skill", ID: "a/b", Name: "b", Hash: "sha256:1"}, Vector: []float32{1, 0, 0},
				Terms: map[string]int{"helm": 2, "chart": 1, "c++": 7}},
			{Skill: record.Skill{Kind: "skill", ID: "c", Name: "c", Hash: "sha256:2"}, Vector: []float32{0, 0.6, 0.8}, Terms: map[string]int{}},
		},
		Body: mustInverted([]map[string]int{{"values": 3, "lint": 1}, {"chart": 2}}),
	}
}

func mustInverted(docs []map[string]int) *bm25.Inverted {
	v, err := bm25.NewInverted(docs)
	if err != nil {
		panic(err)
	}
	return v
}

// plain is a records codec that leaves them as they are (the format does
// not depend on the compression; package indexfile tests zstd's).
type plain struct{}

func (plain) Compress(b []byte) ([]byte, error)   { return b, nil }
func (plain) Decompress(s string) (string, error) { return s, nil }

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "i.skv")
	want := sample()
	if err := Write(path, want, plain{}); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path, plain{})
	if err != nil {
		t.Fatal(err)
	}
	// The text field is built from the entries' terms on the way out, and
	// the vectors come back as their half floats say.
	want.Text = mustInverted([]map[string]int{want.Entries[0].Terms, want.Entries[1].Terms})
	for i, e := range want.Entries {
		want.Entries[i].Vector = quant.Expand(quant.Half(e.Vector))
	}
	want.Quantize()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if got.Header.Count != 2 {
		t.Errorf("count = %d", got.Header.Count)
	}
	skills, err := ReadSkills(path, plain{})
	if err != nil || len(skills) != 2 || !reflect.DeepEqual(skills[0], want.Entries[0].Skill) || !reflect.DeepEqual(skills[1], want.Entries[1].Skill) {
		t.Errorf("ReadSkills: %+v, %v", skills, err)
	}
	// No body field: an empty one, one document per entry.
	want.Body = nil
	if err := Write(path, want, plain{}); err != nil {
		t.Fatal(err)
	}
	if got, err = Read(path, plain{}); err != nil || got.Body.Len() != 2 {
		t.Fatalf("empty body field: %v", err)
	}
	want.Body = mustInverted(nil)
	if err := Write(path, want, plain{}); err == nil {
		t.Error("a body field of the wrong size was written")
	}
}

func TestReadRanking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "i.skv")
	want := sample()
	want.Entries[0].Skill = record.Skill{Kind: "skill", ID: "a/b", Name: "b", Description: "d", Invoke: "p:b",
		Path: "/s/b/SKILL.md", Dir: "/s/b", Root: "/s", Scope: "user", Host: "claude",
		Keywords: []string{"helm"}, Aliases: []string{"charts"}, Tags: []string{"k8s", ""}, Affinity: []string{"c"},
		DisableModelInvocation: true, UserInvocable: true, AutoInject: true, Hash: "sha256:1", Mtime: "m", Size: 9}
	if err := Write(path, want, plain{}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRanking(path)
	if err != nil {
		t.Fatal(err)
	}
	s := want.Entries[0].Skill
	ranked := record.Skill{ID: s.ID, Name: s.Name, Invoke: s.Invoke, Path: s.Path, Dir: s.Dir,
		Keywords: s.Keywords, Aliases: s.Aliases, Tags: s.Tags, Affinity: s.Affinity,
		DisableModelInvocation: true, AutoInject: true, UserInvocable: true}
	if sk, err := got.Skill(0); err != nil || !reflect.DeepEqual(sk, ranked) {
		t.Errorf("ranking fields:\n got %+v, %v\nwant %+v", sk, err, ranked)
	}
	if got.Len() != 2 || len(got.Entries) != 0 {
		t.Errorf("%d entries, %d decoded, want 2 and none decoded before they are asked for", got.Len(), len(got.Entries))
	}
	if kw := got.Keyworded(); !reflect.DeepEqual(kw, []int{0}) {
		t.Errorf("keyworded entries %v, want [0]", kw)
	}
	for name, want := range map[string][]int{"b": {0}, "p:b": {0}, "c": {1}, "a": nil} {
		if got, err := got.Mentioned(name); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("mentioned as %q: %v, %v; want %v", name, got, err, want)
		}
	}
	// A skill kept out of the / menu says so.
	want.Entries[0].Skill.UserInvocable = false
	if err := Write(path, want, plain{}); err != nil {
		t.Fatal(err)
	}
	got, err = ReadRanking(path)
	if sk, _ := got.Skill(0); err != nil || sk.UserInvocable {
		t.Errorf("user_invocable false read back as %+v, %v", sk, err)
	}
	for i := range got.Len() {
		for _, q := range [][]float32{{1, 0, 0}, {0, 0.6, 0.8}} {
			if d := got.Cosine(i, q) - embed.Dot(q, want.Entries[i].Vector); d > 0.001 || d < -0.001 {
				t.Errorf("entry %d: cosine off by %v", i, d)
			}
		}
	}
	// The terms stay in the text field, read in place.
	scores := make([]float64, 2)
	got.Text.AddScores(bm25.Query{"helm"}, 1, scores)
	if got.Text.Len() != 2 || scores[0] <= 0 || scores[1] != 0 {
		t.Errorf("text field: %d documents, scores %v", got.Text.Len(), scores)
	}
	if !reflect.DeepEqual(got.Header, want.Header) {
		t.Errorf("header %+v, want %+v", got.Header, want.Header)
	}
	// The header alone leaves the intents, which live in the table.
	h, err := ReadHeader(path)
	want.Header.Intents = nil
	if err != nil || !reflect.DeepEqual(h, want.Header) {
		t.Errorf("ReadHeader = %+v, %v; want %+v", h, err, want.Header)
	}
}

func TestCorrupt(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample(), plain{}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	inRecords := bytes.Clone(good)
	inRecords[len(good)-6] ^= 1
	head := 7 + 2 + 4 + int(binary.LittleEndian.Uint32(good[9:]))
	inTable := bytes.Clone(good)
	inTable[head+8+3] ^= 1
	v2 := bytes.Clone(good)
	v2[7] = 2
	cases := map[string][]byte{
		"empty":        nil,
		"not an index": []byte("hello world, not an index"),
		"truncated":    good[:len(good)/2],
		"trailing":     append(bytes.Clone(good), 0),
		"bad magic":    []byte("NOTSKI\n\x03\x00"),
		"version 2":    v2,
		"huge header":  []byte(magic + "\x03\x00\xff\xff\xff\x7f"),
		"table byte":   inTable,
		"records byte": inRecords,
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "i.skv")
			os.WriteFile(path, data, 0o600)
			if _, err := Read(path, plain{}); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Read: err = %v, want ErrCorrupt", err)
			}
			if _, err := ReadSkills(path, plain{}); !errors.Is(err, ErrCorrupt) {
				t.Errorf("ReadSkills: err = %v, want ErrCorrupt", err)
			}
		})
	}
	for _, name := range []string{"empty", "bad magic", "version 2", "huge header"} {
		path := filepath.Join(t.TempDir(), "i.skv")
		os.WriteFile(path, cases[name], 0o600)
		if _, err := ReadHeader(path); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: ReadHeader: err = %v, want ErrCorrupt", name, err)
		}
	}
}

func TestEncodeRejectsWrongDim(t *testing.T) {
	idx := sample()
	idx.Entries[1].Vector = []float32{1}
	if err := Encode(&bytes.Buffer{}, idx, plain{}); err == nil {
		t.Fatal("want an error for a vector of the wrong width")
	}
}

// benchIndex writes an index the size of a large skill set: 200 skills,
// 384 dims, 45 terms each.
func benchIndex(b *testing.B) string {
	idx := &Index{Header: Header{Model: "m", Dim: 384}}
	for i := range 200 {
		e := Entry{Skill: record.Skill{Kind: "skill", ID: fmt.Sprintf("repo/skill-%d", i), Name: fmt.Sprintf("skill-%d", i),
			Description: strings.Repeat("Does one thing well when asked. ", 8), Path: fmt.Sprintf("/home/u/.claude/skills/skill-%d/SKILL.md", i),
			Keywords: []string{"alpha", "beta"}, Hash: "sha256:0123456789abcdef"},
			Vector: make([]float32, 384), Terms: map[string]int{}}
		for j := range e.Vector {
			e.Vector[j] = float32(i*j%97) / 97
		}
		for j := range 45 {
			t := fmt.Sprintf("term%d", (i*7+j*13)%3000)
			e.Terms[t] = 1 + j%3
		}
		idx.Entries = append(idx.Entries, e)
	}
	path := filepath.Join(b.TempDir(), "i.skv")
	if err := Write(path, idx, plain{}); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkRead reads the index as ski-rank does on every prompt
// (ranking) and as a rebuild does (whole; the records uncompressed here).
func BenchmarkRead(b *testing.B) {
	path := benchIndex(b)
	for _, r := range []struct {
		name string
		read func(string) (*Index, error)
	}{{"ranking", ReadRanking}, {"whole", func(p string) (*Index, error) { return Read(p, plain{}) }}} {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.read(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestVerifyFindsEveryFlippedByte flips each byte of an index in turn (and
// cuts it short at each length): Verify fails every time, and ReadHeader
// never accepts a header that differs from the one written.
func TestVerifyFindsEveryFlippedByte(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "i.skv")
	want := sample()
	if err := Write(path, want, plain{}); err != nil {
		t.Fatal(err)
	}
	if err := Verify(path); err != nil {
		t.Fatalf("intact index: %v", err)
	}
	good, _ := os.ReadFile(path)
	head, _ := ReadHeader(path)
	bad := filepath.Join(dir, "bad.skv")
	for i := range good {
		b := bytes.Clone(good)
		b[i] ^= 0x10
		os.WriteFile(bad, b, 0o600)
		if err := Verify(bad); err == nil {
			t.Errorf("byte %d flipped: Verify passed", i)
		}
		if h, err := ReadHeader(bad); err == nil && !reflect.DeepEqual(h, head) {
			t.Errorf("byte %d flipped: ReadHeader accepted a changed header %+v", i, h)
		}
	}
	for n := range len(good) {
		os.WriteFile(bad, good[:n], 0o600)
		if err := Verify(bad); err == nil {
			t.Errorf("cut to %d bytes: Verify passed", n)
		}
	}
	os.Remove(bad)
	os.Mkdir(bad, 0o700)
	if err := Verify(bad); err == nil {
		t.Error("a directory passed Verify")
	}
}

// An invoke name equal to the name and a folder that is the path's own are
// stored once and read back whole; others are kept as they are.
func TestSharedNamesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "i.skv")
	idx := sample()
	idx.Entries[0].Skill.Invoke, idx.Entries[0].Skill.Path, idx.Entries[0].Skill.Dir = "b", "/s/b/SKILL.md", "/s/b"
	idx.Entries[1].Skill.Invoke, idx.Entries[1].Skill.Path, idx.Entries[1].Skill.Dir = "p:c", "/s/c/SKILL.md", "/elsewhere"
	if err := Write(path, idx, plain{}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRanking(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][3]string{{"b", "/s/b/SKILL.md", "/s/b"}, {"p:c", "/s/c/SKILL.md", "/elsewhere"}} {
		sk, _ := got.Skill(i)
		if [3]string{sk.Invoke, sk.Path, sk.Dir} != want {
			t.Errorf("entry %d: invoke %q path %q dir %q, want %q", i, sk.Invoke, sk.Path, sk.Dir, want)
		}
	}
}

// What ReadRanking leaves unchecked is checked as it is read: with each
// byte of the table flipped in turn, reading the index for ranking, then
// every vector, entry, name and term, fails somewhere.
func TestRankingReadFindsEveryFlippedByte(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample(), plain{}); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	readAll := func(data string) error {
		idx, err := decode(data, ranking, nil)
		if err != nil {
			return err
		}
		if err := idx.Cosines([]float32{1, 0, 0}, make([]float64, idx.Len())); err != nil {
			return err
		}
		for i := range idx.Len() {
			if _, err := idx.Skill(i); err != nil {
				return err
			}
		}
		for _, name := range []string{"a", "b", "c"} {
			if _, err := idx.Mentioned(name); err != nil {
				return err
			}
		}
		for _, f := range []*bm25.Inverted{idx.Text, idx.Body} {
			if err := f.AddScores(bm25.Query{"helm", "chart", "c++", "values", "lint"}, 1, make([]float64, idx.Len())); err != nil {
				return err
			}
		}
		return nil
	}
	if err := readAll(good); err != nil {
		t.Fatalf("intact index: %v", err)
	}
	// The checksums of the sections checked piece by piece are Verify's
	// to read, not ranking's.
	unread := map[int]bool{}
	at := len(magic) + 2 + 8 + int(binary.LittleEndian.Uint32([]byte(good[len(magic)+2:])))
	head := at
	for i := range sections {
		if i == secEntries || i >= secText {
			for j := at + 4; j < at+8; j++ {
				unread[j] = true
			}
		}
		at += 8 + int(binary.LittleEndian.Uint32([]byte(good[at:])))
	}
	for i := head; i < at; i++ {
		b := []byte(good)
		b[i] ^= 0x10
		if !unread[i] && readAll(string(b)) == nil {
			t.Errorf("byte %d of the table flipped: not found", i-head)
		}
	}
}

// The names section keeps hashes: a name whose hash is another skill's
// finds only the skill it names, read from a file or in memory.
func TestMentionedByCollidingHash(t *testing.T) {
	seen := map[uint32]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		n := fmt.Sprintf("n%d", i)
		if o, ok := seen[nameHash(n)]; ok {
			a, b = o, n
		}
		seen[nameHash(n)] = n
	}
	idx := sample()
	idx.Entries[0].Skill.ID, idx.Entries[0].Skill.Name = "x/"+a, a
	idx.Entries[1].Skill.ID, idx.Entries[1].Skill.Name = b, b
	path := filepath.Join(t.TempDir(), "i.skv")
	if err := Write(path, idx, plain{}); err != nil {
		t.Fatal(err)
	}
	read, err := ReadRanking(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []*Index{read, idx} {
		for name, want := range map[string][]int{a: {0}, b: {1}} {
			if got, err := got.Mentioned(name); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("mentioned as %q (hash of %q too): %v, %v; want %v", name, a+" and "+b, got, err, want)
			}
		}
	}
}
