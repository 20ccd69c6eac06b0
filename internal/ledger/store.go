package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/skill-inject/ski/internal/aside"
	"github.com/skill-inject/ski/internal/flock"
	"github.com/skill-inject/ski/internal/xdg"
)

// DefaultLockTimeout is how long Update waits for another process's lock;
// it stays below the hooks' 10 s timeout so a stuck lock is reported, not killed.
const DefaultLockTimeout = 5 * time.Second

// maxFileSize caps what Load reads; anything larger is not a ledger.
const maxFileSize = 16 << 20

// Store is a directory of session ledgers. The zero Store is not usable:
// set Dir.
type Store struct {
	// Dir holds the ledger files ($XDG_STATE_HOME/ski/sessions).
	Dir string
	// Warn receives one line per recoverable problem, such as a corrupt
	// ledger moved aside. Nil discards warnings.
	Warn func(msg string)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// LockTimeout bounds the wait for a lock; 0 means DefaultLockTimeout.
	LockTimeout time.Duration
}

// Dir is the ledger directory inside ski's state directory.
func Dir(stateDir string) string { return filepath.Join(stateDir, "sessions") }

// safeKey reports whether s is 1–100 characters of [A-Za-z0-9._-]. (As a
// regexp, the bounded repeat compiled to 100 copies of the class at every
// start of ski-select and ski-ledger: ~0.3 ms.)
func safeKey(s string) bool {
	if len(s) == 0 || len(s) > 100 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Key turns a session id into the file name stem of its ledger. Session ids
// come from host payloads and are not trusted: an id is used as it is only
// when it is 1–100 characters of [A-Za-z0-9._-], not "." or "..", and does
// not start with "h-"; otherwise the key is "h-" and the first 32 hex
// digits of its SHA-256. The two kinds of key never meet, so no two ids
// share a ledger (an id that looks like a hashed key is hashed itself).
func Key(session string) (string, error) {
	if session == "" {
		return "", errors.New("empty session id")
	}
	if safeKey(session) && session != "." && session != ".." && !strings.HasPrefix(session, "h-") {
		return session, nil
	}
	sum := sha256.Sum256([]byte(session))
	return "h-" + hex.EncodeToString(sum[:16]), nil
}

// Path is the ledger file of session.
func (s *Store) Path(session string) (string, error) {
	key, err := Key(session)
	if err != nil {
		return "", err
	}
	return s.path(key, ".json"), nil
}

func (s *Store) path(key, ext string) string { return filepath.Join(s.Dir, key+ext) }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Store) warn(format string, args ...any) {
	if s.Warn != nil {
		s.Warn(fmt.Sprintf(format, args...))
	}
}

// Load reads the ledger of session without locking: writers replace the
// file atomically, so it is always whole. A missing file is an empty
// ledger. A file that is not a usable ledger (unparseable, foreign JSON,
// another version, another session's) is renamed aside to
// <file>.corrupt-<unix nanoseconds>, reported through Warn, and treated as
// empty; if it cannot be moved aside it is still treated as empty, with a
// warning, and left for the next Update.
func (s *Store) Load(session string) (*Ledger, error) {
	key, err := Key(session)
	if err != nil {
		return nil, err
	}
	path := s.path(key, ".json")
	l, bad, err := readOrNew(path, session)
	if err != nil || bad == nil {
		return l, err
	}
	// Set the bad file aside under the lock, so a writer that replaced it
	// meanwhile does not lose its fresh file.
	err = s.locked(key, func() error {
		var err error
		l, err = s.read(path, session)
		return err
	})
	if err != nil {
		// A reader must not fail on a file it cannot fix (read-only
		// directory, lock held): the next Update moves it aside.
		s.warn("%v; treating it as empty", err)
		return New(session), nil
	}
	return l, nil
}

// Update applies fn to the ledger of session under an exclusive lock and
// writes the result atomically (temporary file, fsync, rename). If fn
// returns an error nothing is written. Update creates the directory (0700)
// and the file (0600) as needed.
func (s *Store) Update(session string, fn func(*Ledger) error) error {
	key, err := Key(session)
	if err != nil {
		return err
	}
	if err := s.ensureDir(); err != nil {
		return err
	}
	return s.locked(key, func() error {
		path := s.path(key, ".json")
		l, err := s.read(path, session)
		if err != nil {
			return err
		}
		if err := fn(l); err != nil {
			return err
		}
		if now := stamp(s.now()); now.After(l.updated) {
			l.updated = now
		}
		return s.write(key, l)
	})
}

// read loads path for session with the lock held, moving a bad file aside.
func (s *Store) read(path, session string) (*Ledger, error) {
	l, derr, err := readOrNew(path, session)
	if err != nil || derr == nil {
		return l, err
	}
	if err := s.setAside(path, fmt.Sprintf("ledger %s: %v", path, derr), "starting empty"); err != nil {
		return nil, err
	}
	return New(session), nil
}

