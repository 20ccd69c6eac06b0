// Package embedsrv keeps a model loaded between hook runs. A server
// (ski-embed --serve) embeds texts for clients over a unix socket in a
// user-only directory; the Client is an embed.Embedder that asks the server
// when one answers and embeds in process when none does, so a missing,
// stale, foreign or broken server only costs time, never a result.
//
// Protocol: requests and responses take turns on a connection, each a frame
// of a 4-byte big-endian length and a JSON object. Every request carries a Hello
// (protocol version, model id, build id); a server that differs in any of
// them answers with an error and exits, so an upgraded binary or model never
// talks to an old server for long.
package embedsrv

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/xdg"
)

// Protocol is the version of the wire format (2: requests of prompts; 3:
// several requests per connection; 4: the readings of prompts returned;
// 5: the project a prompt comes from, for the server to watch; 6: whether
// a watched project's index is current; 7: rankings; 8: the reader, and
// the server's counts).
const Protocol = 8

// maxFrame bounds a frame, so a corrupt length cannot allocate gigabytes.
const maxFrame = 64 << 20

// Hello identifies both ends; they talk only when all fields are equal.
type Hello struct {
	Protocol int    `json:"protocol"`
	Model    string `json:"model"`
	Build    string `json:"build"`
}

// request asks for the vectors of texts, or with Prompts for those of the
// query texts of prompts (ServerOptions.ReadPrompt; a blank one gets the
// zero vector, as with embed.Queries) and their readings.
type request struct {
	Hello
	Purpose embed.Purpose `json:"purpose"`
	Texts   []string      `json:"texts"`
	Prompts bool          `json:"prompts,omitempty"`
	// Reader says the prompts' hook has the reader on: they count
	// towards its share (ServerOptions.Prompted).
	Reader bool `json:"reader,omitempty"`
	// Project describes where the prompts come from (ServerOptions.Watch).
	Project json.RawMessage `json:"project,omitempty"`
	// Current asks, instead of vectors, whether Project's index is current
	// as far as the server's watch knows (Client.Current).
	Current bool `json:"current,omitempty"`
	// Rank asks, instead of vectors, for the ranking of a query
	// (ServerOptions.Rank).
	Rank *rankRequest `json:"rank,omitempty"`
	// Read asks, instead of vectors, for the reader's beliefs
	// (ServerOptions.Read).
	Read *readRequest `json:"read,omitempty"`
	// Stats asks, instead of vectors, for the server's counts.
	Stats bool `json:"stats,omitempty"`
}

// readRequest is a prompt's text (as ski reads it) for the reader to read
// with the skills of an index that IDs name, in order.
type readRequest struct {
	Index string   `json:"index"`
	Text  string   `json:"text"`
	IDs   []string `json:"ids"`
}

// Stats are a server's counts since it started.
type Stats struct {
	Prompts    int   `json:"prompts"`     // prompts it read and embedded
	Reads      int   `json:"reads"`       // prompts the reader read
	ReadMicros int64 `json:"read_micros"` // time they took, in all
	Declined   int   `json:"declined"`    // readings past the reader's share, not done
}

// Summary says what the counts are, in words.
func (st Stats) Summary() string {
	s := fmt.Sprintf("%d prompts, none read by the reader", st.Prompts)
	if st.Reads > 0 {
		s = fmt.Sprintf("%d prompts, %d read by the reader (%.0f ms each on average)",
			st.Prompts, st.Reads, float64(st.ReadMicros)/float64(st.Reads)/1000)
	}
	if st.Declined > 0 {
		s += fmt.Sprintf(", %d more left to the judge (past the reader's share)", st.Declined)
	}
	return s
}

// rankRequest is a query record to rank against an index, with the
// ranking's settings, both as the ranking package reads them.
type rankRequest struct {
	Index    string          `json:"index"`
	Query    json.RawMessage `json:"query"`
	Settings json.RawMessage `json:"settings"`
}

