package xdg

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skill-inject/ski/internal/aside"
)

// OwnDir makes dir, which is top or lies below it, a real directory that
// ski may write in. top is one of ski's own folders (Dirs.State,
// Dirs.Cache): top and every folder from it down to dir are looked at
// without following symlinks, and one that is a symlink or not a directory
// is set aside (renamed to <name>.corrupt-<unix nanoseconds>, with a
// warning) and made anew, mode 0700. So nothing ski writes lands where a
// symlink points. The folders above top (the XDG base, the home) are the
// user's and are followed as they are. warn may be nil.
func OwnDir(dir, top string, warn func(string)) error {
	rel, err := filepath.Rel(top, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is not inside %s", dir, top)
	}
	if err := os.MkdirAll(filepath.Dir(top), 0o700); err != nil {
		return err
	}
	path := top
	parts := []string{}
	if rel != "." {
		parts = strings.Split(rel, string(filepath.Separator))
	}
	for i := 0; ; i++ {
		if err := ownOne(path, warn); err != nil {
			return err
		}
		if i == len(parts) {
			return nil
		}
		path = filepath.Join(path, parts[i])
	}
}

// ownOne makes path a real directory, setting aside what else is there.
func ownOne(path string, warn func(string)) error {
	st, err := os.Lstat(path)
	if err == nil && st.IsDir() {
		return nil
	}
	if err == nil {
		to, err := aside.Move(path, time.Now())
		if err != nil {
			return fmt.Errorf("%s is a %v, not a directory, and cannot be moved aside: %w", path, st.Mode().Type(), err)
		}
		if warn != nil {
			warn(fmt.Sprintf("%s was a %v, not a directory; moved aside to %s, making a new one", path, Kind(st), filepath.Base(to)))
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	if err := os.Mkdir(path, 0o700); err != nil && !os.IsExist(err) {
		return err
	}
	// Another process may have made something else there meanwhile.
	if st, err := os.Lstat(path); err != nil || !st.IsDir() {
		return fmt.Errorf("%s: not a directory", path)
	}
	return nil
}

// Kind names the type of file st describes, for messages.
func Kind(st os.FileInfo) string {
	switch m := st.Mode(); {
	case m&os.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "regular file"
	default:
		return m.Type().String()
	}
}