// readOrNew is readFor with a missing file read as session's new, empty
// ledger.
func readOrNew(path, session string) (l *Ledger, bad, err error) {
	l, bad, err = readFor(path, session)
	if errors.Is(err, fs.ErrNotExist) {
		return New(session), nil, nil
	}
	return l, bad, err
}

// setAside renames path to <path>.corrupt-<unix nanoseconds>, for a human
// to look at, and warns why; then goes on.
func (s *Store) setAside(path, why, next string) error {
	to, err := aside.Move(path, s.now())
	if err != nil {
		return fmt.Errorf("%s; cannot move it aside: %w", why, err)
	}
	s.warn("%s; moved aside to %s, %s", why, filepath.Base(to), next)
	return nil
}

// ensureDir makes the ledger directory (0700) and checks its parent, ski's
// state folder. Something else in the place of either (a file, a symlink,
// which would put ledgers wherever it points) is set aside first.
func (s *Store) ensureDir() error {
	if err := xdg.OwnDir(s.Dir, filepath.Dir(s.Dir), s.Warn); err != nil {
		return fmt.Errorf("ledger directory: %w", err)
	}
	return nil
}

// readLedger reads and decodes the ledger file at path. err is an I/O
// error (fs.ErrNotExist for a missing file); bad says why a file that
// could be read is not a usable ledger.
//
// A path that is not a regular file (a directory, a symlink, a FIFO) or
// that cannot be opened or read (another user's file) is bad too: it is
// no ledger this user can use, and whatever a symlink points to is never
// read or written.
func readLedger(path string) (l *Ledger, bad, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|xdg.NoFollow|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errForeign, err), nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file", errForeign), nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errForeign, err), nil
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%w: larger than %d bytes", errForeign, maxFileSize), nil
	}
	l, bad = decode(data)
	return l, bad, nil
}

// readFor is readLedger for the ledger of session.
func readFor(path, session string) (l *Ledger, bad, err error) {
	l, bad, err = readLedger(path)
	if l != nil && l.session != session {
		return nil, fmt.Errorf("%w: belongs to session %q", errForeign, l.session), nil
	}
	return l, bad, err
}

