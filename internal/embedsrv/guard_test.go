//go:build linux

package embedsrv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/testuser"
	"github.com/skill-inject/ski/internal/unixsock"
)

// TestMain runs the test binary as a helper when asked. As a client of the
// socket in $EMBEDSRV_ASK it exits 0 when the server answered a request, 4
// when it hung up, 3 when it could not connect. With $EMBEDSRV_LISTEN it
// listens there (open to all) and holds one connection.
func TestMain(m *testing.M) {
	if sock := os.Getenv("EMBEDSRV_LISTEN"); sock != "" {
		ln, err := unixsock.Listen(sock)
		if err != nil {
			os.Exit(3)
		}
		os.Chmod(sock, 0o666)
		if conn, err := ln.Accept(); err == nil {
			var b [1]byte
			conn.Read(b[:])
		}
		os.Exit(0)
	}
	if sock := os.Getenv("EMBEDSRV_ASK"); sock != "" {
		conn, err := unixsock.Dial(sock, time.Second)
		if err != nil {
			os.Exit(3)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		writeFrame(conn, request{Hello: Hello{Protocol: Protocol, Model: "lexical-v1", Build: "b1"}, Texts: []string{"x"}})
		var resp response
		if readFrame(conn, &resp) != nil {
			os.Exit(4)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A client of another user gets no answer: the server checks the peer's
// uid on each connection, whatever the socket's mode lets through.
func TestServerHangsUpOnOtherUser(t *testing.T) {
	testuser.NeedRoot(t, "starting a client of another user")
	dir := testuser.SharedDir(t) // as a careless XDG_RUNTIME_DIR is
	sock := filepath.Join(dir, "embed.sock")
	done := make(chan error, 1)
	go func() {
		done <- Serve(ServerOptions{Socket: sock, Idle: 5 * time.Second, Build: "b1", WatchEvery: time.Hour,
			Open: func() (embed.Embedder, error) { return embed.NewLexical(), nil }})
	}()
	for i := 0; i < 500 && !alive(sock); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	os.Chmod(sock, 0o666)
	ask := func(uid uint32) int {
		err := testuser.Command(t, dir, uid, "EMBEDSRV_ASK="+sock).Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	if code := ask(0); code != 0 {
		t.Fatalf("a client of the server's own user: exit %d, want an answer (0)", code)
	}
	if code := ask(65534); code != 4 {
		t.Fatalf("a client of another user: exit %d, want 4 (hung up on)", code)
	}
}

// A client does not send its prompt to a server of another user: it
// embeds in process instead.
func TestClientRefusesOtherUsersServer(t *testing.T) {
	testuser.NeedRoot(t, "listening as another user")
	dir := testuser.SharedDir(t)
	sock := filepath.Join(dir, "embed.sock")
	cmd := testuser.Command(t, dir, testuser.Other, "EMBEDSRV_LISTEN="+sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for i := 0; i < 1000; i++ {
		if st, err := os.Stat(sock); err == nil && st.Mode().Perm() == 0o666 {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	c, l, _ := client(sock, "b1")
	var logged []string
	c.Log = func(s string) { logged = append(logged, s) }
	check(t, c, l, len(texts))
	if len(logged) != 1 || !strings.Contains(logged[0], "uid 65534") {
		t.Fatalf("log %q, want one line naming the server's uid", logged)
	}
}

// SendHint writes only to this user's FIFO in this user's private run
// dir, never through a symlink, and never waits.
func TestSendHint(t *testing.T) {
	event := []byte(`{"prompt":"write a postmortem"}`)
	fifo := func(t *testing.T) (sock string, read func() string) {
		sock = socket(t)
		if err := mkfifo(HintPath(sock)); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(HintPath(sock), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return sock, func() string {
			f.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			b := make([]byte, 1<<16)
			n, _ := f.Read(b)
			return string(b[:n])
		}
	}
	t.Run("own", func(t *testing.T) {
		sock, read := fifo(t)
		if !SendHint(sock, event) || read() != string(event)+"\n" {
			t.Fatal("the hint did not arrive")
		}
	})
	t.Run("dir open to others", func(t *testing.T) {
		sock, read := fifo(t)
		os.Chmod(filepath.Dir(sock), 0o755)
		if SendHint(sock, event) || read() != "" {
			t.Fatal("hint written into a directory others may enter")
		}
	})
	t.Run("symlink", func(t *testing.T) {
		sock, read := fifo(t)
		other := socket(t)
		os.Rename(HintPath(sock), HintPath(other))
		os.Symlink(HintPath(other), HintPath(sock))
		if SendHint(sock, event) || read() != "" {
			t.Fatal("hint written through a symlink")
		}
	})
	t.Run("another user's", func(t *testing.T) {
		testuser.NeedRoot(t, "giving the FIFO to another user")
		sock, read := fifo(t)
		os.Chown(HintPath(sock), 65534, 65534)
		if SendHint(sock, event) || read() != "" {
			t.Fatal("hint written to another user's FIFO")
		}
	})
	t.Run("no reader", func(t *testing.T) {
		sock := socket(t)
		mkfifo(HintPath(sock))
		if SendHint(sock, event) {
			t.Fatal("hint written to a FIFO no server reads")
		}
	})
	t.Run("full", func(t *testing.T) {
		sock, _ := fifo(t)
		done := make(chan int)
		go func() {
			n := 0
			for i := 0; i < 10000 && SendHint(sock, event); i++ {
				n++
			}
			done <- n
		}()
		select {
		case n := <-done:
			if n == 10000 {
				t.Fatal("a FIFO nobody drains never filled")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("SendHint blocked on a full FIFO")
		}
	})
}
