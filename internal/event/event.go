// Package event reads the one host event a prompt hook is given (Claude
// Code's UserPromptSubmit payload, the opencode plugin's message): any JSON
// object, on one line or pretty-printed, read only up to a bound, with a
// prompt longer than a bound cut to its first part so that ranking stays
// within the hook's time limit.
package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Bounds of an event and of the part of its prompt that is kept.
const (
	MaxBytes  = 16 << 20 // an event longer than this is refused
	MaxPrompt = 64 << 10 // a prompt longer than this is cut to this many bytes
)

// Cut says that a prompt was cut: how long it was and how much was kept,
// in bytes.
type Cut struct{ Was, Kept int }

// Read reads all of r as one event of at most maxBytes and returns it as
// one line of compact JSON (without a newline). A string "prompt" longer
// than maxPrompt bytes is cut, at a character boundary, to its first
// maxPrompt bytes at most; cut then says so (else it is nil). The rest of
// the event is kept as it is.
func Read(r io.Reader, maxBytes, maxPrompt int) (line []byte, cut *Cut, err error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(maxBytes)+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read event: %w", err)
	}
	if len(data) > maxBytes {
		return nil, nil, fmt.Errorf("event exceeds %d bytes", maxBytes)
	}
	return Parse(data, maxPrompt)
}

// Parse is Read for the bytes of an event.
func Parse(data []byte, maxPrompt int) (line []byte, cut *Cut, err error) {
	if !utf8.Valid(data) {
		return nil, nil, errors.New("invalid UTF-8 in event")
	}
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return nil, nil, fmt.Errorf("not a JSON object: %s", preview(t))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t); err != nil {
		return nil, nil, fmt.Errorf("not a JSON object: %w", err)
	}
	line = buf.Bytes()
	p := gjson.GetBytes(line, "prompt")
	if p.Type != gjson.String || len(p.Str) <= maxPrompt {
		return line, nil, nil
	}
	keep := maxPrompt
	for keep > 0 && !utf8.RuneStart(p.Str[keep]) {
		keep--
	}
	line, err = sjson.SetBytes(line, "prompt", p.Str[:keep])
	if err != nil {
		return nil, nil, fmt.Errorf("cut prompt: %w", err)
	}
	return line, &Cut{Was: len(p.Str), Kept: keep}, nil
}

// preview is the start of a bad event, for an error message.
func preview(b []byte) string {
	const n = 40
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}
