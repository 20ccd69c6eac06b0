//go:build unix

package unixsock

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// listen listens on a fresh socket path, closed when the test ends.
func listen(t *testing.T) (*Listener, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln, path
}

func TestRoundTrip(t *testing.T) {
	ln, path := listen(t)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a socket of mode 0600", st.Mode())
	}
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		buf := make([]byte, 5)
		if _, err := io.ReadFull(conn, buf); err == nil {
			conn.Write(append(buf, '!'))
		}
	}()
	conn, err := Dial(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(conn)
	if err != nil || string(got) != "hello!" {
		t.Fatalf("read %q, %v; want hello!", got, err)
	}
}

// A connection from package net's dialer works the same.
func TestNetDialer(t *testing.T) {
	ln, path := listen(t)
	go func() {
		if conn, err := ln.Accept(); err == nil {
			conn.Write([]byte("ok"))
			conn.Close()
		}
	}()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got, err := io.ReadAll(conn); err != nil || string(got) != "ok" {
		t.Fatalf("read %q, %v", got, err)
	}
}

func TestDialErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Dial(filepath.Join(dir, "none.sock"), time.Second); !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("missing socket: %v, want ENOENT", err)
	}
	// A socket file nobody listens on (a dead server's).
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := Dial(stale, time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("stale socket: %v, want ECONNREFUSED", err)
	}
}

// A read past its deadline fails instead of waiting for a silent peer.
func TestDeadline(t *testing.T) {
	ln, path := listen(t)
	held := make(chan *os.File, 1)
	go func() {
		conn, _ := ln.Accept()
		held <- conn
	}()
	conn, err := Dial(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v, want a deadline error", err)
	}
	if c := <-held; c != nil {
		c.Close()
	}
}

// Close wakes a waiting Accept and removes the socket file.
func TestCloseWakesAccept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ln.Accept()
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("accept after close: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("accept still waiting after close")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket file left: %v", err)
	}
	if _, err := Listen(path); err != nil {
		t.Fatalf("listen again on the same path: %v", err)
	}
}

func TestListenRefusesExistingPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "taken")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(path); !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("listen on an existing file: %v, want EADDRINUSE", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("existing file removed: %v", err)
	}
}
