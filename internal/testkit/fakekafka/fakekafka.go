// Package fakekafka serves the few answers of a Kafka node that the live
// reader's bad-input tests need, on 127.0.0.1, without a JVM: a node that
// answers ApiVersions with a chosen list of APIs (too old a broker, a
// ZooKeeper-mode one), a listener that accepts and never answers, and a
// TLS listener with a self-signed certificate. The answers are encoded
// with franz-go's kmsg, the codec kmeta's reader decodes them with; what
// they contain is Kafka's (ApiVersions keys, LeaderAndIsr's listing only
// on ZooKeeper-mode brokers) and is chosen by each test.
package fakekafka

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"io"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Listener is a fake node's listener: its address and how many
// connections it accepted.
type Listener struct {
	Addr     string
	accepted atomic.Int64
}

// Accepted is the number of connections accepted so far.
func (l *Listener) Accepted() int64 { return l.accepted.Load() }

// serve accepts on ln until the test ends, handing each connection to
// handle; the listener and the connections are closed at cleanup.
func serve(t testing.TB, ln net.Listener, handle func(net.Conn)) *Listener {
	t.Helper()
	l := &Listener{Addr: ln.Addr().String()}
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
			l.accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go handle(c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		<-done
	})
	return l
}

func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// Silent accepts connections and never answers: an address behind which
// nothing speaks (a hung process, a firewall that lets SYN through).
func Silent(t testing.TB) *Listener {
	return serve(t, listen(t), func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
}

// Closed is an address on which nothing listens (a port just released).
func Closed(t testing.TB) string {
	ln := listen(t)
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// APIs is what a fake node lists in ApiVersions: key → [min, max].
type APIs map[int16][2]int16

// Node answers every request as ApiVersions with apis (ApiVersions itself
// is always listed, as every node lists it) at the version asked, and
// closes the connection on any other request.
func Node(t testing.TB, apis APIs) *Listener {
	return serve(t, listen(t), func(c net.Conn) {
		defer c.Close()
		for {
			var size [4]byte
			if _, err := io.ReadFull(c, size[:]); err != nil {
				return
			}
			req := make([]byte, binary.BigEndian.Uint32(size[:]))
			if _, err := io.ReadFull(c, req); err != nil || len(req) < 8 {
				return
			}
			key, version := int16(binary.BigEndian.Uint16(req)), int16(binary.BigEndian.Uint16(req[2:]))
			corr := binary.BigEndian.Uint32(req[4:])
			if key != 18 {
				return
			}
			resp := kmsg.NewPtrApiVersionsResponse()
			resp.Version = version
			keys := map[int16][2]int16{18: {0, 3}}
			for k, r := range apis {
				keys[k] = r
			}
			for k, r := range keys {
				ak := kmsg.NewApiVersionsResponseApiKey()
				ak.ApiKey, ak.MinVersion, ak.MaxVersion = k, r[0], r[1]
				resp.ApiKeys = append(resp.ApiKeys, ak)
			}
			// The ApiVersions response header is always v0 (KIP-511): the
			// correlation id, no tagged fields.
			body := resp.AppendTo(nil)
			out := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
			out = binary.BigEndian.AppendUint32(out, corr)
			if _, err := c.Write(append(out, body...)); err != nil {
				return
			}
		}
	})
}

// SelfSigned is a TLS listener whose certificate signs itself (for
// "localhost" and 127.0.0.1): a client trusting the system's roots
// refuses it as signed by an unknown authority. It answers nothing past
// the handshake.
func SelfSigned(t testing.TB) *Listener {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kmeta fake broker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	return serve(t, tls.NewListener(listen(t), cfg), func(c net.Conn) {
		defer c.Close()
		_, _ = io.Copy(io.Discard, c)
	})
}
