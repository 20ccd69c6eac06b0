package embedsrv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/flock"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/unixsock"
	"github.com/skill-inject/ski/internal/xdg"
)

// ErrRunning means another server holds the socket's lock.
var ErrRunning = errors.New("an embed server is already running")

// ServerOptions configure Serve.
type ServerOptions struct {
	Socket string        // path of the socket (see SocketPath)
	Idle   time.Duration // exit after this long without a request
	Build  string        // this binary's build id
	// Open loads the model; it is called once the lock is held, and the
	// socket is created only when it succeeded, so clients never wait for
	// a server that is still loading.
	Open func() (embed.Embedder, error)
	// CacheSize is how many query vectors are kept for repeated prompts.
	CacheSize int
	// Delay is how long to wait, holding the lock, before loading the
	// model, so a server started at the end of a prompt does not compete
	// with the rest of that prompt's stages.
	Delay time.Duration
	// Hint, when set, turns a host event written to the FIFO at
	// HintPath(Socket) into the query text to embed ahead of the request
	// ("" for none).
	Hint func(event []byte) string
	// ReadPrompt, when set, reads a prompt (prompt.Read), for requests of
	// prompts (Client.EmbedPrompts).
	ReadPrompt func(p string) prompt.Reading
	// Watch, when set, is given the project of each request that names
	// one (Client.Project), runs for as long as the server does (called
	// once, in a goroutine, with a channel closed at its stop), and says
	// whether a project's index is current as far as it knows
	// (Client.Current; false when it does not know).
	Watch interface {
		Add(project []byte)
		Run(stop <-chan struct{})
		Current(project []byte) bool
	}
	// Prompted, when set, is told of each request of n prompts whose hook
	// has the reader on (Client.Reader): the reader's share of the prompts
	// counts them (reader.Share).
	Prompted func(n int)
	// Rank, when set, ranks a query record against the index at a path
	// with the given settings and returns the candidate lines
	// (rank.Held.Rank), for Client.Rank.
	Rank func(index string, query, settings []byte) ([]byte, error)
	// Read, when set, has the reader read a prompt's text with the skills
	// ids of the index at a path and returns its beliefs, for Client.Read.
	Read func(index, text string, ids []string) ([]float64, error)
	// Stats, when set, gives the server's counts (Client.Stats).
	Stats func() Stats
	// WatchEvery is how often the server checks that its socket and run
	// directory are still there and private; 0 means every second.
	WatchEvery time.Duration
}

// Serve runs the server until it has been idle for o.Idle or a client of
// another version calls. It returns ErrRunning when another server holds
// the lock of o.Socket.
func Serve(o ServerOptions) error {
	lock, err := flock.Open(o.Socket + ".lock")
	if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer lock.Close()
	if ok, err := flock.TryLock(lock); err != nil {
		return fmt.Errorf("lock %s: %w", lock.Name(), err)
	} else if !ok {
		return ErrRunning
	}
	// The lock file names the server's process, for people and scripts.
	if err := lock.Truncate(0); err == nil {
		fmt.Fprintf(lock, "%d\n", os.Getpid())
	}
	time.Sleep(o.Delay)
	emb, err := o.Open()
	if err != nil {
		return err
	}
	defer emb.Close()
	// Holding the lock, any socket file left is a dead server's.
	if err := os.Remove(o.Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	ln, err := unixsock.Listen(o.Socket)
	if err != nil {
		return err
	}
	defer ln.Close()
	s := &server{o: o, emb: emb, ln: ln, cache: newCache(o.CacheSize), conns: map[*os.File]bool{},
		hello: Hello{Protocol: Protocol, Model: emb.Model().ID, Build: o.Build}}
	if o.Hint != nil {
		if stop, err := s.hints(); err == nil {
			defer stop()
		}
	}
	s.idle = time.AfterFunc(o.Idle, s.stop)
	defer s.idle.Stop()
	if o.Watch != nil {
		stop := make(chan struct{})
		defer close(stop)
		go o.Watch.Run(stop)
	}
	stopWatch := s.watch(o.Socket, o.WatchEvery)
	defer stopWatch()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if s.stopped() {
				return nil
			}
			return err
		}
		s.idle.Reset(o.Idle)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.handle(conn)
		}()
	}
}

