//go:build !linux

package dirwatch

// Set is a set of watched folders; here it can never be opened.
type Set struct{}

// New fails: this system has no folder watching ski uses.
func New() (*Set, error) { return nil, ErrUnsupported }

// Limit is how many folders one set may watch: none here.
func Limit() int { return 0 }

// Add fails: nothing can be watched.
func (s *Set) Add(string) error { return ErrUnsupported }

// AddEntry fails: nothing can be watched.
func (s *Set) AddEntry(string, string) error { return ErrUnsupported }

// Len is 0: nothing is watched.
func (s *Set) Len() int { return 0 }

// Changed always reports a change.
func (s *Set) Changed() bool { return true }

// Close does nothing.
func (s *Set) Close() error { return nil }
