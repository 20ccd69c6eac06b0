package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// fakeAPI is a model API on 127.0.0.1 for the real host CLIs: Anthropic's
// Messages API (POST /v1/messages, SSE streaming) for Claude Code and the
// OpenAI-compatible chat completions API (POST /v1/chat/completions,
// streaming) for opencode. It records every request. A request that offers
// tools is a "main" request: it is answered with the next queued tool call,
// if any (so queued calls follow one another, each after the previous
// result), else with a short text; anything else (titles, summaries) gets
// text.
type fakeAPI struct {
	t   *testing.T
	url string

	mu       sync.Mutex
	requests []apiRequest
	calls    []toolCall // queued answers for main requests
	usage    int        // prompt tokens reported for the next main answer (0: small)
	n        int
}

type apiRequest struct {
	Method, Path string
	Body         string
}

type toolCall struct {
	Name  string
	Input map[string]any
}

func newFakeAPI(t *testing.T) *fakeAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAPI{t: t, url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

// queue makes the next main request be answered with a tool call.
func (f *fakeAPI) queue(c toolCall) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
}

// reportUsage makes the next main answer claim this many prompt tokens.
func (f *fakeAPI) reportUsage(tokens int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.usage = tokens
}

// mark returns how many requests have been recorded, for since.
func (f *fakeAPI) mark() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// since returns the POST bodies recorded after mark m.
func (f *fakeAPI) since(m int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests[m:] {
		if r.Method == http.MethodPost {
			out = append(out, r.Body)
		}
	}
	return out
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, apiRequest{r.Method, r.URL.RequestURI(), string(body)})
	f.n++
	n := f.n
	var req struct {
		Stream bool              `json:"stream"`
		Tools  []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &req)
	var call *toolCall
	usage := 10
	if len(req.Tools) > 0 {
		if len(f.calls) > 0 {
			c := f.calls[0]
			f.calls = f.calls[1:]
			call = &c
		}
		if f.usage > 0 {
			usage, f.usage = f.usage, 0
		}
	}
	f.mu.Unlock()

	switch {
	case r.Method != http.MethodPost:
		w.WriteHeader(http.StatusOK)
	case strings.HasPrefix(r.URL.Path, "/v1/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 10})
	case strings.HasPrefix(r.URL.Path, "/v1/messages"):
		f.anthropic(w, req.Stream, n, call, usage)
	case strings.HasPrefix(r.URL.Path, "/v1/chat/completions"):
		f.openai(w, req.Stream, n, call, usage)
	default:
		http.NotFound(w, r)
	}
}

const fakeText = "Done."

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
}

func (f *fakeAPI) anthropic(w http.ResponseWriter, stream bool, n int, call *toolCall, usage int) {
	id := fmt.Sprintf("msg_fake%04d", n)
	var block map[string]any
	stop := "end_turn"
	if call != nil {
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake%04d", n), "name": call.Name, "input": call.Input}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": fakeText}
	}
	u := map[string]any{"input_tokens": usage, "output_tokens": 5}
	if !stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": "fake",
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": u})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "fake", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": usage, "output_tokens": 1}}})
	if call != nil {
		input, _ := json.Marshal(call.Input)
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": call.Name, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": fakeText}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

func (f *fakeAPI) openai(w http.ResponseWriter, stream bool, n int, call *toolCall, usage int) {
	id := fmt.Sprintf("chatcmpl-fake%04d", n)
	u := map[string]any{"prompt_tokens": usage, "completion_tokens": 5, "total_tokens": usage + 5}
	finish := "stop"
	msg := map[string]any{"role": "assistant", "content": fakeText}
	if call != nil {
		args, _ := json.Marshal(call.Input)
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_fake%04d", n), "type": "function",
			"function": map[string]any{"name": call.Name, "arguments": string(args)}}}}
		finish = "tool_calls"
	}
	if !stream {
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": u})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any, usage any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		sse(w, "", c)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	if call != nil {
		chunk(map[string]any{"tool_calls": msg["tool_calls"]}, nil, nil)
	} else {
		chunk(map[string]any{"content": fakeText}, nil, nil)
	}
	chunk(map[string]any{}, finish, u)
	fmt.Fprint(w, "data: [DONE]\n\n")
}