// response carries the vectors as little-endian float32s, row after row,
// so they cross the socket bit for bit.
type response struct {
	Hello
	Error   string `json:"error,omitempty"`
	Dim     int    `json:"dim"`
	Vectors []byte `json:"vectors"`
	// Readings are the prompts' readings, for a request of prompts.
	Readings []prompt.Reading `json:"readings,omitempty"`
	// Current answers a request of Current.
	Current bool `json:"current,omitempty"`
	// Ranked answers a request of Rank: the candidate lines.
	Ranked string `json:"ranked,omitempty"`
	// Beliefs answer a request of Read, one per id.
	Beliefs []float64 `json:"beliefs,omitempty"`
	// Declined answers a request of Read past the reader's share of the
	// prompts (reader.Share): nothing was read.
	Declined bool `json:"declined,omitempty"`
	// Stats answers a request of Stats.
	Stats *Stats `json:"stats,omitempty"`
}

// errMismatch is a server of another protocol, model or build.
var errMismatch = errors.New("version mismatch")

func writeFrame(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeRaw(w, b)
}

// writeRaw writes the frame of an encoded object.
func writeRaw(w io.Writer, b []byte) error {
	buf := make([]byte, 4, 4+len(b))
	binary.BigEndian.PutUint32(buf, uint32(len(b)))
	_, err := w.Write(append(buf, b...))
	return err
}

func readFrame(r io.Reader, v any) error {
	b, err := readRaw(r)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// readRaw reads a frame and returns its object, not decoded.
func readRaw(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxFrame {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// rankFrame is the request of a ranking, encoded by hand: a ranking
// process sends one request and exits, and encoding/json's first use of a
// type (and its check of the 5 kB query record) cost it ~0.2 ms.
func rankFrame(h Hello, index string, query, settings []byte) []byte {
	b := fmt.Appendf(nil, `{"protocol":%d,"model":`, h.Protocol)
	b = appendString(b, h.Model)
	b = append(b, `,"build":`...)
	b = appendString(b, h.Build)
	b = fmt.Appendf(b, `,"purpose":%d,"rank":{"index":`, embed.Query)
	b = appendString(b, index)
	b = append(b, `,"query":`...)
	b = append(b, query...)
	b = append(b, `,"settings":`...)
	b = append(b, settings...)
	return append(b, "}}"...)
}

// appendString appends s as a JSON string (invalid UTF-8 as U+FFFD, as
// encoding/json writes it).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

func packVectors(vecs [][]float32, dim int) []byte {
	out := make([]byte, 0, 4*dim*len(vecs))
	for _, v := range vecs {
		out = embed.AppendVector(out, v)
	}
	return out
}

func unpackVectors(b []byte, n, dim int) ([][]float32, error) {
	if dim <= 0 || len(b) != 4*n*dim {
		return nil, fmt.Errorf("%d bytes of vectors for %d texts of %d dims", len(b), n, dim)
	}
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, dim)
		embed.DecodeVector(out[i], b[4*i*dim:])
	}
	return out, nil
}

// Build identifies the running executable cheaply (path, size and
// modification time), so a rebuilt or upgraded binary is a new build.
func Build() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	return BuildOf(exe)
}

// BuildOf is the Build of the executable at exe, as that program reports
// it when it runs from there.
func BuildOf(exe string) string {
	st, err := os.Stat(exe)
	if err != nil {
		return "unknown"
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%d", exe, st.Size(), st.ModTime().UnixNano()))
	return hex.EncodeToString(sum[:8])
}

// RunDir is the user-only directory sockets live in:
// runtimeDir/ski when runtimeDir ($XDG_RUNTIME_DIR) is set, else
// stateDir/run (stateDir is ski's state folder). It is created 0700, and refused when it belongs to
// someone else or others may enter it.
func RunDir(runtimeDir, stateDir string) (string, error) {
	dir := filepath.Join(stateDir, "run")
	if runtimeDir != "" {
		dir = filepath.Join(runtimeDir, "ski")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("run dir: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("run dir: %w", err)
	}
	if !st.IsDir() || st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("run dir %s: mode %v, want a directory only its owner may enter", dir, st.Mode())
	}
	if !xdg.Mine(st) {
		return "", fmt.Errorf("run dir %s: owned by another user", dir)
	}
	return dir, nil
}

// SocketPath is the socket of the server for model under runDir. Its name
// is keyed by the model id and everything that picks the model's files and
// runtime, so each install has its own server.
func SocketPath(runDir, model string, env embed.Env) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s", model, env.Runtime,
		env.Environ.OnnxRuntime, env.Environ.ModelDir, env.Environ.DataHome)
	return filepath.Join(runDir, "embed-"+hex.EncodeToString(h.Sum(nil))[:12]+".sock")
}
