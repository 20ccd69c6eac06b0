package scan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/skill-inject/ski/internal/skill"
	"github.com/skill-inject/ski/internal/xdg"
)

// Listings remembers the directory listings of a walk, each with its
// directory's identity and times, so that the next walk lists again only
// the directories that changed: adding, removing or renaming an entry
// changes its directory's modification time, so a directory whose device,
// inode, modification and change times are the same lists the same names.
// A stat instead of an open, a read and a close per directory: with
// 10,000 skill folders, listing them was most of a stamp's time.
//
// A listing is kept only when its directory's times are older than
// listingMargin when it is read, so that a change within the file
// system's timestamp granularity of the listing cannot go unseen. The
// zero value is empty and ready; a nil *Listings remembers nothing.
type Listings struct {
	dirs    map[string]listing // by the path the walk listed
	seen    map[string]listing // what this walk listed or reused
	changed bool               // seen differs from dirs
	// partial says a walk listed a directory too recently changed to keep
	// (wasPartial: the walk that dirs come from), so its listings do not
	// name every directory it walked.
	partial, wasPartial bool
}

// listing is one directory's entries and what identified it.
type listing struct {
	id      dirID
	entries []dirent
}

// dirID is what identifies a directory and its state.
type dirID struct {
	dev, ino     uint64
	mtime, ctime int64 // nanoseconds
}

// dirent is one directory entry as the walk needs it.
type dirent struct {
	name string
	kind byte // kindOther, kindDir or kindLink
}

const (
	kindOther byte = iota
	kindDir
	kindLink
)

// listingMargin is how old a directory's times must be for its listing to
// be kept: far coarser than any file system's timestamp granularity (a
// variable so that tests can change it).
var listingMargin = time.Second

const listingsMagic = "SKIDIRS2\n"

// list returns the entries of dir, from l when its directory is unchanged.
func (l *Listings) list(dir string) ([]dirent, error) {
	if l == nil {
		return readDir(dir)
	}
	if l.seen == nil {
		l.seen = make(map[string]listing, len(l.dirs))
	}
	id, ok := statDir(dir)
	if ok {
		if old, hit := l.dirs[dir]; hit && old.id == id {
			l.seen[dir] = old
			return old.entries, nil
		}
	}
	entries, err := readDir(dir)
	if err == nil && ok && settled(id, time.Now()) {
		l.seen[dir] = listing{id: id, entries: entries}
		l.changed = true
	} else {
		l.partial = true
	}
	return entries, err
}

// size is how many directories the walk l remembers listed (0 for nil).
func (l *Listings) size() int {
	if l == nil {
		return 0
	}
	return len(l.dirs)
}

// settled reports whether a directory's times are older than the margin.
func settled(id dirID, now time.Time) bool {
	limit := now.Add(-listingMargin).UnixNano()
	return id.mtime < limit && id.ctime < limit
}

// readDir lists dir, sorted by name.
func readDir(dir string) ([]dirent, error) {
	des, err := os.ReadDir(dir)
	out := make([]dirent, len(des))
	for i, e := range des {
		out[i].name = e.Name()
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			out[i].kind = kindLink
		case e.IsDir():
			out[i].kind = kindDir
		}
	}
	return out, err
}

// LoadListings reads the listings saved at path; a missing, unreadable or
// damaged file gives empty ones.
func LoadListings(path string) *Listings {
	l := &Listings{}
	b, err := xdg.ReadFile(path)
	if err != nil || len(b) < len(listingsMagic)+4 || string(b[:len(listingsMagic)]) != listingsMagic {
		return l
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return l
	}
	rest := body[len(listingsMagic):]
	if len(rest) == 0 || rest[0] > 1 {
		return l
	}
	dirs, ok := decodeListings(string(rest[1:]))
	if ok {
		l.dirs, l.wasPartial = dirs, rest[0] == 1
	}
	return l
}

func decodeListings(s string) (map[string]listing, bool) {
	u := func() uint64 {
		var x uint64
		for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
			x |= uint64(s[i]&0x7f) << (7 * i)
			if s[i] < 0x80 {
				s = s[i+1:]
				return x
			}
		}
		s = ""
		return 0
	}
	str := func() (string, bool) {
		n := u()
		if n > uint64(len(s)) {
			return "", false
		}
		v := s[:n]
		s = s[n:]
		return v, true
	}
	count := u()
	if count > uint64(len(s)) {
		return nil, false
	}
	dirs := make(map[string]listing, count)
	for range count {
		dir, ok := str()
		if !ok {
			return nil, false
		}
		var ls listing
		ls.id = dirID{dev: u(), ino: u(), mtime: int64(u()), ctime: int64(u())}
		n := u()
		if n > uint64(len(s)) {
			return nil, false
		}
		ls.entries = make([]dirent, n)
		for i := range ls.entries {
			name, ok := str()
			if !ok || len(s) == 0 {
				return nil, false
			}
			ls.entries[i] = dirent{name: name, kind: s[0]}
			s = s[1:]
		}
		dirs[dir] = ls
	}
	return dirs, len(s) == 0
}

// Save writes the listings of the last walk to path (atomically, through
// a temporary file beside it) when they differ from what was loaded.
func (l *Listings) Save(path string) error {
	if l == nil || !l.changed && len(l.seen) == len(l.dirs) && l.partial == l.wasPartial {
		return nil
	}
	b := []byte(listingsMagic)
	b = append(b, boolByte(l.partial))
	b = binary.AppendUvarint(b, uint64(len(l.seen)))
	for dir, ls := range l.seen {
		b = appendString(b, dir)
		for _, x := range []uint64{ls.id.dev, ls.id.ino, uint64(ls.id.mtime), uint64(ls.id.ctime), uint64(len(ls.entries))} {
			b = binary.AppendUvarint(b, x)
		}
		for _, e := range ls.entries {
			b = append(appendString(b, e.name), e.kind)
		}
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dirs-*.tmp")
	if err != nil {
		return fmt.Errorf("save listings: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	_, err = tmp.Write(b)
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("save listings: %w", err)
	}
	l.dirs, l.seen, l.changed, l.wasPartial, l.partial = l.seen, nil, false, l.partial, false
	return nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Folders are the directories whose changes can change the walk these
// listings were saved by (read from path): every directory it listed and
// the folders that symlinked SKILL.md files point into. ok is false when
// they are not all known: no listings, or a walk that listed a directory
// too recently changed to keep.
func Folders(path string) (folders []string, ok bool) {
	l := LoadListings(path)
	if len(l.dirs) == 0 || l.wasPartial {
		return nil, false
	}
	for dir, ls := range l.dirs {
		folders = append(folders, dir)
		for _, e := range ls.entries {
			if e.kind != kindLink || e.name != skill.FileName {
				continue
			}
			target, err := filepath.EvalSymlinks(filepath.Join(dir, e.name))
			if err != nil {
				return nil, false
			}
			folders = append(folders, filepath.Dir(target))
		}
	}
	return folders, true
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
