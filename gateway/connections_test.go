package main

import (
	"net"
	"testing"
	"time"
)

func TestTheListenerHoldsAtMostMaxConnectionsOpen(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := limitConnections(inner, 2)
	defer l.Close()
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- conn
		}
	}()
	for i := 0; i < 3; i++ {
		client, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
	}
	first, second := <-accepted, <-accepted
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted while two were open")
	case <-time.After(100 * time.Millisecond): // absence of an event: nothing to wait for instead
	}
	first.Close()
	first.Close() // closing twice frees one slot, not two
	third := <-accepted
	defer third.Close()
	defer second.Close()
	if got := len(l.(*limitedListener).slots); got != 2 {
		t.Errorf("%d slots held for two open connections", got)
	}
}
