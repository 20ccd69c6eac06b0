// Package fetch downloads model files from a Hugging Face–style HTTP
// endpoint into a local directory.
//
// A file is fetched from Endpoint/Repo/resolve/Revision/Path into
// dir/<Save>.part, resumed with a Range request when a .part is already
// there, checked against its sha256 and only then renamed to dir/<Save>. A
// file already in place with the right sha256 is not fetched again, so
// calling Files twice is cheap and an interrupted run picks up where it
// stopped.
package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// File is one file of a model repository.
type File struct {
	Path   string // path inside the repo, e.g. "onnx/model_quantized.onnx"
	SHA256 string // hex; required
	Size   int64  // bytes; 0 if unknown (used for progress only)
	Save   string // file name to save as inside the destination dir ("" = base name of Path)
}

// Source is where files come from.
type Source struct {
	Endpoint string // e.g. "https://huggingface.co"; "" = DefaultEndpoint; Options.Endpoint overrides it
	Repo     string // "Xenova/bge-small-en-v1.5"
	Revision string // "main" or a commit; "" = "main"
}

// DefaultEndpoint is used when neither Source nor Options name one.
const DefaultEndpoint = "https://huggingface.co"

// Options tune Files. The zero value is ready to use.
type Options struct {
	// Client makes the requests. nil: a client that gives up connecting
	// after 15s but has no overall timeout, since files are large.
	Client *http.Client
	// Progress receives progress output; nil = none.
	Progress io.Writer
	// TTY redraws a one-line progress bar with \r (percent, MB of total
	// MB, rate). Without it, one line is written per file when it is done.
	TTY bool
	// Token is an optional bearer token (HF_TOKEN), sent as Authorization.
	// Go's client drops it when a redirect leaves the endpoint's host.
	Token string
	// Retries is how many times a failed or interrupted transfer is tried
	// again, each time resuming from the partial file. 0 = 3; negative =
	// none.
	Retries int
	// Endpoint, when set, overrides Source.Endpoint (pass HF_ENDPOINT).
	Endpoint string
	// IdleTimeout aborts and retries a transfer that receives nothing for
	// this long, including while waiting for the response; 0 = 1 minute.
	IdleTimeout time.Duration
}

const (
	defaultRetries = 3
	defaultIdle    = time.Minute
	connectTimeout = 15 * time.Second
	maxBackoff     = 8 * time.Second
	// firstBackoff is the wait before retrying a request that got no bytes
	// at all; an interrupted transfer that made progress retries at once.
	firstBackoff = 500 * time.Millisecond
)

// URL returns the address of path in src:
// Endpoint/Repo/resolve/Revision/Path, each path segment escaped. The
// revision is one segment, so "refs/pr/1" becomes "refs%2Fpr%2F1".
func URL(src Source, path string) string {
	endpoint := strings.TrimRight(src.Endpoint, "/")
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	rev := src.Revision
	if rev == "" {
		rev = "main"
	}
	var b strings.Builder
	b.WriteString(endpoint)
	b.WriteString("/")
	b.WriteString(escapeSegments(strings.Trim(src.Repo, "/")))
	b.WriteString("/resolve/")
	b.WriteString(url.PathEscape(rev))
	b.WriteString("/")
	b.WriteString(escapeSegments(strings.TrimLeft(path, "/")))
	return b.String()
}

func escapeSegments(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// Files downloads each file from src into dir, in order, stopping at the
// first failure.
//
// Each file is written to dir/<Save>.part, resumed with "Range: bytes=N-"
// if a .part exists (a 206 appends, a 200 starts over, a 416 means the
// .part is already whole), verified against SHA256 and renamed to
// dir/<Save>. A file already present with the right sha256 is skipped
// without a request. A sha256 mismatch deletes the .part and returns an
// error naming the file and both hashes. dir is created 0755 if needed.
// When ctx is cancelled Files returns its error and leaves the .part for
// the next run.
func Files(ctx context.Context, src Source, dir string, files []File, o Options) error {
	if o.Endpoint != "" {
		src.Endpoint = o.Endpoint
	}
	jobs, err := plan(files)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	d := &downloader{
		client:  o.Client,
		token:   o.Token,
		retries: o.Retries,
		idle:    o.IdleTimeout,
		repo:    src.Repo,
		prog:    &progress{w: o.Progress, tty: o.TTY},
	}
	if d.client == nil {
		d.client = defaultClient()
	}
	switch {
	case d.retries == 0:
		d.retries = defaultRetries
	case d.retries < 0:
		d.retries = 0
	}
	if d.idle <= 0 {
		d.idle = defaultIdle
	}
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := d.file(ctx, URL(src, j.Path), filepath.Join(dir, j.Save), j); err != nil {
			return err
		}
	}
	return nil
}

