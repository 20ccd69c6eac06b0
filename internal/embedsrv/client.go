package embedsrv

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/unixsock"
)

// Client embeds through the server at Socket when it answers, and with
// Local otherwise. After one failure it stops asking for the rest of its
// life. It never changes results: the server runs the same model code. It
// keeps its connection between requests (a handshake and the query that
// follows it share one), until Close.
type Client struct {
	Local  embed.Embedder // the in-process embedder, opened lazily by its owner
	Socket string
	Build  string
	// Timeout bounds connecting and a one-text round trip; longer requests
	// get PerText more for each text.
	Timeout, PerText time.Duration
	// Start, when set, is called on Close when no server listened on
	// Socket (no socket file, or a dead server's), to start one for next
	// time: after the work, so the new server's loading does not compete
	// with this process's own.
	Start func() error
	// Log receives one line when a server was there but failed.
	Log func(string)
	// ReadPrompt reads a prompt (prompt.Read), for EmbedPrompts when it
	// embeds in process.
	ReadPrompt func(p string) prompt.Reading
	// Project, when set, goes with requests of prompts: where they come
	// from, for the server to watch (ServerOptions.Watch).
	Project []byte

	off, start bool
	conn       *os.File
}

// Model is the local embedder's model.
func (c *Client) Model() embed.Model { return c.Local.Model() }

// Close closes the connection and the local embedder, and starts a server
// if none answered.
func (c *Client) Close() error {
	c.hangUp()
	if c.start && c.Start != nil {
		if err := c.Start(); err != nil && c.Log != nil {
			c.Log(fmt.Sprintf("start embed server: %v", err))
		}
	}
	return c.Local.Close()
}

// Embed asks the server, falling back to the local embedder.
func (c *Client) Embed(texts []string, p embed.Purpose) ([][]float32, error) {
	if resp, ok := c.ask(request{Purpose: p, Texts: texts}); ok {
		return resp.vecs, nil
	}
	return c.Local.Embed(texts, p)
}

// ask sends req to the server unless it failed before, and says whether it
// answered; after a failure the server is not asked again.
func (c *Client) ask(req request) (answer, bool) {
	if c.off {
		return answer{}, false
	}
	resp, err := c.call(req)
	if err != nil {
		c.off = true
		c.failed(err)
		return answer{}, false
	}
	return resp, true
}

// answer is a response with its vectors unpacked.
type answer struct {
	vecs     [][]float32
	readings []prompt.Reading
	current  bool
	ranked   string
}

// EmbedPrompts reads prompts (prompt.Read) and embeds their query texts,
// as embed.Queries does. The server reads the prompts itself, where the
// patterns that read them are compiled already, and returns its readings;
// this process need not compile them. When the server does not answer,
// they are read here and embedded in process.
func (c *Client) EmbedPrompts(prompts []string) ([][]float32, []prompt.Reading, error) {
	resp, ok := c.ask(request{Purpose: embed.Query, Texts: prompts, Prompts: true, Project: c.Project})
	if ok && len(resp.readings) == len(prompts) {
		return resp.vecs, resp.readings, nil
	}
	if ok {
		c.off = true
		c.failed(fmt.Errorf("%d readings for %d prompts", len(resp.readings), len(prompts)))
	}
	if c.ReadPrompt == nil {
		return nil, nil, errors.New("embed server client: no ReadPrompt to read prompts in process")
	}
	readings := make([]prompt.Reading, len(prompts))
	texts := make([]string, len(prompts))
	for i, p := range prompts {
		readings[i] = c.ReadPrompt(p)
		texts[i] = readings[i].Text
	}
	vecs, err := embed.Queries(c.Local, texts)
	return vecs, readings, err
}

// failed notes that a server should be started when none listens, or when
// the one that did is of another version (it exits on that), and reports
// failures other than no server.
func (c *Client) failed(err error) {
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
		c.start = true
		return
	}
	if errors.Is(err, errMismatch) {
		c.start = true
	}
	if c.Log != nil {
		c.Log(fmt.Sprintf("embed server %s: %v; embedding in process", c.Socket, err))
	}
}

