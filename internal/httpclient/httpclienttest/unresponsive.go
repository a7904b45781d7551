// Package httpclienttest has what tests of kothd's HTTP clients share.
package httpclienttest

import (
	"net"
	"sync"
	"testing"
)

// Unresponsive starts a TCP server that accepts every connection and never answers (a
// hung proxy, a wedged API), and returns its http:// URL. It stops with the test.
func Unresponsive(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never read or written
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}
