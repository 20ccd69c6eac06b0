package vecfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"unsafe"
)

// Version is the current file format version.
const Version = 9

const magic = "SKIVEC\n"

// maxHeader and maxSection bound what a corrupt length can make the reader
// allocate.
const (
	maxHeader  = 4 << 20
	maxSection = 1 << 30
)

// ErrCorrupt marks a file that is not a readable index of this version.
var ErrCorrupt = errors.New("not a valid ski index")

// nameHash is the 32-bit FNV-1a hash of a name.
func nameHash(name string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return h
}

// The table's sections, in order.
const (
	secEntryIndex = iota
	secEntries
	secVectors
	secIntents
	secKeyworded
	secNames
	secText
	secBody
	sections
)

var sectionNames = [sections]string{"entry index", "entries", "vectors", "intents", "keyworded", "names", "text field", "body field"}

// castagnoli is the CRC-32C table: hardware CRC instructions make it about
// twice as fast as the IEEE polynomial here.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the CRC-32C of s, read in place.
func checksum(s string) uint32 {
	return crc32.Checksum(unsafe.Slice(unsafe.StringData(s), len(s)), castagnoli)
}

// le32 reads the little-endian uint32 at s[at:].
func le32(s string, at int) uint32 {
	return uint32(s[at]) | uint32(s[at+1])<<8 | uint32(s[at+2])<<16 | uint32(s[at+3])<<24
}

// cursor reads a table front to back. Reading past the end, or a count
// larger than what is left, marks it bad and yields zero values from then
// on, so callers check bad once per item.
type cursor struct {
	s   string
	bad bool
}

func (c *cursor) take(n int) string {
	if c.bad || n < 0 || n > len(c.s) {
		c.bad = true
		return ""
	}
	v := c.s[:n]
	c.s = c.s[n:]
	return v
}

func (c *cursor) u8() byte {
	if b := c.take(1); len(b) == 1 {
		return b[0]
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if b := c.take(4); len(b) == 4 {
		return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	}
	return 0
}

// uvarint reads an unsigned varint.
func (c *cursor) uvarint() uint64 {
	var x uint64
	for i, shift := 0, uint(0); i < len(c.s) && i < binary.MaxVarintLen64; i, shift = i+1, shift+7 {
		b := c.s[i]
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			c.s = c.s[i+1:]
			return x
		}
	}
	c.bad = true
	return 0
}

// n reads a count of items or bytes, which cannot exceed the bytes left.
func (c *cursor) n() int {
	x := c.uvarint()
	if x > uint64(len(c.s)) {
		c.bad = true
		return 0
	}
	return int(x)
}

func (c *cursor) str() string { return c.take(c.n()) }

// checked reads what appendChecked wrote, checking its sum.
func (c *cursor) checked() (string, error) {
	n, sum := c.u32(), c.u32()
	if n > maxSection {
		return "", fmt.Errorf("%w: section of %d bytes", ErrCorrupt, n)
	}
	b := c.take(int(n))
	if c.bad {
		return "", io.ErrUnexpectedEOF
	}
	if checksum(b) != sum {
		return "", fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	return b, nil
}

func (c *cursor) list() []string {
	n := c.n()
	if n == 0 {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = c.str()
	}
	return l
}

// pathDir is the folder part of a path (a substring: no copy), or "".
func pathDir(path string) string {
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		return path[:i]
	}
	return ""
}
