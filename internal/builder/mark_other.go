//go:build !unix

package builder

import "os"

// fileIno is 0: this system's file information has no inode number.
func fileIno(os.FileInfo) int64 { return 0 }
