// Package dirwatch tells whether anything changed in a set of folders
// since they were watched, without walking them: on Linux through inotify,
// where asking costs one non-blocking read however many folders there are.
// Elsewhere New fails with ErrUnsupported and callers walk as before.
package dirwatch

import "errors"

// ErrUnsupported is New's error where the system cannot watch folders.
var ErrUnsupported = errors.New("folder watching is not supported here")

// ErrLimit is Add's error when the set holds as many watches as it may:
// Limit of them, or all the system lets this user have.
var ErrLimit = errors.New("folder watch limit reached")
