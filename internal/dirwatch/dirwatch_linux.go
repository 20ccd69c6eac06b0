package dirwatch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"unsafe"

	"golang.org/x/sys/unix"
)

// events are the changes that may change what a walk of a folder finds:
// entries created, removed, renamed, written or re-attributed, and the
// folder itself removed or moved.
const events = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// Set is a set of watched folders. It is not safe for concurrent use.
type Set struct {
	fd      int
	limit   int
	watched map[string]bool  // the folders added, each with the entry it was added for ("": whole)
	filters map[int32]filter // by watch descriptor
	changed bool             // a change, an overflow or a failed read was seen
	buf     []byte
}

// filter is which events of a watch count: all, or those about the
// entries named (and the folder itself going away).
type filter struct {
	all   bool
	names map[string]bool
}

// New opens an empty set that may hold up to a quarter of the watches the
// system lets a user have, so that ski never takes the ones editors and
// build tools need.
func New() (*Set, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("watch folders: %w", err)
	}
	return &Set{fd: fd, limit: Limit(), watched: map[string]bool{}, filters: map[int32]filter{}, buf: make([]byte, 4096)}, nil
}

// Limit is how many folders one set may watch: a quarter of the system's
// per-user limit (2,048 when that cannot be read).
func Limit() int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 2048
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 4 {
		return 2048
	}
	return n / 4
}

// Add watches dir (following a symlink to it): any change in it counts.
// A folder that cannot be watched is an error; ErrLimit when the set is
// full.
func (s *Set) Add(dir string) error { return s.add(dir, "") }

// AddEntry watches dir for changes to its entry name only (made, removed,
// renamed or re-attributed), and for dir itself going away: the parent of
// a root, whose other entries are none of ski's business.
func (s *Set) AddEntry(dir, name string) error { return s.add(dir, name) }

func (s *Set) add(dir, name string) error {
	key := dir + "\x00" + name
	if s.watched[key] {
		return nil
	}
	if len(s.watched) >= s.limit {
		return ErrLimit
	}
	wd, err := unix.InotifyAddWatch(s.fd, dir, events|unix.IN_ONLYDIR)
	if err != nil {
		if errors.Is(err, unix.ENOSPC) {
			return ErrLimit
		}
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	s.watched[key] = true
	// Two paths to one folder share a watch: its filter is the union.
	f := s.filters[int32(wd)]
	if name == "" {
		f.all = true
	} else {
		if f.names == nil {
			f.names = map[string]bool{}
		}
		f.names[name] = true
	}
	s.filters[int32(wd)] = f
	return nil
}

// Len is how many watches the set was asked for, which is what Limit
// bounds: a folder added whole and for an entry counts twice, though the
// system keeps one watch for it.
func (s *Set) Len() int { return len(s.watched) }

// Changed reports whether anything happened in a watched folder since the
// set was opened: once true it stays true. A lost event (the kernel's
// queue overflowed) or a read that fails counts as a change.
func (s *Set) Changed() bool {
	for !s.changed {
		n, err := unix.Read(s.fd, s.buf)
		switch {
		case errors.Is(err, unix.EINTR):
		case errors.Is(err, unix.EAGAIN):
			return false
		case err != nil || n < unix.SizeofInotifyEvent:
			s.changed = true
		default:
			s.changed = s.counts(s.buf[:n])
		}
	}
	return true
}

// counts reports whether any of the events in b is a change the set's
// filters count.
func (s *Set) counts(b []byte) bool {
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(b) {
			return true
		}
		name := bytes.TrimRight(b[unix.SizeofInotifyEvent:end], "\x00")
		b = b[end:]
		f, known := s.filters[ev.Wd]
		switch {
		case !known, f.all, ev.Mask&(unix.IN_Q_OVERFLOW|unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0:
			return true
		case f.names[string(name)]:
			return true
		}
	}
	return false
}

// Close releases the set's watches.
func (s *Set) Close() error { return unix.Close(s.fd) }
