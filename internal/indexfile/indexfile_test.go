package indexfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/vecfile"
)

func sample(t *testing.T) *vecfile.Index {
	t.Helper()
	body, err := bm25.NewInverted([]map[string]int{{"postmortem": 2}, {"helm": 1}})
	if err != nil {
		t.Fatal(err)
	}
	return &vecfile.Index{
		Header: vecfile.Header{Model: "lexical-v1", Embedder: "lexical", Dim: 2, Created: "2026-11-22T00:00:00Z", Text: "t1"},
		Entries: []vecfile.Entry{
			{Skill: record.Skill{ID: "writing/postmortem", Name: "postmortem", Description: "Write blameless postmortems."},
				Vector: []float32{1, 0}, Terms: map[string]int{"postmortem": 1}},
			{Skill: record.Skill{ID: "k8s/helm-chart", Name: "helm-chart", Description: "Create helm charts."},
				Vector: []float32{0, 1}, Terms: map[string]int{"helm": 1, "chart": 1}},
		},
		Body: body,
	}
}

// A whole index round-trips with its records in a zstd frame, and ranking
// reads the same file without a codec.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "i.skv")
	want := sample(t)
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Entries {
		if !reflect.DeepEqual(got.Entries[i].Skill, want.Entries[i].Skill) || !reflect.DeepEqual(got.Entries[i].Terms, want.Entries[i].Terms) {
			t.Errorf("entry %d: %+v, want %+v", i, got.Entries[i], want.Entries[i])
		}
	}
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte("Write blameless postmortems.")) {
		t.Error("the records are not compressed")
	}
	if r, err := vecfile.ReadRanking(path); err != nil || r.Len() != 2 {
		t.Errorf("ReadRanking: %v", err)
	}
}

// A records frame that zstd cannot read makes the file corrupt, not a
// panic or a silent loss.
func TestCorruptFrame(t *testing.T) {
	var buf bytes.Buffer
	if err := vecfile.Encode(&buf, sample(t), garbled{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "i.skv")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); !errors.Is(err, vecfile.ErrCorrupt) {
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
	if _, err := (Zstd{}).Decompress("not a zstd frame"); err == nil {
		t.Fatal("garbage decompressed")
	}
}

// garbled writes records that are not a zstd frame (with a valid checksum).
type garbled struct{}

func (garbled) Compress([]byte) ([]byte, error)   { return []byte("not a zstd frame"), nil }
func (garbled) Decompress(string) (string, error) { return "", errors.New("unused") }
