// Package ndjson reads and writes newline-delimited JSON streams for the ski
// stages: one object per line, lines of any reasonable length, a cap that
// turns a runaway line into a clear error instead of a silent truncation.
package ndjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// DefaultMaxLine is the default cap on one input line (16 MiB).
const DefaultMaxLine = 16 << 20

// Reader yields the JSON lines of a stream, skipping blank lines and
// accepting CRLF endings and a missing final newline.
type Reader struct {
	name    string
	r       *bufio.Reader
	maxLine int
	line    int
}

// NewReader reads from r; name is used in error messages ("<stdin>").
// maxLine <= 0 means DefaultMaxLine.
func NewReader(r io.Reader, name string, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &Reader{name: name, r: bufio.NewReaderSize(r, 64<<10), maxLine: maxLine}
}

// Line returns the number of the line last returned by Next.
func (r *Reader) Line() int { return r.line }

// Errorf formats an error that names the stream and the current line.
func (r *Reader) Errorf(format string, args ...any) error {
	return fmt.Errorf("%s: line %d: %w", r.name, r.line, fmt.Errorf(format, args...))
}

// Next returns the next non-blank line, checked to be one valid UTF-8 JSON
// object. It returns io.EOF at the end of the stream.
func (r *Reader) Next() ([]byte, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !utf8.Valid(line) {
			return nil, r.Errorf("invalid UTF-8 in record")
		}
		if line[0] != '{' || !json.Valid(line) {
			return nil, r.Errorf("not a JSON object: %s", preview(line))
		}
		return line, nil
	}
}

func (r *Reader) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.r.ReadSlice('\n')
		if len(buf)+len(chunk) > r.maxLine {
			r.line++
			return nil, r.Errorf("record exceeds %d bytes (raise --max-line)", r.maxLine)
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			r.line++
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(buf) == 0 {
				return nil, io.EOF
			}
			r.line++
			return buf, nil
		default:
			return nil, fmt.Errorf("%s: read: %w", r.name, err)
		}
	}
}

func preview(b []byte) string {
	const max = 40
	if len(b) > max {
		b = b[:max]
	}
	return fmt.Sprintf("%q…", b)
}

// Writer writes one JSON value per line through a single buffered writer.
// HTML escaping is off: skill text is full of <, > and &.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewWriter writes to w. Call Flush when done.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{w: bw, enc: enc}
}

// Encode writes v as one line.
func (w *Writer) Encode(v any) error {
	if err := w.enc.Encode(v); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	return nil
}

// WriteRaw writes an already encoded JSON line, adding the newline.
func (w *Writer) WriteRaw(line []byte) error {
	if _, err := w.w.Write(line); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	if err := w.w.WriteByte('\n'); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	return nil
}

// WriteLines writes lines already encoded, each with its newline.
func (w *Writer) WriteLines(lines []byte) error {
	if _, err := w.w.Write(lines); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	return nil
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error {
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("flush output: %w", err)
	}
	return nil
}

// Each calls fn with every record line until the stream ends, stopping at
// the first error from the stream or from fn.
func (r *Reader) Each(fn func(line []byte) error) error {
	for {
		line, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}
