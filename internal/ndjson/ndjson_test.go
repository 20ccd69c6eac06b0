package ndjson

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func readAll(t *testing.T, in string, max int) ([]string, error) {
	t.Helper()
	r := NewReader(strings.NewReader(in), "<test>", max)
	var lines []string
	for {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
		lines = append(lines, string(l))
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     []string
		err      string
	}{
		{"empty", "", 0, nil, ""},
		{"blank lines", "\n\n  \n", 0, nil, ""},
		{"no final newline", `{"a":1}`, 0, []string{`{"a":1}`}, ""},
		{"crlf", "{\"a\":1}\r\n{\"b\":2}\r\n", 0, []string{`{"a":1}`, `{"b":2}`}, ""},
		{"not an object", "[1,2]\n", 0, nil, "line 1: not a JSON object"},
		{"garbage", "{\"a\":1}\nhello\n", 0, []string{`{"a":1}`}, "line 2: not a JSON object"},
		{"invalid utf8", "{\"a\":\"\xff\"}\n", 0, nil, "line 1: invalid UTF-8"},
		{"too long", `{"a":"` + strings.Repeat("x", 100) + `"}`, 50, nil, "line 1: record exceeds 50 bytes"},
		{"long line under cap", `{"a":"` + strings.Repeat("x", 200000) + `"}`, 0, []string{`{"a":"` + strings.Repeat("x", 200000) + `"}`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(t, tt.in, tt.max)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriterNoHTMLEscape(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Encode(map[string]string{"s": "<a> & b"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "{\"s\":\"<a> & b\"}\n" {
		t.Errorf("got %q", got)
	}
}