// plan checks files and fills in defaults.
func plan(files []File) ([]File, error) {
	out := make([]File, len(files))
	seen := make(map[string]string, len(files))
	for i, f := range files {
		if strings.Trim(f.Path, "/") == "" {
			return nil, fmt.Errorf("file %d: empty path", i+1)
		}
		if f.Save == "" {
			f.Save = path.Base(f.Path)
		}
		if f.Save == "." || f.Save == ".." || strings.ContainsAny(f.Save, `/\`) || f.Save != filepath.Base(f.Save) {
			return nil, fmt.Errorf("%s: save name %q must be a plain file name", f.Path, f.Save)
		}
		sum, err := hex.DecodeString(f.SHA256)
		if err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("%s: sha256 %q is not 64 hex digits", f.Path, f.SHA256)
		}
		f.SHA256 = hex.EncodeToString(sum) // lower case
		if other, ok := seen[f.Save]; ok {
			return nil, fmt.Errorf("%s and %s would both be saved as %q", other, f.Path, f.Save)
		}
		seen[f.Save] = f.Path
		out[i] = f
	}
	return out, nil
}

func defaultClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = connectTimeout
	return &http.Client{Transport: t}
}

type downloader struct {
	client  *http.Client
	token   string
	retries int
	idle    time.Duration
	repo    string
	prog    *progress
}

// file brings dest up to date with f.
func (d *downloader) file(ctx context.Context, rawURL, dest string, f File) error {
	have, err := hashFile(dest)
	switch {
	case err == nil && have == f.SHA256:
		d.prog.skipped(f.Save)
		return nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", f.Save, err)
	}

	part := dest + ".part"
	d.prog.begin(f.Save, f.Size, partSize(part))
	for attempt := 0; ; attempt++ {
		got, retry, err := d.get(ctx, rawURL, part)
		if err == nil {
			break
		}
		if !retry || attempt >= d.retries {
			d.prog.abort()
			if retry && d.retries > 0 {
				err = fmt.Errorf("%w (gave up after %d retries)", err, d.retries)
			}
			return fmt.Errorf("%s: %w", f.Save, err)
		}
		if got == 0 {
			if err := sleep(ctx, backoff(attempt)); err != nil {
				d.prog.abort()
				return err
			}
		}
	}

	have, err = hashFile(part)
	if err != nil {
		d.prog.abort()
		return fmt.Errorf("%s: %w", f.Save, err)
	}
	if have != f.SHA256 {
		d.prog.abort()
		os.Remove(part)
		return fmt.Errorf("%s: sha256 mismatch: expected %s, got %s (downloaded from %s; the partial file was removed)", f.Save, f.SHA256, have, rawURL)
	}
	if err := os.Rename(part, dest); err != nil {
		d.prog.abort()
		return fmt.Errorf("%s: %w", f.Save, err)
	}
	d.prog.done()
	return nil
}

func backoff(attempt int) time.Duration {
	b := firstBackoff << attempt
	if b > maxBackoff || b <= 0 {
		b = maxBackoff
	}
	return b
}

func sleep(ctx context.Context, dur time.Duration) error {
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func partSize(part string) int64 {
	if fi, err := os.Stat(part); err == nil {
		return fi.Size()
	}
	return 0
}

// HTTPError is a response with a status Files cannot use.
type HTTPError struct {
	URL        string
	StatusCode int
	Status     string // e.g. "404 Not Found"
	Message    string // the server's X-Error-Message, if any
	hint       string
}

func (e *HTTPError) Error() string {
	s := "GET " + e.URL + ": " + e.Status
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.hint != "" {
		s += " (" + e.hint + ")"
	}
	return s
}

// retryable reports whether trying the same request again may help.
func (e *HTTPError) retryable() bool {
	switch e.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooManyRequests:
		return true
	}
	return e.StatusCode >= 500
}

var errStalled = errors.New("stalled")

// get makes one request for rawURL and writes the body to part, appending
// when the server honours the Range for what part already holds. It
// returns how many body bytes arrived, whether a failure is worth retrying
// and the failure. A nil error means part holds the whole file.
func (d *downloader) get(ctx context.Context, rawURL, part string) (got int64, retry bool, err error) {
	offset := partSize(part)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(d.idle, func() { cancel(errStalled) })
	defer idle.Stop()
	// failed turns a transport error into the caller's answer: the
	// caller's own cancellation is final, anything else may pass.
	failed := func(what string, err error) (int64, bool, error) {
		if cause := context.Cause(ctx); cause == errStalled {
			return got, true, fmt.Errorf("GET %s: no data for %v", rawURL, d.idle)
		}
		if ctx.Err() != nil {
			return got, false, context.Cause(ctx)
		}
		return got, true, fmt.Errorf("%s: %w", what, err)
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return 0, false, err
	}
	// Byte offsets must count the file itself, not a compressed form.
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("User-Agent", "ski")
	if d.token != "" {
		req.Header.Set("Authorization", "Bearer "+d.token)
	}
	if offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
	}
	resp, err := d.client.Do(req)
	if err != nil {
		// The client already says "Get <url>: …".
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return failed("GET "+rawURL, err)
	}
	defer resp.Body.Close()
	idle.Reset(d.idle)

	start := int64(0)
	switch resp.StatusCode {
	case http.StatusOK:
		// The whole file, whatever was asked for: start over.
		d.prog.restart(0)
	case http.StatusPartialContent:
		s, ok := rangeStart(resp.Header.Get("Content-Range"))
		if !ok || s > offset {
			os.Remove(part)
			d.prog.restart(0)
			return 0, true, fmt.Errorf("GET %s: 206 with unusable Content-Range %q for %d bytes held; starting over", rawURL, resp.Header.Get("Content-Range"), offset)
		}
		start = s
		d.prog.restart(start)
	case http.StatusRequestedRangeNotSatisfiable:
		if offset > 0 {
			// Nothing past what part holds: it is whole (the hash will say).
			return 0, false, nil
		}
		fallthrough
	default:
		e := &HTTPError{URL: rawURL, StatusCode: resp.StatusCode, Status: resp.Status, Message: errorMessage(resp)}
		switch {
		case (e.StatusCode == 401 || e.StatusCode == 403) && d.token == "":
			e.hint = "the repository may be gated or private: set HF_TOKEN to an access token"
		case e.StatusCode == 401 || e.StatusCode == 403:
			e.hint = "check that HF_TOKEN grants read access to " + d.repo
		}
		return 0, e.retryable(), e
	}

	out, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return 0, false, err
	}
	defer out.Close()
	if err := out.Truncate(start); err != nil {
		return 0, false, err
	}
	if _, err := out.Seek(start, io.SeekStart); err != nil {
		return 0, false, err
	}

	buf := make([]byte, 256<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			idle.Reset(d.idle)
			if _, err := out.Write(buf[:n]); err != nil {
				return got, false, err
			}
			got += int64(n)
			d.prog.add(int64(n))
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return failed("GET "+rawURL+": read body", rerr)
		}
	}
	if err := out.Sync(); err != nil {
		return got, false, err
	}
	if err := out.Close(); err != nil {
		return got, false, err
	}
	return got, false, nil
}

// rangeStart parses the first byte position of "bytes first-last/size".
func rangeStart(cr string) (int64, bool) {
	rest, ok := strings.CutPrefix(cr, "bytes ")
	if !ok {
		return 0, false
	}
	first, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(first), 10, 64)
	return n, err == nil && n >= 0
}

// errorMessage returns the reason Hugging Face gives for a failed request,
// kept to one short line.
func errorMessage(resp *http.Response) string {
	msg := strings.Join(strings.Fields(resp.Header.Get("X-Error-Message")), " ")
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}

// hashFile returns the hex sha256 of the file at name.
func hashFile(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