type server struct {
	o      ServerOptions
	emb    embed.Embedder
	ln     *unixsock.Listener
	hello  Hello
	mu     sync.Mutex // guards emb and cache
	cache  *cache
	connMu sync.Mutex        // guards conns
	conns  map[*os.File]bool // the open connections; nil once stopped
	idle   *time.Timer       // stops the server after o.Idle without requests
	// prompts counts the prompts read and embedded since the start.
	prompts atomic.Int64
}

// stop closes the listener and the connections still open, so clients
// that keep one do not hold the server up.
func (s *server) stop() {
	s.connMu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.conns = nil
	s.connMu.Unlock()
	s.ln.Close() // after conns: Accept's caller then sees stopped()
}

// stopped reports whether stop has run.
func (s *server) stopped() bool {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	return s.conns == nil
}

// track adds conn to the open connections, or says the server stopped.
func (s *server) track(conn *os.File) bool {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.conns == nil {
		return false
	}
	s.conns[conn] = true
	return true
}

func (s *server) untrack(conn *os.File) {
	s.connMu.Lock()
	delete(s.conns, conn)
	s.connMu.Unlock()
}

// handle answers the requests of one connection until the client hangs up
// (or a request is of another version). A client of another user is hung
// up on at once.
func (s *server) handle(conn *os.File) {
	if unixsock.CheckPeer(conn) != nil || !s.track(conn) {
		conn.Close()
		return
	}
	defer func() {
		s.untrack(conn)
		conn.Close()
	}()
	for {
		conn.SetDeadline(time.Now().Add(time.Minute))
		var req request
		if err := readFrame(conn, &req); err != nil {
			return
		}
		s.idle.Reset(s.o.Idle)
		if len(req.Project) > 0 && s.o.Watch != nil && req.Hello == s.hello {
			s.o.Watch.Add(req.Project)
		}
		if req.Hello != s.hello {
			writeFrame(conn, response{Hello: s.hello,
				Error: fmt.Sprintf("%v: server %+v, client %+v", errMismatch, s.hello, req.Hello)})
			s.stop() // a newer binary or another model is in use: make way
			return
		}
		if err := writeFrame(conn, s.answer(req)); err != nil {
			return
		}
	}
}

// answer is the response to req, a request of this server's version.
func (s *server) answer(req request) response {
	resp := response{Hello: s.hello}
	resp.Dim = s.emb.Model().Dim
	if req.Current {
		resp.Current = s.o.Watch != nil && len(req.Project) > 0 && s.o.Watch.Current(req.Project)
		return resp
	}
	if req.Stats {
		var st Stats
		if s.o.Stats != nil {
			st = s.o.Stats()
		}
		st.Prompts = int(s.prompts.Load())
		resp.Stats = &st
		return resp
	}
	if req.Read != nil {
		return s.read(req.Read)
	}
	if req.Rank != nil {
		if s.o.Rank == nil {
			return response{Hello: s.hello, Error: "this server does not rank"}
		}
		ranked, err := s.o.Rank(req.Rank.Index, req.Rank.Query, req.Rank.Settings)
		if err != nil {
			return response{Hello: s.hello, Error: err.Error()}
		}
		resp.Ranked = string(ranked)
		return resp
	}
	if len(req.Texts) == 0 {
		// A handshake only: answered without waiting for the model.
		return resp
	}
	var vecs [][]float32
	var err error
	switch {
	case !req.Prompts:
		vecs, err = s.embed(req.Texts, req.Purpose)
	case s.o.ReadPrompt == nil:
		err = errors.New("this server does not read prompts")
	default:
		s.prompts.Add(int64(len(req.Texts)))
		if req.Reader && s.o.Prompted != nil {
			s.o.Prompted(len(req.Texts))
		}
		resp.Readings = make([]prompt.Reading, len(req.Texts))
		texts := make([]string, len(req.Texts))
		for i, p := range req.Texts {
			resp.Readings[i] = s.o.ReadPrompt(p)
			texts[i] = resp.Readings[i].Text
		}
		vecs, err = embed.Queries(cached{s}, texts)
	}
	if err != nil {
		return response{Hello: s.hello, Error: err.Error()}
	}
	resp.Vectors = packVectors(vecs, resp.Dim)
	return resp
}

