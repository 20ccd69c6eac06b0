//go:build unix

package embedsrv

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/intent"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/unixsock"
)

var texts = []string{"write a blameless postmortem", "create a helm chart"}

// socket is a fresh socket path in a user-only directory.
func socket(t *testing.T) string {
	t.Helper()
	dir, err := RunDir("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "embed.sock")
}

// serve runs a lexical server on sock until it exits; the channel gets
// Serve's result.
func serve(t *testing.T, sock, build string, idle time.Duration) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		done <- Serve(ServerOptions{Socket: sock, Idle: idle, Build: build, CacheSize: 8,
			Open: func() (embed.Embedder, error) { return embed.NewLexical(), nil }})
	}()
	for i := 0; i < 500 && !alive(sock); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	if !alive(sock) {
		t.Fatal("server did not come up")
	}
	return done
}

// waitExit waits for a server started by serve to return, failing with
// why when it takes longer than 5 s or returns an error.
func waitExit(t *testing.T, done <-chan error, why string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal(why)
	}
}

// alive reports whether a server answers on socket (it may still be of
// another version).
func alive(socket string) bool {
	conn, err := unixsock.Dial(socket, 100*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// local counts the texts it embeds in process.
type local struct {
	embed.Embedder
	n int
}

func (l *local) Embed(texts []string, p embed.Purpose) ([][]float32, error) {
	l.n += len(texts)
	return l.Embedder.Embed(texts, p)
}

func client(sock, build string) (*Client, *local, *int) {
	l := &local{Embedder: embed.NewLexical()}
	starts := new(int)
	return &Client{Local: l, Socket: sock, Build: build, Timeout: 200 * time.Millisecond, PerText: 50 * time.Millisecond,
		Start: func() error { *starts++; return nil }}, l, starts
}

func want(t *testing.T) [][]float32 {
	v, err := embed.NewLexical().Embed(texts, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// check embeds texts and wants the in-process vectors bit for bit, with
// inProcess of them embedded locally.
func check(t *testing.T, c *Client, l *local, inProcess int) {
	t.Helper()
	got, err := c.Embed(texts, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want(t)) {
		t.Fatal("vectors differ from in-process ones")
	}
	if l.n != inProcess {
		t.Fatalf("%d texts embedded in process, want %d", l.n, inProcess)
	}
}

func TestServerAnswersLikeInProcess(t *testing.T) {
	sock := socket(t)
	serve(t, sock, "b1", time.Minute)
	c, l, starts := client(sock, "b1")
	check(t, c, l, 0)
	one, _ := c.Embed(texts[:1], embed.Query) // from the server's cache the second time
	two, _ := c.Embed(texts[:1], embed.Query)
	if !reflect.DeepEqual(one, two) || l.n != 0 || *starts != 0 {
		t.Fatalf("cached query: in process %d, starts %d", l.n, *starts)
	}
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", st.Mode(), err)
	}
}

// counted counts the texts the server's model embeds.
type counted struct {
	embed.Embedder
	n atomic.Int32
}

func (c *counted) Embed(texts []string, p embed.Purpose) ([][]float32, error) {
	c.n.Add(int32(len(texts)))
	return c.Embedder.Embed(texts, p)
}

// An event written to the hint FIFO is embedded at once; the query for it
// is then answered from the cache. Lines too long or without a text are
// passed over.
func TestHints(t *testing.T) {
	sock := socket(t)
	model := &counted{Embedder: embed.NewLexical()}
	done := make(chan error, 1)
	go func() {
		done <- Serve(ServerOptions{Socket: sock, Idle: time.Minute, Build: "b1", CacheSize: 8,
			Open: func() (embed.Embedder, error) { return model, nil },
			Hint: func(event []byte) string { return strings.TrimSpace(string(event)) }})
	}()
	for i := 0; i < 500 && !alive(sock); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	st, err := os.Stat(HintPath(sock))
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 || st.Mode().Perm() != 0o600 {
		t.Fatalf("hint FIFO: %v %v", st, err)
	}
	f, err := os.OpenFile(HintPath(sock), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%s\n\n%s\n", strings.Repeat("x", maxHint+10), texts[0])
	f.Close()
	for i := 0; i < 500 && model.n.Load() == 0; i++ {
		time.Sleep(2 * time.Millisecond)
	}
	c, l, _ := client(sock, "b1")
	got, err := c.Embed(texts[:1], embed.Query)
	if err != nil || !reflect.DeepEqual(got, want(t)[:1]) {
		t.Fatalf("hinted query: %v", err)
	}
	if n := model.n.Load(); n != 1 || l.n != 0 {
		t.Fatalf("the model embedded %d texts, the client %d; want the hint only", n, l.n)
	}
	// A client of another build stops the server, which removes its FIFO.
	c.Build = "other"
	c.Embed(texts[:1], embed.Query)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(HintPath(sock)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("FIFO left behind: %v", err)
	}
}

func TestNoServerFallsBackAndStartsOne(t *testing.T) {
	c, l, starts := client(socket(t), "b1")
	check(t, c, l, 2)
	check(t, c, l, 4) // does not ask again
	if *starts != 0 {
		t.Fatalf("server started before Close")
	}
	c.Close()
	if *starts != 1 {
		t.Fatalf("starts %d, want 1", *starts)
	}
}

// A socket file left by a dead server: the client falls back and starts a
// server, which replaces the file.
func TestStaleSocket(t *testing.T) {
	sock := socket(t)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	c, l, starts := client(sock, "b1")
	check(t, c, l, 2)
	c.Close()
	if *starts != 1 {
		t.Fatalf("starts %d, want 1", *starts)
	}
	serve(t, sock, "b1", time.Minute)
	c, l, _ = client(sock, "b1")
	check(t, c, l, 0)
}

// A server of another build answers with a mismatch and exits; the client
// embeds in process.
func TestWrongVersionServer(t *testing.T) {
	sock := socket(t)
	done := serve(t, sock, "old", time.Minute)
	c, l, starts := client(sock, "new")
	var logged string
	c.Log = func(s string) { logged = s }
	check(t, c, l, 2)
	// The old server makes way; one of this version is started after.
	c.Close()
	if *starts != 1 {
		t.Errorf("starts %d after a version mismatch, want 1", *starts)
	}
	waitExit(t, done, "old server did not exit")
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
	if logged == "" {
		t.Fatal("mismatch not logged")
	}
}

// A server that dies after reading the request, or hangs: the client falls
// back within its timeout.
func TestServerDiesMidRequest(t *testing.T) {
	for _, hang := range []bool{false, true} {
		sock := socket(t)
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			var req request
			readFrame(conn, &req)
			if hang {
				time.Sleep(2 * time.Second)
			}
			conn.Close()
		}()
		c, l, _ := client(sock, "b1")
		start := time.Now()
		check(t, c, l, 2)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("hang=%v: fallback took %v", hang, d)
		}
	}
}

func TestIdleExitAndLock(t *testing.T) {
	sock := socket(t)
	done := serve(t, sock, "b1", 300*time.Millisecond)
	err := Serve(ServerOptions{Socket: sock, Idle: time.Minute, Build: "b1",
		Open: func() (embed.Embedder, error) { t.Fatal("second server loaded the model"); return nil, nil }})
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("second server: %v, want ErrRunning", err)
	}
	waitExit(t, done, "server did not exit when idle")
	if alive(sock) {
		t.Fatal("server still answers")
	}
}

// A delayed server holds the lock while it waits, so no second server
// loads the model meanwhile, and serves once it has loaded it.
func TestDelayHoldsLock(t *testing.T) {
	sock := socket(t)
	opened := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Serve(ServerOptions{Socket: sock, Idle: 300 * time.Millisecond, Build: "b1", Delay: 500 * time.Millisecond,
			Open: func() (embed.Embedder, error) { close(opened); return embed.NewLexical(), nil }})
	}()
	for i := 0; i < 500; i++ {
		if pid, _ := os.ReadFile(sock + ".lock"); len(pid) > 0 {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	err := Serve(ServerOptions{Socket: sock, Idle: time.Minute, Build: "b1",
		Open: func() (embed.Embedder, error) { t.Error("second server loaded the model"); return nil, nil }})
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("second server: %v, want ErrRunning", err)
	}
	select {
	case <-opened:
		t.Fatal("the model was loaded before the delay ran out")
	default:
	}
	<-opened
	c, l, _ := client(sock, "b1")
	for i := 0; i < 500 && !alive(sock); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	check(t, c, l, 0)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRunDirRefusesOpenDirectory(t *testing.T) {
	state := t.TempDir()
	if err := os.MkdirAll(filepath.Join(state, "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(state, "run"), 0o755)
	if _, err := RunDir("", state); err == nil {
		t.Fatal("a directory others may enter was accepted")
	}
	rt := t.TempDir()
	dir, err := RunDir(environ.FromMap(map[string]string{"XDG_RUNTIME_DIR": rt}).RuntimeDir, state)
	if err != nil || dir != filepath.Join(rt, "ski") {
		t.Fatalf("XDG_RUNTIME_DIR: %q %v", dir, err)
	}
}

// Prompts are read by the server (its ReadPrompt) and embedded as
// embed.Queries would, a blank query text getting the zero vector, and the
// readings come back with the vectors; with no server the client reads
// them itself. A handshake embeds nothing.
func TestPrompts(t *testing.T) {
	read := func(p string) prompt.Reading {
		return prompt.Reading{Text: strings.TrimPrefix(p, "/cmd"), Intent: intent.Kind(strings.Fields(p + " none")[0])}
	}
	prompts := []string{"/cmd write a blameless postmortem", "/cmd", "create a helm chart"}
	texts := make([]string, len(prompts))
	readings := make([]prompt.Reading, len(prompts))
	for i, p := range prompts {
		readings[i] = read(p)
		texts[i] = readings[i].Text
	}
	want, err := embed.Queries(embed.NewLexical(), texts)
	if err != nil {
		t.Fatal(err)
	}
	sock := socket(t)
	model := &counted{Embedder: embed.NewLexical()}
	var prompted atomic.Int32
	go Serve(ServerOptions{Socket: sock, Idle: time.Minute, Build: "b1", CacheSize: 8, ReadPrompt: read,
		Prompted: func(n int) { prompted.Add(int32(n)) },
		Open:     func() (embed.Embedder, error) { return model, nil }})
	for i := 0; i < 500 && !alive(sock); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	c, l, _ := client(sock, "b1")
	if err := c.Ping(); err != nil || model.n.Load() != 0 {
		t.Fatalf("ping: %v, %d texts embedded", err, model.n.Load())
	}
	got, gotReadings, err := c.EmbedPrompts(prompts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotReadings, readings) || l.n != 0 || model.n.Load() != 2 {
		t.Fatalf("through the server: equal %v, readings %v, in process %d, by the server %d",
			reflect.DeepEqual(got, want), gotReadings, l.n, model.n.Load())
	}
	// Only the prompts of a hook with the reader on count towards its
	// share.
	if prompted.Load() != 0 {
		t.Fatalf("%d prompts counted for the reader with it off", prompted.Load())
	}
	c.Reader = true
	if _, _, err := c.EmbedPrompts(prompts); err != nil || prompted.Load() != int32(len(prompts)) {
		t.Fatalf("with the reader on: %v, %d prompts counted, want %d", err, prompted.Load(), len(prompts))
	}
	c, l, _ = client(filepath.Join(filepath.Dir(sock), "none.sock"), "b1")
	if err := c.Ping(); err == nil {
		t.Fatal("ping of no server succeeded")
	}
	c.ReadPrompt = read
	got, gotReadings, err = c.EmbedPrompts(prompts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotReadings, readings) || l.n != 2 {
		t.Fatalf("in process: equal %v, readings %v, in process %d", reflect.DeepEqual(got, want), gotReadings, l.n)
	}
}

// A server without ReadPrompt refuses prompts rather than embedding them
// as they are.
func TestPromptsNeedReadPrompt(t *testing.T) {
	sock := socket(t)
	serve(t, sock, "b1", time.Minute)
	c, l, _ := client(sock, "b1")
	var logged string
	c.Log = func(s string) { logged = s }
	if _, _, err := c.EmbedPrompts([]string{"x"}); err == nil || l.n != 0 || !strings.Contains(logged, "does not read prompts") {
		t.Fatalf("err %v, in process %d, logged %q", err, l.n, logged)
	}
}

// A handshake and the requests after it share one connection: they are
// answered even when the socket is gone by then. A server that stops
// closes the connections clients still hold instead of waiting on them.
func TestOneConnectionPerClient(t *testing.T) {
	sock := socket(t)
	done := serve(t, sock, "b1", 300*time.Millisecond)
	c, l, starts := client(sock, "b1")
	defer c.Close()
	if err := c.Ping(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	check(t, c, l, 0)
	check(t, c, l, 0)
	waitExit(t, done, "an idle server waited on a connection its client still holds")
	// The connection is gone with the server: the client falls back, and
	// starts a server for next time (no socket answers).
	check(t, c, l, len(texts))
	c.Close()
	if *starts != 1 {
		t.Errorf("starts %d, want 1", *starts)
	}
}

// vouching is a Watch that knows the projects it was told are current.
type vouching struct {
	mu      sync.Mutex
	added   []string
	current map[string]bool
}

func (v *vouching) Add(p []byte)             { v.mu.Lock(); v.added = append(v.added, string(p)); v.mu.Unlock() }
func (v *vouching) Run(stop <-chan struct{}) { <-stop }
func (v *vouching) Current(p []byte) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.current[string(p)]
}

// Client.Current carries the watch's answer for a project, which the
// server then watches; no server, or none that knows, means false.
func TestCurrentAsksTheWatch(t *testing.T) {
	sock := socket(t)
	if c, _, _ := client(sock, "b1"); c.Current([]byte(`{"p":1}`)) {
		t.Fatal("current with no server")
	}
	w := &vouching{current: map[string]bool{`{"p":1}`: true}}
	go Serve(ServerOptions{Socket: sock, Idle: time.Minute, Build: "b1", CacheSize: 8, Watch: w,
		Open: func() (embed.Embedder, error) { return embed.NewLexical(), nil }})
	for i := 0; i < 500 && !alive(sock); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	c, l, starts := client(sock, "b1")
	if !c.Current([]byte(`{"p":1}`)) {
		t.Fatal("the watch vouched for the project, the client heard otherwise")
	}
	if c.Current([]byte(`{"p":2}`)) {
		t.Fatal("current for a project the watch does not know")
	}
	w.mu.Lock()
	added := w.added
	w.mu.Unlock()
	if !reflect.DeepEqual(added, []string{`{"p":1}`, `{"p":2}`}) {
		t.Fatalf("the server watches %v", added)
	}
	if l.n != 0 || *starts != 0 || c.conn != nil {
		t.Fatalf("asking embedded %d texts, started %d servers, left a connection: %v", l.n, *starts, c.conn != nil)
	}
}

// Client.Rank carries a ranking request to ServerOptions.Rank and its
// lines back; a server that cannot rank, or fails to, is an error, and
// a Ranker then answers false and asks that server no more.
func TestRank(t *testing.T) {
	sock := socket(t)
	type asked struct{ index, query, settings string }
	var mu sync.Mutex
	var got []asked
	rank := func(index string, query, settings []byte) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, asked{index, string(query), string(settings)})
		if index == "/broken.skv" {
			return nil, errors.New("index /broken.skv: corrupt")
		}
		return []byte("{\"kind\":\"candidate\",\"rank\":1}\n"), nil
	}
	go Serve(ServerOptions{Socket: sock, Idle: time.Minute, Build: "b1", Rank: rank,
		Open: func() (embed.Embedder, error) { return embed.NewLexical(), nil }})
	for i := 0; i < 500 && !alive(sock); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	c, l, starts := client(sock, "b1")
	lines, err := c.Rank("/p/index.skv", []byte(`{"kind":"query"}`), []byte(`{"top":3}`))
	if err != nil || string(lines) != "{\"kind\":\"candidate\",\"rank\":1}\n" {
		t.Fatalf("ranked %q, %v", lines, err)
	}
	if _, err := c.Rank("/broken.skv", []byte(`{}`), []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("a failed ranking gave %v", err)
	}
	mu.Lock()
	if len(got) != 2 || got[0] != (asked{"/p/index.skv", `{"kind":"query"}`, `{"top":3}`}) {
		t.Fatalf("the server was asked %+v", got)
	}
	mu.Unlock()
	if l.n != 0 || *starts != 0 {
		t.Fatalf("ranking embedded %d texts, started %d servers", l.n, *starts)
	}

	noRank := socket(t)
	serve(t, noRank, "b1", time.Minute)
	c2, _, _ := client(noRank, "b1")
	if _, err := c2.Rank("/p/index.skv", []byte(`{}`), []byte(`{}`)); err == nil {
		t.Fatal("a server that cannot rank ranked")
	}
}

// rankerWorld is a state folder of the test's own (its environment and
// run folder), the default model, and this test binary as the server's
// build.
func rankerWorld(t *testing.T) (environ.Env, string, embed.Model, string) {
	t.Helper()
	env := environ.FromMap(map[string]string{"XDG_STATE_HOME": t.TempDir()})
	run, err := RunDir(env.RuntimeDir, env.Dirs.State)
	if err != nil {
		t.Fatal(err)
	}
	m, err := embed.Lookup("bge-small-en-v1.5-q")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return env, run, m, exe
}

// A Ranker finds the server of a query's model where ski-embed starts
// it, asks it, and gives up on it after one failure; it never asks for a
// lexical model or with SKI_EMBED_SERVER=0.
func TestRanker(t *testing.T) {
	env, run, m, exe := rankerWorld(t)
	sock := SocketPath(run, m.ID, embed.Env{Environ: env, Runtime: "/opt/ort.so"})
	var calls atomic.Int32
	go Serve(ServerOptions{Socket: sock, Idle: time.Minute, Build: BuildOf(exe),
		Rank: func(index string, _, _ []byte) ([]byte, error) {
			calls.Add(1)
			if index == "/broken.skv" {
				return nil, errors.New("corrupt")
			}
			return []byte("line\n"), nil
		},
		Open: func() (embed.Embedder, error) { return ModelOnly(m), nil }})
	for i := 0; i < 500 && !alive(sock); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	var logged []string
	r := &Ranker{Environ: env, Binary: exe, Runtime: func(string) string { return "/opt/ort.so" },
		Log: func(s string) { logged = append(logged, s) }}
	if lines, ok := r.Rank(m.ID, "/p", "/p/index.skv", []byte(`{}`), []byte(`{}`)); !ok || string(lines) != "line\n" {
		t.Fatalf("ranked %q, %v", lines, ok)
	}
	if _, ok := r.Rank(embed.LexicalID, "/p", "/p/index.skv", []byte(`{}`), []byte(`{}`)); ok || calls.Load() != 1 {
		t.Fatalf("a lexical query went to the server: %v, %d calls", ok, calls.Load())
	}
	r.Environ = env.With("SKI_EMBED_SERVER=0")
	if _, ok := r.Rank(m.ID, "/p", "/p/index.skv", []byte(`{}`), []byte(`{}`)); ok || calls.Load() != 1 {
		t.Fatalf("SKI_EMBED_SERVER=0, and the server was asked: %v, %d calls", ok, calls.Load())
	}
	r.Environ = env
	if _, ok := r.Rank(m.ID, "/p", "/broken.skv", []byte(`{}`), []byte(`{}`)); ok || len(logged) != 1 {
		t.Fatalf("a failed ranking: %v, logged %q", ok, logged)
	}
	if _, ok := r.Rank(m.ID, "/p", "/p/index.skv", []byte(`{}`), []byte(`{}`)); ok || calls.Load() != 2 {
		t.Fatalf("a server that failed was asked again: %v, %d calls", ok, calls.Load())
	}
	other := &Ranker{Environ: env, Binary: exe}
	if _, ok := other.Rank(m.ID, "/p", "/p/index.skv", []byte(`{}`), []byte(`{}`)); ok {
		t.Fatal("a Ranker of another runtime found this server")
	}
}

// A ranking request encoded by hand decodes as the request encoding/json
// would make of the same fields, whatever the strings hold.
func TestRankFrameDecodes(t *testing.T) {
	for _, s := range []string{"", "/p/index.skv", `quote " and \ back`, "tab\tnew\nline\x00\x1f", "héllo ✓", "bad \xff utf-8"} {
		h := Hello{Protocol: Protocol, Model: s, Build: s + "b"}
		query, err := json.Marshal(map[string]string{"kind": "query", "prompt": s})
		if err != nil {
			t.Fatal(err)
		}
		settings := []byte(`{"top":10}`)
		var got request
		if err := json.Unmarshal(rankFrame(h, s, query, settings), &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		want := request{Hello: h, Purpose: embed.Query, Rank: &rankRequest{Index: s, Query: query, Settings: settings}}
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		want = request{}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: decoded %+v %+v, want %+v %+v", s, got, *got.Rank, want, *want.Rank)
		}
	}
}

// A Ranker reads through the server of a query's model and the server
// counts its readings; a reading past the reader's share is declined, not
// failed (the server is asked again next time); a reader slower than
// ReadTimeout makes Read fail at its deadline (the prompt keeps the
// judge's word, never waits), and a server with no reader is refused, not
// waited for.
func TestRankerRead(t *testing.T) {
	env, run, m, exe := rankerWorld(t)
	sock := SocketPath(run, m.ID, embed.Env{Environ: env})
	var reads atomic.Int32
	go Serve(ServerOptions{Socket: sock, Idle: time.Minute, Build: BuildOf(exe),
		Read: func(index, text string, ids []string) ([]float64, error) {
			if text == "slow" {
				time.Sleep(500 * time.Millisecond)
			}
			if text == "past its share" {
				return nil, reader.ErrPastShare
			}
			reads.Add(1)
			out := make([]float64, len(ids))
			for i := range ids {
				out[i] = float64(i) / 10
			}
			return out, nil
		},
		Stats: func() Stats { return Stats{Reads: int(reads.Load())} },
		Open:  func() (embed.Embedder, error) { return ModelOnly(m), nil }})
	for i := 0; i < 500 && !alive(sock); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	r := &Ranker{Environ: env, Binary: exe, ReadTimeout: 100 * time.Millisecond}
	got, err := r.Read(m.ID, "/p", "/p/i.skv", "fix the chart", []string{"a", "b"})
	if err != nil || len(got) != 2 || got[1] != 0.1 {
		t.Fatalf("read %v, %v", got, err)
	}
	c := &Client{Local: ModelOnly(m), Socket: sock, Build: BuildOf(exe), Timeout: time.Second}
	if st, err := c.Stats(); err != nil || st.Reads != 1 {
		t.Fatalf("stats %+v, %v", st, err)
	}
	if got, err := r.Read(m.ID, "/p", "/p/i.skv", "past its share", []string{"a"}); !errors.Is(err, reader.ErrPastShare) || got != nil {
		t.Fatalf("declined: %v, %v", got, err)
	}
	if got, err := r.Read(m.ID, "/p", "/p/i.skv", "fix the chart", []string{"a"}); err != nil || len(got) != 1 {
		t.Fatalf("after a declined reading: %v, %v", got, err)
	}
	start := time.Now()
	if _, err := r.Read(m.ID, "/p", "/p/i.skv", "slow", []string{"a"}); err == nil || time.Since(start) > 400*time.Millisecond {
		t.Fatalf("a slow reader: %v after %v", err, time.Since(start))
	}
	// The server that failed once is not asked again by this Ranker.
	start = time.Now()
	if _, err := r.Read(m.ID, "/p", "/p/i.skv", "fix the chart", []string{"a"}); err == nil || time.Since(start) > 50*time.Millisecond {
		t.Fatalf("asked again after a failure: %v", err)
	}
	noReader := socket(t)
	serve(t, noReader, BuildOf(exe), time.Minute)
	c2 := &Client{Local: embed.NewLexical(), Socket: noReader, Build: BuildOf(exe), Timeout: time.Second}
	if _, err := c2.Read("/p/i.skv", "x", []string{"a"}); err == nil {
		t.Fatal("a server without a reader read")
	}
}

// ski status words the server's counts, the readings declined past the
// reader's share included.
func TestStatsSummary(t *testing.T) {
	for _, c := range []struct {
		st   Stats
		want string
	}{
		{Stats{Prompts: 4}, "4 prompts, none read by the reader"},
		{Stats{Prompts: 9, Reads: 2, ReadMicros: 60000}, "9 prompts, 2 read by the reader (30 ms each on average)"},
		{Stats{Prompts: 9, Reads: 2, ReadMicros: 60000, Declined: 3}, "9 prompts, 2 read by the reader (30 ms each on average), 3 more left to the judge (past the reader's share)"},
		{Stats{Prompts: 9, Declined: 1}, "9 prompts, none read by the reader, 1 more left to the judge (past the reader's share)"},
	} {
		if got := c.st.Summary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.st, got, c.want)
		}
	}
}
