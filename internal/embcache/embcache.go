// Package embcache keeps the vectors a model made, keyed by the exact text
// (and purpose) embedded, so that no text is embedded twice: not by two
// projects or hosts that see the same skill, and not by a build that was
// killed half way, whose successor finds everything already persisted.
//
// There is one file per model, $XDG_CACHE_HOME/ski/embeddings/<model>.vec,
// appended to and never rewritten in place:
//
//	header  "SKIEMB1\n" + uint32 dim + uint32 CRC-32 (IEEE) of the magic,
//	        the dim and the model id
//	record  16-byte key + dim × float32 vector + uint32 CRC-32 of both
//
// (little-endian). A batch of records is appended under an exclusive flock
// with one write, synced to the disk at most once a second and at the end
// of a build. A record whose checksum fails is passed over (its text is
// embedded again), a torn record at the end (a crash during a write) is
// cut off before the next append, and a file whose header is wrong, or anything else standing at its path, is
// set aside (package aside) and started anew. The file is bounded: past
// MaxBytes an append first compacts it to its newest half.
package embcache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"

	"time"

	"github.com/skill-inject/ski/internal/aside"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/flock"
	"github.com/skill-inject/ski/internal/xdg"
)

const (
	magic      = "SKIEMB1\n"
	headerSize = len(magic) + 8
	keySize    = 16
)

// DefaultMaxBytes bounds a cache file: ~170,000 vectors of 384 dims.
const DefaultMaxBytes = 256 << 20

// Key identifies an embedded text: a hash of its purpose and its bytes.
type Key [keySize]byte

// KeyOf is the key of text embedded for purpose p.
func KeyOf(p embed.Purpose, text string) Key {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00", p)
	io.WriteString(h, text)
	var k Key
	copy(k[:], h.Sum(nil))
	return k
}

// Dir is the folder of the cache files under ski's cache folder.
func Dir(cacheDir string) string { return filepath.Join(cacheDir, "embeddings") }

// Path is the cache file of model under ski's cache folder.
func Path(cacheDir, model string) string {
	return filepath.Join(Dir(cacheDir), model+".vec")
}

// Cache is one model's cache, read into memory.
type Cache struct {
	path     string
	model    string
	dim      int
	vecs     map[Key][]float32
	order    []Key // in file order, oldest first
	MaxBytes int64
	// SyncEvery bounds how often appends are synced to the disk (Sync
	// syncs the rest).
	SyncEvery time.Duration
	// Damaged counts records passed over for a bad checksum when read.
	Damaged int
	warn    func(string)

	synced   time.Time // the last sync
	unsynced bool      // appended since
}

// Open reads the cache of model (vectors of dim floats) under cacheDir.
// A missing file is an empty cache; a damaged one is set aside (reported
// through warn) and started anew. It fails only when the cache folder
// cannot be made.
func Open(cacheDir, model string, dim int, warn func(string)) (*Cache, error) {
	if warn == nil {
		warn = func(string) {}
	}
	c := &Cache{path: Path(cacheDir, model), model: model, dim: dim, vecs: map[Key][]float32{},
		MaxBytes: DefaultMaxBytes, SyncEvery: time.Second, warn: warn}
	// The cache folder is ski's own, never a symlink's target.
	if err := xdg.OwnDir(filepath.Dir(c.path), cacheDir, warn); err != nil {
		return nil, fmt.Errorf("embedding cache: %w", err)
	}
	if err := c.load(); err != nil {
		c.setAside(err)
	}
	return c, nil
}

// Len is the number of vectors held.
func (c *Cache) Len() int { return len(c.vecs) }

// Path is the cache's file.
func (c *Cache) Path() string { return c.path }

// Get returns the vector of key.
func (c *Cache) Get(k Key) ([]float32, bool) {
	v, ok := c.vecs[k]
	return v, ok
}

func (c *Cache) recordSize() int { return keySize + 4*c.dim + 4 }

