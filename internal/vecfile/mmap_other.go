//go:build !unix

package vecfile

import (
	"io"
	"os"
)

// mapFile reads f whole where mapping it is not supported.
func mapFile(f *os.File, _ bool) (string, error) {
	b, err := io.ReadAll(f)
	return string(b), err
}
