package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// mcpClient drives a ski-mcp process over its stdin and stdout, as a host
// does: one JSON-RPC message a line.
type mcpClient struct {
	t     testing.TB
	cmd   *exec.Cmd
	in    io.WriteCloser
	mu    sync.Mutex
	wait  map[string]chan map[string]any // by id, as JSON
	loose chan map[string]any            // replies with a null id
	done  chan struct{}
}

func (w *world) mcp(args ...string) *mcpClient {
	w.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "ski-mcp"), args...)
	cmd.Env, cmd.Dir = w.env(), w.home
	if w.dir != "" {
		cmd.Dir = w.dir
	}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	c := &mcpClient{t: w.t, cmd: cmd, in: in, wait: map[string]chan map[string]any{}, loose: make(chan map[string]any, 100), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				c.t.Errorf("ski-mcp wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			id, _ := json.Marshal(m["id"])
			c.mu.Lock()
			ch := c.wait[string(id)]
			c.mu.Unlock()
			if ch == nil {
				c.loose <- m
				continue
			}
			ch <- m
		}
	}()
	w.t.Cleanup(func() { c.in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return c
}

// send writes raw lines and returns at once.
func (c *mcpClient) send(lines ...string) {
	c.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(c.in, l+"\n"); err != nil {
			c.t.Fatalf("write to ski-mcp: %v", err)
		}
	}
}

// expect registers for the reply to id (a JSON value).
func (c *mcpClient) expect(id string) chan map[string]any {
	ch := make(chan map[string]any, 1)
	c.mu.Lock()
	c.wait[id] = ch
	c.mu.Unlock()
	return ch
}

func (c *mcpClient) await(ch chan map[string]any, what string) map[string]any {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(20 * time.Second):
		c.t.Fatalf("no reply to %s", what)
	}
	return nil
}

// call sends a request and waits for its reply.
func (c *mcpClient) call(id int, method string, params any) map[string]any {
	c.t.Helper()
	ch := c.expect(fmt.Sprint(id))
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	c.send(string(b))
	return c.await(ch, method)
}

