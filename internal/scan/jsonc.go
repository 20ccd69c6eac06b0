package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
)

// maxConfigSize caps the host config files read (settings.json,
// opencode.json, installed_plugins.json, plugin.json).
const maxConfigSize = 4 << 20

// readJSONC decodes the JSON-with-comments file at path into v. ok is false
// when the file does not exist (or is not a regular file); err is set when it
// exists but cannot be read or decoded.
func readJSONC(path string, v any) (ok bool, err error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	if !st.Mode().IsRegular() {
		return false, nil
	}
	if st.Size() > maxConfigSize {
		return true, errors.New("file too large")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return true, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := json.Unmarshal(stripJSONC(data), v); err != nil {
		return true, err
	}
	return true, nil
}

// stripJSONC blanks out // and /* */ comments and drops trailing commas
// before } and ], leaving strings alone. Line structure is kept, so
// offsets in decode errors still point at the right line.
func stripJSONC(in []byte) []byte {
	out := make([]byte, 0, len(in))
	inString := false
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case inString:
			out = append(out, c)
			if c == '\\' && i+1 < len(in) {
				i++
				out = append(out, in[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(in) && in[i+1] == '/':
			for i < len(in) && in[i] != '\n' {
				out = append(out, ' ')
				i++
			}
			if i < len(in) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(in) && in[i+1] == '*':
			out = append(out, ' ', ' ')
			i += 2
			for i < len(in) && !(in[i] == '*' && i+1 < len(in) && in[i+1] == '/') {
				if in[i] == '\n' {
					out = append(out, '\n')
				} else {
					out = append(out, ' ')
				}
				i++
			}
			if i < len(in) {
				out = append(out, ' ', ' ')
				i++
			}
		case c == '}' || c == ']':
			// Drop a comma that only whitespace separates from c.
			j := len(out) - 1
			for j >= 0 && isSpace(out[j]) {
				j--
			}
			if j >= 0 && out[j] == ',' {
				out[j] = ' '
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