// read answers a request of Read.
func (s *server) read(r *readRequest) response {
	if s.o.Read == nil {
		return response{Hello: s.hello, Error: "this server does not read"}
	}
	beliefs, err := s.o.Read(r.Index, r.Text, r.IDs)
	if errors.Is(err, reader.ErrPastShare) {
		return response{Hello: s.hello, Declined: true}
	}
	if err != nil {
		return response{Hello: s.hello, Error: err.Error()}
	}
	return response{Hello: s.hello, Dim: s.emb.Model().Dim, Beliefs: beliefs}
}

// embed embeds texts one request at a time, answering repeated queries
// from the cache.
func (s *server) embed(texts []string, p embed.Purpose) ([][]float32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p == embed.Query && len(texts) == 1 {
		if v, ok := s.cache.get(texts[0]); ok {
			return [][]float32{v}, nil
		}
	}
	vecs, err := s.emb.Embed(texts, p)
	if err != nil {
		return nil, err
	}
	if p == embed.Query && len(texts) == 1 && len(vecs) == 1 {
		s.cache.put(texts[0], vecs[0])
	}
	return vecs, nil
}

// cached is the server's model behind its query cache, as an Embedder.
type cached struct{ s *server }

func (c cached) Model() embed.Model { return c.s.emb.Model() }
func (c cached) Close() error       { return nil }
func (c cached) Embed(texts []string, p embed.Purpose) ([][]float32, error) {
	return c.s.embed(texts, p)
}

// cache keeps the vectors of the last few queries, dropping the oldest.
type cache struct {
	size  int
	vecs  map[string][]float32
	order []string
}

func newCache(size int) *cache { return &cache{size: size, vecs: map[string][]float32{}} }

func (c *cache) get(text string) ([]float32, bool) {
	v, ok := c.vecs[text]
	return v, ok
}

func (c *cache) put(text string, v []float32) {
	if c.size <= 0 {
		return
	}
	if _, ok := c.vecs[text]; ok {
		return
	}
	if len(c.order) >= c.size {
		delete(c.vecs, c.order[0])
		c.order = c.order[1:]
	}
	c.vecs[text] = v
	c.order = append(c.order, text)
}

// watch stops the server once its socket file is gone or replaced, or its
// directory is gone or no longer private to this user: a server nobody can
// reach, or whose FIFO others might open, must not keep running (and
// embedding) until its idle timeout. The returned func ends the watch.
func (s *server) watch(socket string, every time.Duration) (stop func()) {
	if every <= 0 {
		every = time.Second
	}
	mine, err := os.Lstat(socket)
	if err != nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if !stillServing(socket, mine) {
				s.stop()
				return
			}
		}
	}()
	return func() { close(done) }
}

// stillServing reports whether the file at socket is still the socket
// mine, in a directory only this user may enter.
func stillServing(socket string, mine os.FileInfo) bool {
	st, err := os.Lstat(socket)
	if err != nil || !os.SameFile(st, mine) {
		return false
	}
	dir, err := os.Lstat(filepath.Dir(socket))
	return err == nil && dir.IsDir() && dir.Mode().Perm()&0o077 == 0 && xdg.Mine(dir)
}
