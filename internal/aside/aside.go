// Package aside moves damaged state out of the way (indexes, the embedding
// cache, ledgers, anything standing where one of ski's folders belongs): a file (or
// whatever stands at its path: a directory, a symlink) is renamed to
// <path>.corrupt-<unix nanoseconds>, so it can be looked at later, and only
// the newest such copy of a path is kept, so a file damaged again and again
// cannot fill the disk.
package aside

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Move renames whatever stands at path aside and returns its new path. The
// older copies set aside from the same path are removed.
func Move(path string, now time.Time) (string, error) {
	to := fmt.Sprintf("%s.corrupt-%d", path, now.UnixNano())
	if err := os.Rename(path, to); err != nil {
		return "", fmt.Errorf("set aside %s: %w", path, err)
	}
	old, _ := filepath.Glob(globEscape(path) + ".corrupt-*")
	for _, o := range old {
		if o != to && isStamp(strings.TrimPrefix(o, path+".corrupt-")) {
			os.RemoveAll(o)
		}
	}
	return to, nil
}

// isStamp reports whether s is all digits.
func isStamp(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// globEscape quotes the pattern characters of a literal path.
func globEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
