package mcpcmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/tidwall/gjson"
)

// maxMessage bounds one JSON-RPC message, in bytes.
const maxMessage = 16 << 20

// Replies to lines that are not messages, with no id to answer (JSON-RPC
// 2.0: a parse error, or an invalid request, has a null id).
var (
	parseError = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not a JSON value"}}` + "\n")
	tooLarge   = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: message over 16 MiB"}}` + "\n")
)

// checkedLines passes the messages of in, one a line, to the returned
// reader, and answers a line that is no JSON object, or is too long, on
// out itself (through the lock the server's writes share), so a bad line
// costs an error reply and nothing else.
func checkedLines(in io.Reader, out *lockedWriter) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(r)
			switch {
			case errors.Is(err, errTooLong):
				out.Write(tooLarge)
				continue
			case err != nil && len(line) == 0:
				pw.CloseWithError(err)
				return
			}
			trimmed := bytes.TrimSpace(line)
			switch {
			case len(trimmed) == 0:
			case !json.Valid(trimmed):
				out.Write(parseError)
			case !isMessage(trimmed):
				out.Write(invalidRequest(trimmed))
			default:
				if _, werr := pw.Write(append(trimmed, '\n')); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

var errTooLong = errors.New("line too long")

// readLine reads one line (without its newline), or skips the rest of one
// longer than maxMessage and says so.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxMessage {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errTooLong
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSuffix(line, []byte("\n")), err
		}
	}
}

// lockedWriter serializes the writes of the server and of checkedLines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

// isMessage reports whether a JSON value is a JSON-RPC 2.0 message the
// server can take: an object of version "2.0" with a method (a request or
// notification) or a result or error (a response), and an id, if any, of
// a string or number.
func isMessage(b []byte) bool {
	m := gjson.ParseBytes(b)
	if !m.IsObject() || m.Get("jsonrpc").Str != "2.0" {
		return false
	}
	if id := m.Get("id"); id.Exists() && id.Type != gjson.String && id.Type != gjson.Number && id.Type != gjson.Null {
		return false
	}
	if method := m.Get("method"); method.Exists() {
		return method.Type == gjson.String && (!m.Get("params").Exists() || m.Get("params").IsObject() || m.Get("params").IsArray())
	}
	return m.Get("id").Exists() && (m.Get("result").Exists() || m.Get("error").Exists())
}

// invalidRequest is the reply to a JSON value that is no message: an
// invalid request, with its id when it has a usable one.
func invalidRequest(b []byte) []byte {
	id := "null"
	if v := gjson.GetBytes(b, "id"); v.Type == gjson.String || v.Type == gjson.Number {
		id = v.Raw
	}
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"invalid request: not a JSON-RPC 2.0 message"}}` + "\n")
}