func (c *Cache) header() []byte {
	b := make([]byte, headerSize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[len(magic):], uint32(c.dim))
	crc := crc32.NewIEEE()
	crc.Write(b[:len(magic)+4])
	io.WriteString(crc, c.model)
	binary.LittleEndian.PutUint32(b[len(magic)+4:], crc.Sum32())
	return b
}

// errDamaged is a cache file that cannot be used as it is.
var errDamaged = errors.New("not a valid embedding cache")

// load reads the file; a missing one is empty.
func (c *Cache) load() error {
	f, err := openFile(c.path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return err
	} else if !st.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", errDamaged, c.path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	if len(data) < headerSize || string(data[:headerSize]) != string(c.header()) {
		return fmt.Errorf("%w: %s has a bad header", errDamaged, c.path)
	}
	c.parse(data[headerSize:])
	return nil
}

// parse adds the whole records of data, passing over damaged ones.
func (c *Cache) parse(data []byte) {
	size := c.recordSize()
	for len(data) >= size {
		rec := data[:size]
		data = data[size:]
		body := rec[:size-4]
		if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(rec[size-4:]) {
			c.Damaged++
			continue
		}
		var k Key
		copy(k[:], body)
		v := make([]float32, c.dim)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[keySize+4*i:]))
		}
		if _, ok := c.vecs[k]; !ok {
			c.order = append(c.order, k)
		}
		c.vecs[k] = v
	}
}

// setAside moves the damaged file away so the next append starts anew.
func (c *Cache) setAside(why error) {
	to, err := aside.Move(c.path, time.Now())
	if err != nil {
		c.warn(fmt.Sprintf("embedding cache: %v; %v", why, err))
		return
	}
	c.warn(fmt.Sprintf("embedding cache: %v; moved aside to %s", why, filepath.Base(to)))
}

func (c *Cache) appendRecord(b []byte, k Key, v []float32) []byte {
	start := len(b)
	b = append(b, k[:]...)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// Append writes vectors for keys to the file (where a process killed next
// keeps them; synced to the disk at most every SyncEvery, and by Sync)
// and keeps them in memory.
func (c *Cache) Append(keys []Key, vecs [][]float32) error {
	if len(keys) != len(vecs) {
		return fmt.Errorf("embedding cache: %d keys for %d vectors", len(keys), len(vecs))
	}
	var recs []byte
	for i, k := range keys {
		if len(vecs[i]) != c.dim {
			return fmt.Errorf("embedding cache: vector of %d dims, want %d", len(vecs[i]), c.dim)
		}
		recs = c.appendRecord(recs, k, vecs[i])
		if _, ok := c.vecs[k]; !ok {
			c.order = append(c.order, k)
		}
		c.vecs[k] = vecs[i]
	}
	f, size, err := c.lockedFile()
	if err != nil {
		return err
	}
	defer f.Close() // releases the lock
	if size+int64(len(recs)) > c.MaxBytes {
		return c.compact()
	}
	if _, err := f.WriteAt(recs, size); err != nil {
		return fmt.Errorf("embedding cache: write: %w", err)
	}
	// What is written survives the process being killed at once; a sync
	// makes it survive a power loss too, at most every SyncEvery.
	if time.Since(c.synced) < c.SyncEvery {
		c.unsynced = true
		return nil
	}
	return c.sync(f)
}

// Sync makes every vector appended so far survive a power loss.
func (c *Cache) Sync() error {
	if c == nil || !c.unsynced {
		return nil
	}
	f, err := openFile(c.path, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("embedding cache: sync: %w", err)
	}
	defer f.Close()
	return c.sync(f)
}

func (c *Cache) sync(f *os.File) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("embedding cache: sync: %w", err)
	}
	c.synced, c.unsynced = time.Now(), false
	return nil
}

