package embedsrv

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/reader"
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
	// Reader, when set, tells the server with requests of prompts that
	// their hook has the reader on (ServerOptions.Prompted).
	Reader bool
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
	resp, err := c.callJSON(req)
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
	resp, ok := c.ask(request{Purpose: embed.Query, Texts: prompts, Prompts: true, Reader: c.Reader, Project: c.Project})
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
	_, err := c.callJSON(request{Purpose: embed.Query})
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
	resp, err := c.callJSON(request{Purpose: embed.Query, Project: project, Current: true})
	return err == nil && resp.current
}

// Rank asks the server to rank query, a query record, against the index
// at path with settings (ServerOptions.Rank), and returns the candidate
// lines. It never starts a server. Its request is encoded, and the
// response read, without encoding/json (rankFrame).
func (c *Client) Rank(index string, query, settings []byte) ([]byte, error) {
	encode := func(h Hello) ([]byte, error) { return rankFrame(h, index, query, settings), nil }
	a, err := c.call(0, encode, func(raw []byte, h Hello) (answer, error) {
		r := gjson.ParseBytes(raw)
		got := Hello{Protocol: int(r.Get("protocol").Int()), Model: r.Get("model").Str, Build: r.Get("build").Str}
		if err := refused(got, h, r.Get("error").Str); err != nil {
			return answer{}, err
		}
		return answer{ranked: r.Get("ranked").Str}, nil
	})
	if err != nil {
		return nil, err
	}
	if r := a.ranked; r != "" && r[len(r)-1] != '\n' {
		return nil, errors.New("server's ranking does not end a line")
	}
	return []byte(a.ranked), nil
}

// Read asks the server's reader to read text (a prompt as ski reads it)
// with the skills ids of the index at path (ServerOptions.Read), and
// returns its beliefs, one per id, or reader.ErrPastShare when the server
// declined to read past the reader's share. It never starts a server.
func (c *Client) Read(index, text string, ids []string) ([]float64, error) {
	encode := func(h Hello) ([]byte, error) {
		return json.Marshal(request{Hello: h, Purpose: embed.Query, Read: &readRequest{Index: index, Text: text, IDs: ids}})
	}
	var beliefs []float64
	declined := false
	_, err := c.call(0, encode, func(raw []byte, h Hello) (answer, error) {
		var resp response
		if err := json.Unmarshal(raw, &resp); err != nil {
			return answer{}, fmt.Errorf("receive: %w", err)
		}
		if err := refused(resp.Hello, h, resp.Error); err != nil {
			return answer{}, err
		}
		beliefs, declined = resp.Beliefs, resp.Declined
		return answer{}, nil
	})
	if err == nil && declined {
		return nil, reader.ErrPastShare
	}
	if err == nil && len(beliefs) != len(ids) {
		err = fmt.Errorf("the server read %d of %d skills", len(beliefs), len(ids))
	}
	return beliefs, err
}

// Stats asks the server for its counts. It never starts a server.
func (c *Client) Stats() (Stats, error) {
	defer c.hangUp()
	var st Stats
	_, err := c.call(0, func(h Hello) ([]byte, error) {
		return json.Marshal(request{Hello: h, Purpose: embed.Query, Stats: true})
	}, func(raw []byte, h Hello) (answer, error) {
		var resp response
		if err := json.Unmarshal(raw, &resp); err != nil {
			return answer{}, fmt.Errorf("receive: %w", err)
		}
		if err := refused(resp.Hello, h, resp.Error); err != nil {
			return answer{}, err
		}
		if resp.Stats == nil {
			return answer{}, errors.New("the server sent no counts")
		}
		st = *resp.Stats
		return answer{}, nil
	})
	return st, err
}

// callJSON sends req and decodes the response (request and response
// objects of encoding/json).
func (c *Client) callJSON(req request) (answer, error) {
	encode := func(h Hello) ([]byte, error) {
		req.Hello = h
		return json.Marshal(req)
	}
	return c.call(len(req.Texts), encode, func(raw []byte, h Hello) (answer, error) {
		var resp response
		if err := json.Unmarshal(raw, &resp); err != nil {
			return answer{}, fmt.Errorf("receive: %w", err)
		}
		if err := refused(resp.Hello, h, resp.Error); err != nil {
			return answer{}, err
		}
		if m := c.Local.Model(); resp.Dim != m.Dim {
			return answer{}, fmt.Errorf("server vectors have %d dims, model %d", resp.Dim, m.Dim)
		}
		vecs, err := unpackVectors(resp.Vectors, len(req.Texts), resp.Dim)
		return answer{vecs: vecs, readings: resp.Readings, current: resp.Current}, err
	})
}

// refused is the error a response carries, if any: its server is of
// another version (its Hello is not the client's), or it sent an error.
func refused(server, client Hello, failure string) error {
	if server != client {
		return fmt.Errorf("%w: server %+v, client %+v", errMismatch, server, client)
	}
	if failure != "" {
		return errors.New(failure)
	}
	return nil
}

// call sends the request encode makes (given this client's Hello) and
// returns what decode makes of the response; texts is how many texts it
// embeds, for its deadline. It dials the server unless it holds a
// connection; after an error it holds none.
func (c *Client) call(texts int, encode func(Hello) ([]byte, error), decode func([]byte, Hello) (answer, error)) (answer, error) {
	h := Hello{Protocol: Protocol, Model: c.Local.Model().ID, Build: c.Build}
	payload, err := encode(h)
	if err != nil {
		return answer{}, err
	}
	reused := c.conn != nil
	raw, err := c.exchange(payload, texts)
	if err != nil && reused && !errors.Is(err, os.ErrDeadlineExceeded) {
		// The server closed the connection kept from the last request
		// (it stopped in between): ask once more on a new one.
		c.hangUp()
		raw, err = c.exchange(payload, texts)
	}
	var a answer
	if err == nil {
		a, err = decode(raw, h)
	}
	if err != nil {
		c.hangUp()
	}
	return a, err
}

// exchange sends one request frame and returns the response frame; an
// error means no response came.
func (c *Client) exchange(payload []byte, texts int) ([]byte, error) {
	if c.conn == nil {
		conn, err := unixsock.Dial(c.Socket, c.Timeout)
		if err != nil {
			return nil, err
		}
		// A prompt goes only to a server of this user's.
		if err := unixsock.CheckPeer(conn); err != nil {
			conn.Close()
			return nil, fmt.Errorf("server at %s: %w", c.Socket, err)
		}
		c.conn = conn
	}
	c.conn.SetDeadline(time.Now().Add(c.Timeout + time.Duration(max(texts-1, 0))*c.PerText))
	if err := writeRaw(c.conn, payload); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	raw, err := readRaw(c.conn)
	if err != nil {
		return nil, fmt.Errorf("receive: %w", err)
	}
	return raw, nil
}

func (c *Client) hangUp() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}
