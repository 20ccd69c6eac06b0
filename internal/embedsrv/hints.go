package embedsrv

import (
	"bufio"
	"errors"
	"os"

	"github.com/skill-inject/ski/internal/embed"
)

// HintPath is the FIFO beside socket on which a server takes hints: host
// events, one a line, whose prompts it will soon be asked to embed. The
// prompt hook writes its event there before it starts the stages, so the
// model runs while they start and the query finds its vector in the cache.
func HintPath(socket string) string { return socket + ".in" }

// maxHint bounds a hint line; longer ones are skipped.
const maxHint = 64 << 10

// hints makes the FIFO and embeds the texts of the hints written to it
// until the returned stop is called, which waits for an embedding under way.
func (s *server) hints() (stop func(), err error) {
	path := HintPath(s.o.Socket)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := mkfifo(path); err != nil {
		return nil, err
	}
	// Open read-write: closing the last writer then never ends the
	// stream, and a hook's write never waits for a reader.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	texts := make(chan string, 4)
	done := make(chan struct{})
	// The reader drains the FIFO whatever the model is doing, so a hook's
	// write never blocks; what does not fit in texts is dropped.
	go func() {
		defer close(texts)
		r := bufio.NewReaderSize(f, maxHint)
		for {
			line, err := r.ReadSlice('\n')
			for errors.Is(err, bufio.ErrBufferFull) {
				line = nil
				_, err = r.ReadSlice('\n')
			}
			if err != nil {
				return
			}
			if t := s.o.Hint(line); t != "" {
				select {
				case texts <- t:
				default:
				}
			}
		}
	}()
	go func() {
		defer close(done)
		for t := range texts {
			s.embed([]string{t}, embed.Query)
		}
	}()
	return func() {
		if st, err := f.Stat(); err == nil {
			if cur, err := os.Lstat(path); err == nil && os.SameFile(st, cur) {
				os.Remove(path)
			}
		}
		f.Close()
		<-done
	}, nil
}