// lockedFile opens the cache file for writing under an exclusive lock,
// making it (or setting a damaged one aside) as needed, and returns it with
// the end of its last whole record, where the next one goes.
func (c *Cache) lockedFile() (*os.File, int64, error) {
	for try := 0; ; try++ {
		f, err := openFile(c.path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			if try > 0 {
				return nil, 0, fmt.Errorf("embedding cache: %w", err)
			}
			c.setAside(err)
			continue
		}
		if err := flock.Lock(f); err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("embedding cache: lock: %w", err)
		}
		// A compaction may have renamed a new file over the one opened.
		st, err1 := f.Stat()
		cur, err2 := os.Lstat(c.path)
		if err1 != nil || err2 != nil || !os.SameFile(st, cur) {
			f.Close()
			if try > 3 {
				return nil, 0, fmt.Errorf("embedding cache: %s keeps changing", c.path)
			}
			continue
		}
		if !st.Mode().IsRegular() {
			f.Close()
			c.setAside(fmt.Errorf("%w: not a regular file", errDamaged))
			continue
		}
		head := make([]byte, headerSize)
		n, _ := f.ReadAt(head, 0)
		switch {
		case n == 0 && st.Size() == 0:
			if _, err := f.WriteAt(c.header(), 0); err != nil {
				f.Close()
				return nil, 0, fmt.Errorf("embedding cache: write: %w", err)
			}
			return f, int64(headerSize), nil
		case n < headerSize || string(head) != string(c.header()):
			f.Close()
			if try > 3 {
				return nil, 0, fmt.Errorf("embedding cache: %s: bad header", c.path)
			}
			c.setAside(fmt.Errorf("%w: bad header", errDamaged))
			continue
		}
		// Cut off a torn record left by a crash.
		whole := int64(headerSize) + (st.Size()-int64(headerSize))/int64(c.recordSize())*int64(c.recordSize())
		if whole != st.Size() {
			if err := f.Truncate(whole); err != nil {
				f.Close()
				return nil, 0, fmt.Errorf("embedding cache: truncate torn record: %w", err)
			}
		}
		return f, whole, nil
	}
}

// compact rewrites the file with the newest vectors held, up to half of
// MaxBytes; the caller holds the file's lock.
func (c *Cache) compact() error {
	keep := c.order
	if most := int((c.MaxBytes/2 - int64(headerSize)) / int64(c.recordSize())); len(keep) > most {
		for _, k := range keep[:len(keep)-most] {
			delete(c.vecs, k)
		}
		keep = keep[len(keep)-most:]
	}
	c.order = append([]Key(nil), keep...)
	return c.rewrite(keep)
}

// Keep rewrites the cache with only the vectors keep says yes to (a
// garbage collection), and reports how many it dropped.
func (c *Cache) Keep(keep func(Key, []float32) bool) (int, error) {
	f, _, err := c.lockedFile()
	if err != nil {
		return 0, err
	}
	defer f.Close()
	// Records appended by others since Open count too.
	if err := c.reload(f); err != nil {
		return 0, err
	}
	var kept []Key
	for _, k := range c.order {
		if keep(k, c.vecs[k]) {
			kept = append(kept, k)
		} else {
			delete(c.vecs, k)
		}
	}
	dropped := len(c.order) - len(kept)
	c.order = kept
	return dropped, c.rewrite(kept)
}

// reload reads the records of the locked file f into memory.
func (c *Cache) reload(f *os.File) error {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, math.MaxInt64))
	if err != nil {
		return fmt.Errorf("embedding cache: read: %w", err)
	}
	if len(data) >= headerSize {
		c.parse(data[headerSize:])
	}
	return nil
}

// rewrite replaces the file by one holding keys' vectors; the caller
// holds the file's lock.
func (c *Cache) rewrite(keys []Key) error {
	b := c.header()
	for _, k := range keys {
		b = c.appendRecord(b, k, c.vecs[k])
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".vec-*.tmp")
	if err != nil {
		return fmt.Errorf("embedding cache: compact: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err = tmp.Write(b); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path)
	}
	if err != nil {
		return fmt.Errorf("embedding cache: compact: %w", err)
	}
	return nil
}

// openFile opens path without following a symlink at its last element:
// the cache never writes through a link to someone else's file.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|xdg.NoFollow, perm)
}

// Lookup is Get on a cache that may be nil (no cache: never found).
func (c *Cache) Lookup(k Key) ([]float32, bool) {
	if c == nil {
		return nil, false
	}
	return c.Get(k)
}
