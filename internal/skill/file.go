package skill

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// FileName is the name a skill file must have.
const FileName = "SKILL.md"

// DefaultMaxSize is the default cap on a SKILL.md (256 KiB).
const DefaultMaxSize int64 = 256 << 10

// File is a SKILL.md as read from disk.
type File struct {
	Path    string
	Data    []byte
	Size    int64
	ModTime time.Time
}

// Hash is "sha256:<hex>" of the file's bytes.
func (f File) Hash() string {
	sum := sha256.Sum256(f.Data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ReadFile reads the SKILL.md at path, following symlinks. It refuses
// directories and special files before opening them (a named pipe would
// block) and files over maxSize bytes (<= 0 means DefaultMaxSize). Every
// failure is an *Error.
func ReadFile(path string, maxSize int64) (File, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	st, err := os.Stat(path)
	if err != nil {
		return File{}, statError(path, err)
	}
	if err := checkMode(path, st, maxSize); err != nil {
		return File{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return File{}, statError(path, err)
	}
	defer f.Close()
	// Read at most one byte past the cap, in case the file grew.
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return File{}, errorf(path, 0, "unreadable: %v", unwrapPath(err))
	}
	if int64(len(data)) > maxSize {
		return File{}, errorf(path, 0, "file is over the %d-byte size limit", maxSize)
	}
	return File{Path: path, Data: data, Size: int64(len(data)), ModTime: st.ModTime()}, nil
}

func checkMode(path string, st fs.FileInfo, maxSize int64) error {
	switch {
	case st.IsDir():
		return errorf(path, 0, "%s is a directory", FileName)
	case !st.Mode().IsRegular():
		return errorf(path, 0, "not a regular file (%s)", st.Mode().Type())
	case st.Size() > maxSize:
		return errorf(path, 0, "file is over the %d-byte size limit (%d bytes)", maxSize, st.Size())
	}
	return nil
}

func statError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr == nil {
			return errorf(path, 0, "broken symlink")
		}
		return errorf(path, 0, "file vanished while scanning")
	}
	return errorf(path, 0, "unreadable: %v", unwrapPath(err))
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