func (c *mcpClient) initialize(version string) map[string]any {
	c.t.Helper()
	r := c.call(0, "initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "0"}})
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

// toolText is the text of a tools/call reply, and whether it is an error.
func toolText(t testing.TB, r map[string]any) (string, bool) {
	t.Helper()
	res, ok := r["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result: %v", r)
	}
	var b strings.Builder
	for _, c := range res["content"].([]any) {
		b.WriteString(c.(map[string]any)["text"].(string))
	}
	isErr, _ := res["isError"].(bool)
	return b.String(), isErr
}

func errCode(r map[string]any) float64 {
	e, _ := r["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

// A world with the testdata skills indexed lexically.
func mcpWorld(t *testing.T) *world {
	w := newWorld(t)
	lexicalConfig(t, w)
	w.sessionStart("claude")
	return w
}

// ski-mcp speaks MCP: initialize with version negotiation, tools/list,
// tools/call of both tools, ping; bad input gets a JSON-RPC error or a
// tool error, never a hang or a crash; 20 calls at once all come back; a
// client that hangs up ends it cleanly.
func TestMCPConformance(t *testing.T) {
	w := mcpWorld(t)
	c := w.mcp()
	init := c.initialize("2025-06-18")
	res, _ := init["result"].(map[string]any)
	if res["protocolVersion"] != "2025-06-18" || res["serverInfo"].(map[string]any)["name"] != "ski" {
		t.Fatalf("initialize: %v", init)
	}
	list := c.call(1, "tools/list", map[string]any{})
	var names []string
	for _, tool := range list["result"].(map[string]any)["tools"].([]any) {
		m := tool.(map[string]any)
		names = append(names, m["name"].(string))
		if len(m["description"].(string)) < 50 {
			t.Errorf("tool %s: description %q", m["name"], m["description"])
		}
	}
	if strings.Join(names, ",") != "skill_load,skill_search" {
		t.Fatalf("tools: %v", names)
	}
	if r := c.call(2, "ping", map[string]any{}); r["error"] != nil || r["result"] == nil {
		t.Fatalf("ping: %v", r)
	}
	text, isErr := toolText(t, c.call(3, "tools/call", map[string]any{"name": "skill_search",
		"arguments": map[string]any{"query": "write a blameless postmortem for the checkout outage", "limit": 3}}))
	if isErr || !strings.Contains(text, "1. postmortem [") || strings.Count(text, "\n") != 3 {
		t.Fatalf("skill_search: %s", text)
	}
	text, isErr = toolText(t, c.call(4, "tools/call", map[string]any{"name": "skill_load", "arguments": map[string]any{"name": "postmortem"}}))
	if isErr || !strings.Contains(text, "Base directory for this skill: "+filepath.Join(w.skills, "writing", "postmortem")) ||
		!strings.Contains(text, "Blameless postmortems") {
		t.Fatalf("skill_load: %s", text)
	}
	// Name rules: unknown names get the nearest ones.
	text, isErr = toolText(t, c.call(5, "tools/call", map[string]any{"name": "skill_load", "arguments": map[string]any{"name": "postmortm"}}))
	if !isErr || !strings.Contains(text, "postmortem") {
		t.Fatalf("unknown name: %v %s", isErr, text)
	}

	// Bad input.
	if r := c.call(6, "no/such/method", map[string]any{}); errCode(r) != -32601 {
		t.Errorf("unknown method: %v", r)
	}
	if r := c.call(7, "tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}); errCode(r) != -32602 {
		t.Errorf("unknown tool: %v", r)
	}
	if _, isErr := toolText(t, c.call(8, "tools/call", map[string]any{"name": "skill_search", "arguments": map[string]any{"query": 5}})); !isErr {
		t.Errorf("a number for the query is not an error")
	}
	if _, isErr := toolText(t, c.call(9, "tools/call", map[string]any{"name": "skill_load", "arguments": map[string]any{}})); !isErr {
		t.Errorf("skill_load without a name is not an error")
	}
	for _, bad := range []string{"{not json", `42`, `{"jsonrpc":"1.0","id":"bad","method":"ping"}`, `[]`, "\xff\xfe"} {
		c.send(bad)
		select {
		case m := <-c.loose:
			if code := errCode(m); code != -32700 && code != -32600 {
				t.Errorf("%q: reply %v", bad, m)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: no reply", bad)
		}
	}
	huge := strings.Repeat("deploy the helm chart ", 500_000) // ~11 MB
	text, isErr = toolText(t, c.call(10, "tools/call", map[string]any{"name": "skill_search", "arguments": map[string]any{"query": huge}}))
	if isErr || !strings.HasPrefix(text, "ski: ") {
		t.Fatalf("10 MB query: %v %.200s", isErr, text)
	}

	// 20 calls at once, every one answered.
	var chans []chan map[string]any
	for i := 0; i < 20; i++ {
		id := 100 + i
		chans = append(chans, c.expect(fmt.Sprint(id)))
		args := map[string]any{"query": "clean up this messy csv export"}
		name := "skill_search"
		if i%2 == 1 {
			name, args = "skill_load", map[string]any{"name": "csv-cleaning"}
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
		c.send(string(b))
	}
	for i, ch := range chans {
		text, isErr := toolText(t, c.await(ch, fmt.Sprint("call ", 100+i)))
		if isErr || !strings.Contains(text, "csv") {
			t.Errorf("call %d: %s", 100+i, text)
		}
	}

	// The client hangs up: ski-mcp exits 0.
	c.in.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("after the client hung up: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ski-mcp did not exit when its client hung up")
	}
}

// A client of an unknown protocol version is offered the server's own; one
// that vanishes mid-call (its pipes closed) does not leave ski-mcp running.
func TestMCPVersionAndVanishingClient(t *testing.T) {
	w := mcpWorld(t)
	c := w.mcp()
	res, _ := c.initialize("1999-01-01")["result"].(map[string]any)
	if v, _ := res["protocolVersion"].(string); v < "2025-06-18" {
		t.Fatalf("negotiated %q for an unknown version", v)
	}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"skill_search","arguments":{"query":"helm chart"}}}`)
	c.cmd.Stdout.(io.Closer).Close()
	c.in.Close()
	exited := make(chan struct{})
	go func() { c.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("ski-mcp still runs after its client vanished")
	}
}
