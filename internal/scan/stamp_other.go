//go:build !linux

package scan

import "os"

// fileID has nothing beyond size and modification time to add here.
func fileID(os.FileInfo) string { return "" }

// statDir reports false: without a change time, a listing is never reused.
func statDir(string) (dirID, bool) { return dirID{}, false }
