//go:build linux

package unixsock

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/testuser"
)

// TestMain runs the test binary as a helper when asked: "dial PATH" connects
// and waits, "listen PATH" listens and accepts one connection.
func TestMain(m *testing.M) {
	switch os.Getenv("UNIXSOCK_HELPER") {
	case "dial":
		conn, err := Dial(os.Getenv("UNIXSOCK_PATH"), time.Second)
		if err != nil {
			os.Exit(3)
		}
		var b [1]byte
		conn.Read(b[:]) // until the other end closes
		os.Exit(0)
	case "listen":
		ln, err := Listen(os.Getenv("UNIXSOCK_PATH"))
		if err != nil {
			os.Exit(3)
		}
		os.Chmod(os.Getenv("UNIXSOCK_PATH"), 0o666)
		conn, err := ln.Accept()
		if err == nil {
			var b [1]byte
			conn.Read(b[:])
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helper starts this test binary as the other user in mode.
func helper(t *testing.T, mode, path string) *exec.Cmd {
	t.Helper()
	cmd := testuser.Command(t, testuser.SharedDir(t), testuser.Other, "UNIXSOCK_HELPER="+mode, "UNIXSOCK_PATH="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func TestCheckPeerSameUser(t *testing.T) {
	ln, path := listen(t)
	go func() {
		if c, err := ln.Accept(); err == nil {
			if err := CheckPeer(c); err != nil {
				t.Errorf("server side: %v", err)
			}
			c.Close()
		}
	}()
	conn, err := Dial(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := CheckPeer(conn); err != nil {
		t.Fatalf("client side: %v", err)
	}
}

// A listener sees a client of another user for what it is.
func TestCheckPeerOtherClient(t *testing.T) {
	path := filepath.Join(testuser.SharedDir(t), "s.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Chmod(path, 0o666)
	helper(t, "dial", path)
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := CheckPeer(conn); err == nil || !strings.Contains(err.Error(), "uid 65534") {
		t.Fatalf("CheckPeer on another user's client: %v", err)
	}
}

// A client sees a server of another user for what it is.
func TestCheckPeerOtherServer(t *testing.T) {
	path := filepath.Join(testuser.SharedDir(t), "s.sock")
	helper(t, "listen", path)
	var conn *os.File
	var err error
	for i := 0; i < 500; i++ {
		if conn, err = Dial(path, time.Second); err == nil {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := CheckPeer(conn); err == nil || !strings.Contains(err.Error(), "uid 65534") {
		t.Fatalf("CheckPeer on another user's server: %v", err)
	}
}
