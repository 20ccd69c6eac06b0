//go:build unix

package vecfile

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// mapFile maps f read-only and returns its bytes as a string, so ranking
// reads the index where the page cache holds it instead of copying it.
// With whole, every page is mapped at once (for a read of every byte);
// else each page when it is first read: ranking reads the vectors and
// small parts of the rest, about half the pages of a large index.
// The mapping is never undone: a ranking index lives as long as the
// process, and ski replaces an index by renaming a new file over it, which
// leaves a mapped old file whole.
func mapFile(f *os.File, whole bool) (string, error) {
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	size := st.Size()
	if size == 0 {
		return "", nil
	}
	if size != int64(int(size)) {
		return "", fmt.Errorf("%d bytes is too large to map", size)
	}
	flags := syscall.MAP_SHARED
	if whole {
		flags |= mapPopulate
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, flags)
	if err != nil {
		return "", fmt.Errorf("map: %w", err)
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}