// Ping asks the server whether it answers for this client's model and
// build, without embedding anything (nor waiting for the model). A server
// of another version exits on it, as on any request.
func (c *Client) Ping() error {
	_, err := c.call(request{Purpose: embed.Query})
	return err
}

// Current asks the server whether the index of project (a Project as
// ServerOptions.Watch reads it) is current as far as its watch knows, so
// the caller need not walk the skills to find out. It is false when no
// server answers, or when the server does not know (it then starts
// watching the project). It leaves no connection open and never starts a
// server.
func (c *Client) Current(project []byte) bool {
	defer c.hangUp()
	resp, err := c.call(request{Purpose: embed.Query, Project: project, Current: true})
	return err == nil && resp.current
}

// Rank asks the server to rank query, a query record, against the index
// at path with settings (ServerOptions.Rank), and returns the candidate
// lines. It never starts a server.
func (c *Client) Rank(index string, query, settings []byte) ([]byte, error) {
	resp, err := c.call(request{Purpose: embed.Query, Rank: &rankRequest{Index: index, Query: query, Settings: settings}})
	if err != nil {
		return nil, err
	}
	if r := resp.ranked; r != "" && r[len(r)-1] != '\n' {
		return nil, errors.New("server's ranking does not end a line")
	}
	return []byte(resp.ranked), nil
}

// call sends req (its Hello filled in) and returns the server's answer. It
// dials the server unless it holds a connection; after an error it holds
// none.
func (c *Client) call(req request) (answer, error) {
	reused := c.conn != nil
	resp, answered, err := c.exchange(req)
	if err != nil && reused && !answered && !errors.Is(err, os.ErrDeadlineExceeded) {
		// The server closed the connection kept from the last request
		// (it stopped in between): ask once more on a new one.
		c.hangUp()
		resp, _, err = c.exchange(req)
	}
	if err != nil {
		c.hangUp()
	}
	return resp, err
}

// exchange is one request and its response; answered says a response came.
func (c *Client) exchange(req request) (a answer, answered bool, err error) {
	texts := req.Texts
	if c.conn == nil {
		conn, err := unixsock.Dial(c.Socket, c.Timeout)
		if err != nil {
			return answer{}, false, err
		}
		// A prompt goes only to a server of this user's.
		if err := unixsock.CheckPeer(conn); err != nil {
			conn.Close()
			return answer{}, false, fmt.Errorf("server at %s: %w", c.Socket, err)
		}
		c.conn = conn
	}
	c.conn.SetDeadline(time.Now().Add(c.Timeout + time.Duration(max(len(texts)-1, 0))*c.PerText))
	m := c.Local.Model()
	hello := Hello{Protocol: Protocol, Model: m.ID, Build: c.Build}
	req.Hello = hello
	if err := writeFrame(c.conn, req); err != nil {
		return answer{}, false, fmt.Errorf("send: %w", err)
	}
	var resp response
	if err := readFrame(c.conn, &resp); err != nil {
		return answer{}, false, fmt.Errorf("receive: %w", err)
	}
	if resp.Hello != hello {
		return answer{}, true, fmt.Errorf("%w: server %+v, client %+v", errMismatch, resp.Hello, hello)
	}
	if resp.Error != "" {
		return answer{}, true, errors.New(resp.Error)
	}
	if resp.Dim != m.Dim {
		return answer{}, true, fmt.Errorf("server vectors have %d dims, model %d", resp.Dim, m.Dim)
	}
	a.vecs, err = unpackVectors(resp.Vectors, len(texts), resp.Dim)
	a.readings, a.current, a.ranked = resp.Readings, resp.Current, resp.Ranked
	return a, true, err
}

func (c *Client) hangUp() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}
