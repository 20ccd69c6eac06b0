package vecfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/record"
)

func sample() *Index {
	return &Index{
		Header: Header{Model: "m", Embedder: "lexical", Dim: 3, Created: "2026-01-01T00:00:00Z", Text: "t1",
			BM25: bm25.Stats{IDF: map[string]float64{"helm": 0.75, "chart": 0.25}, AvgLen: 1.5}},
		Entries: []Entry{
			{Skill: record.Skill{Kind: "skill", ID: "a/b", Name: "b", Hash: "sha256:1"}, Vector: []float32{1, 0, 0},
				Terms: map[string]int{"helm": 2, "chart": 1, "c++": 70000}},
			{Skill: record.Skill{Kind: "skill", ID: "c", Name: "c", Hash: "sha256:2"}, Vector: []float32{0, 0.6, 0.8}},
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

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "i.skv")
	want := sample()
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want.Entries[0].Terms["c++"] = 65535 // counts are capped
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if got.Header.Count != 2 {
		t.Errorf("count = %d", got.Header.Count)
	}
	// No body field: an empty one, one document per entry.
	want.Body = nil
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	if got, err = Read(path); err != nil || got.Body.Len() != 2 {
		t.Fatalf("empty body field: %v", err)
	}
	want.Body = mustInverted(nil)
	if err := Write(path, want); err == nil {
		t.Error("a body field of the wrong size was written")
	}
}

func TestCorrupt(t *testing.T) {
	var good bytes.Buffer
	if err := Encode(&good, sample()); err != nil {
		t.Fatal(err)
	}
	zstdOf := func(b []byte) []byte {
		var out bytes.Buffer
		zw, _ := zstd.NewWriter(&out)
		zw.Write(b)
		zw.Close()
		return out.Bytes()
	}
	cases := map[string][]byte{
		"empty":       nil,
		"not zstd":    []byte("hello world, not an index"),
		"truncated":   good.Bytes()[:good.Len()/2],
		"bad magic":   zstdOf([]byte("NOTSKI\n\x01\x00")),
		"new version": zstdOf([]byte(magic + "\x09\x00")),
		"huge record": zstdOf([]byte(magic + "\x01\x00\xff\xff\xff\x7f")),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "i.skv")
			os.WriteFile(path, data, 0o600)
			_, err := Read(path)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestEncodeRejectsWrongDim(t *testing.T) {
	idx := sample()
	idx.Entries[1].Vector = []float32{1}
	if err := Encode(&bytes.Buffer{}, idx); err == nil {
		t.Fatal("want an error for a vector of the wrong width")
	}
}