func (s *Store) write(key string, l *Ledger) error {
	data, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("encode ledger: %w", err)
	}
	data = append(data, '\n')
	// CreateTemp makes the file 0600.
	tmp, err := os.CreateTemp(s.Dir, "."+key+".json.tmp-*")
	if err != nil {
		return fmt.Errorf("write ledger: %w", err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path(key, ".json"))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write ledger: %w", err)
	}
	// Make the rename itself durable. A failure here changes nothing
	// readers can see, so it is not an error.
	if d, err := os.Open(s.Dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// locked runs fn holding the exclusive lock of key (<key>.lock).
func (s *Store) locked(key string, fn func() error) error {
	timeout := s.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	f, err := s.lock(s.path(key, ".lock"), timeout)
	if err != nil {
		return err
	}
	defer f.Close() // closing releases the lock
	return fn()
}

// lock opens and locks path, waiting up to timeout. It makes sure the file
// it locked is still the one at path, since GC removes lock files (holding
// their lock) and a waiter may have opened the old one. Something at path
// that cannot be a lock file of this user's (a directory, a symlink,
// another user's or a read-only file) is set aside once, and a new lock
// file made.
func (s *Store) lock(path string, timeout time.Duration) (*os.File, error) {
	deadline := time.Now().Add(timeout)
	delay := time.Millisecond
	asideDone := false
	for {
		f, err := openLock(path)
		if err != nil && !asideDone && !errors.Is(err, fs.ErrNotExist) {
			if st, lerr := os.Lstat(path); lerr == nil {
				asideDone = true
				why := fmt.Sprintf("ledger lock %s: a %v that cannot be locked (%v)", path, xdg.Kind(st), err)
				if s.setAside(path, why, "making a new one") == nil {
					continue
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("lock ledger: %w", err)
		}
		for {
			ok, err := flock.TryLock(f)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("lock ledger %s: %w", path, err)
			}
			if ok {
				break
			}
			if time.Now().After(deadline) {
				f.Close()
				return nil, fmt.Errorf("lock ledger %s: still held by another process after %v", path, timeout)
			}
			time.Sleep(delay)
			delay = min(2*delay, 25*time.Millisecond)
		}
		if current(f, path) {
			return f, nil
		}
		f.Close()
	}
}

// current reports whether f is still the file at path.
func current(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// List reads every ledger in the store, ordered by update time, then
// session id. Files that are not usable ledgers are reported through Warn
// and skipped (List does not move them aside).
func (s *Store) List() ([]*Ledger, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list ledgers: %w", err)
	}
	var out []*Ledger
	for _, e := range entries {
		name := e.Name()
		if !isLedgerName(name) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(s.Dir, name)
		l, bad, err := readLedger(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		if bad == nil {
			if key, _ := Key(l.session); key+".json" != name {
				bad = fmt.Errorf("%w: belongs to session %q", errForeign, l.session)
			}
		}
		if bad != nil {
			s.warn("ledger %s: %v; skipped", path, bad)
			continue
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b *Ledger) int {
		if c := a.updated.Compare(b.updated); c != 0 {
			return c
		}
		return strings.Compare(a.session, b.session)
	})
	return out, nil
}

// isLedgerName reports whether a directory entry is a ledger file (not a
// temporary file, which starts with a dot and has no .json suffix, nor a
// set-aside .corrupt-* file).
func isLedgerName(name string) bool {
	return strings.HasSuffix(name, ".json") && len(name) > len(".json")
}

// GCResult counts what GC removed.
type GCResult struct {
	Ledgers int // ledger files
	Locks   int // lock files
	Temps   int // temporary files left by interrupted writers
}

// GC removes the ledgers not updated within olderThan (by file
// modification time), with their lock files, plus orphaned lock files and
// temporary files older than that. A ledger whose lock is held is in use
// and kept. Set-aside *.corrupt-* files are kept for a human to look at
// (the newest of each ledger: package aside).
func (s *Store) GC(olderThan time.Duration) (GCResult, error) {
	var res GCResult
	if olderThan < 0 {
		return res, fmt.Errorf("gc: negative age %v", olderThan)
	}
	cutoff := s.now().Add(-olderThan)
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("gc: %w", err)
	}
	old := func(path string) bool {
		info, err := os.Lstat(path)
		return err == nil && info.Mode().IsRegular() && info.ModTime().Before(cutoff)
	}
	var errs []error
	var locks []string
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(s.Dir, name)
		switch {
		case !e.Type().IsRegular():
		case isLedgerName(name):
			if !old(path) {
				continue
			}
			removed, lockRemoved, err := s.removeLedger(strings.TrimSuffix(name, ".json"), old)
			if err != nil {
				errs = append(errs, err)
			}
			if removed {
				res.Ledgers++
			}
			if lockRemoved {
				res.Locks++
			}
		case strings.HasSuffix(name, ".lock"):
			locks = append(locks, name)
		case strings.HasPrefix(name, ".") && strings.Contains(name, ".json.tmp-"):
			if old(path) {
				if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, fmt.Errorf("gc: %w", err))
				} else if err == nil {
					res.Temps++
				}
			}
		}
	}
	// Lock files whose ledger is gone.
	for _, name := range locks {
		key := strings.TrimSuffix(name, ".lock")
		path := filepath.Join(s.Dir, name)
		if !old(path) {
			continue
		}
		if _, err := os.Lstat(s.path(key, ".json")); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		f, ok := tryLockPath(path)
		if !ok {
			continue
		}
		if _, err := os.Lstat(s.path(key, ".json")); errors.Is(err, fs.ErrNotExist) {
			if err := os.Remove(path); err == nil {
				res.Locks++
			}
		}
		f.Close()
	}
	return res, errors.Join(errs...)
}

// removeLedger removes key's ledger and lock file if the ledger is still old
// once its lock is held. A held lock means the ledger is in use.
func (s *Store) removeLedger(key string, old func(string) bool) (ledger, lockFile bool, err error) {
	lockPath := s.path(key, ".lock")
	f, ok := tryLockPath(lockPath)
	if !ok {
		return false, false, nil
	}
	defer f.Close()
	path := s.path(key, ".json")
	if !old(path) {
		return false, false, nil
	}
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, false, nil
		}
		return false, false, fmt.Errorf("gc: %w", err)
	}
	// Waiters that opened this lock file notice it is gone and retry.
	lockFile = os.Remove(lockPath) == nil
	return true, lockFile, nil
}

// openLock opens (creating) the lock file at path: a regular file, never
// through a symlink.
func openLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|xdg.NoFollow|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return f, nil
}

// tryLockPath locks path without waiting, creating it if needed.
func tryLockPath(path string) (*os.File, bool) {
	f, err := openLock(path)
	if err != nil {
		return nil, false
	}
	if ok, err := flock.TryLock(f); err != nil || !ok || !current(f, path) {
		f.Close()
		return nil, false
	}
	return f, true
}

// Encode writes the ledger as indented JSON, for people.
func Encode(w io.Writer, l *Ledger) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, data, "", "  "); err != nil {
		return err
	}
	buf.WriteByte('\n')
	_, err = w.Write(buf.Bytes())
	return err
}
