// Package dnstest is a DNS server on loopback for the tests, and a
// resolver that asks it alone: no test resolves a name through the
// machine's resolver, nor sends anything past loopback. The resolver's
// errors still name the machine's resolver (the server of
// /etc/resolv.conf it meant to ask), as a real lookup's do.
package dnstest

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// Server answers, over UDP on loopback, the A queries of its names with
// their IPv4 addresses, the other queries of its names with no record,
// and every other name with NXDOMAIN (no such host).
type Server struct {
	conn  net.PacketConn
	names map[string]netip.Addr
}

// Start serves names (a name, without the final dot, to an IPv4
// address) until the test ends.
func Start(t testing.TB, names map[string]string) *Server {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{conn: conn, names: map[string]netip.Addr{}}
	for name, addr := range names {
		s.names[strings.ToLower(name)] = netip.MustParseAddr(addr)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.serve()
	}()
	t.Cleanup(func() { conn.Close(); <-done })
	return s
}

// Addr is the server's address.
func (s *Server) Addr() string { return s.conn.LocalAddr().String() }

// Resolver is a resolver that sends every query to s, whichever server
// it meant to ask.
func (s *Server) Resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", s.Addr())
	}}
}

func (s *Server) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		if answer := s.answer(buf[:n]); answer != nil {
			s.conn.WriteTo(answer, from)
		}
	}
}

// answer is the reply to query, nil when it is not one.
func (s *Server) answer(query []byte) []byte {
	const headerLen = 12
	if len(query) < headerLen {
		return nil
	}
	var labels []string
	i := headerLen
	for i < len(query) && query[i] != 0 {
		n := int(query[i])
		if n > 63 || i+1+n >= len(query) {
			return nil
		}
		labels = append(labels, string(query[i+1:i+1+n]))
		i += 1 + n
	}
	end := i + 1 + 4 // the root label, the type and the class
	if end > len(query) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(query[i+1:])
	addr, known := s.names[strings.ToLower(strings.Join(labels, "."))]

	reply := make([]byte, headerLen, 64)
	copy(reply, query[:2])                   // the id
	reply[2] = 0x80 | query[2]&0x01          // an answer, recursion desired as asked
	reply[3] = 0x80                          // recursion available
	binary.BigEndian.PutUint16(reply[4:], 1) // the question
	if !known {
		reply[3] |= 3 // NXDOMAIN
	}
	reply = append(reply, query[headerLen:end]...)
	if known && qtype == 1 && addr.Is4() { // A
		binary.BigEndian.PutUint16(reply[6:], 1)
		ip := addr.As4()
		reply = append(reply, 0xc0, headerLen, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4)
		reply = append(reply, ip[:]...)
	}
	return reply
}
