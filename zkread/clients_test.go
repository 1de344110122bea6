package zkread

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// consAnswer is ZooKeeper 3.8.4's answer to cons (ServerCnxn.
// dumpConnectionInfo): a client with a session, and the connection
// asking, which has none.
const consAnswer = ` /127.0.0.1:41230[1](queued=0,recved=57,sent=57,sid=0x1000a3f2b6c0002,lop=SETD,est=1700000000123,to=30000,lcxid=0x36,lzxid=0x4d,lresp=1700000011000,llat=1,minlat=0,avglat=0.4,maxlat=6)
 /127.0.0.1:41244[0](queued=0,recved=1,sent=0)
 /[0:0:0:0:0:0:0:1]:41250[1](queued=0,recved=3,sent=3,sid=0x1000a3f2b6c0003,lop=PING,est=1700000001000,to=18000,lzxid=0xffffffffffffffff,lresp=1700000011000,llat=0,minlat=0,avglat=0.0,maxlat=0)

`

func TestParseCons(t *testing.T) {
	cs, err := ParseCons("zk1:2181", consAnswer)
	if err != nil {
		t.Fatal(err)
	}
	want := []Connection{
		{Server: "zk1:2181", Address: "127.0.0.1:41230", Session: 0x1000a3f2b6c0002, Timeout: 30000, LastOp: "SETD", Established: time.UnixMilli(1700000000123).UTC(), LastZxid: 0x4d},
		{Server: "zk1:2181", Address: "127.0.0.1:41244"},
		{Server: "zk1:2181", Address: "[0:0:0:0:0:0:0:1]:41250", Session: 0x1000a3f2b6c0003, Timeout: 18000, LastOp: "PING", Established: time.UnixMilli(1700000001000).UTC(), LastZxid: -1},
	}
	if len(cs) != len(want) {
		t.Fatalf("got %+v", cs)
	}
	for i := range want {
		if cs[i] != want[i] {
			t.Errorf("%d: got %+v, want %+v", i, cs[i], want[i])
		}
	}
	for _, bad := range []string{"", "garbage\n", " /1.2.3.4:5[1](queued=0,sid=0xzz)\n"} {
		if _, err := ParseCons("zk1:2181", bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	_, err = ParseCons("zk1:2181", "cons is not executed because it is not in the whitelist.\n")
	var refused *RefusedCommandError
	if !errors.Is(err, ErrNotAllowed) || !errors.As(err, &refused) || !strings.Contains(refused.Setting, "4lw.commands.whitelist") {
		t.Errorf("refusal: %v", err)
	}
}

// adminAnswer is the shape of the AdminServer's answer to connections
// (Commands.ConsCommand; ServerCnxn.getConnectionInfo; Jackson writes a
// Date as epoch ms and an InetSocketAddress as host:port).
const adminAnswer = `{
  "connections" : [ {
    "remote_socket_address" : "127.0.0.1:41230",
    "interest_ops" : 1,
    "outstanding_requests" : 0,
    "packets_received" : 57,
    "packets_sent" : 57,
    "session_id" : 72069395006963714,
    "last_operation" : "SETD",
    "established" : 1700000000123,
    "session_timeout" : 30000,
    "last_cxid" : 54,
    "last_zxid" : 77,
    "last_response_time" : 1700000011000,
    "last_latency" : 1,
    "min_latency" : 0,
    "avg_latency" : 0.4,
    "max_latency" : 6
  } ],
  "secure_connections" : [ {
    "remote_socket_address" : "10.0.0.5:50000",
    "session_id" : 72069395006963715,
    "last_operation" : "PING",
    "established" : "2023-11-14T22:13:21.000+0000",
    "session_timeout" : 18000,
    "last_zxid" : 77
  } ],
  "command" : "connections",
  "error" : null
}`

func TestParseAdminConnections(t *testing.T) {
	cs, err := ParseAdminConnections("http://zk1:8080/commands/connections", []byte(adminAnswer))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Session != 72069395006963714 || cs[0].Address != "127.0.0.1:41230" || cs[0].LastOp != "SETD" ||
		!cs[0].Established.Equal(time.UnixMilli(1700000000123)) || cs[0].Timeout != 30000 || cs[0].LastZxid != 77 || cs[0].Secure ||
		cs[1].Session != 72069395006963715 || !cs[1].Secure || !cs[1].Established.Equal(time.Date(2023, 11, 14, 22, 13, 21, 0, time.UTC)) {
		t.Errorf("got %+v", cs)
	}
	for _, bad := range []string{`<html>nginx</html>`, `{"command":"stat"}`, `{"connections":[{"session_id":1}]}`, `{"connections":[],"error":"boom"}`} {
		if _, err := ParseAdminConnections("u", []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// fakeFourLetters answers every connection with answer, as a ZooKeeper
// client port answers a four-letter word.
func fakeFourLetters(t *testing.T, answer string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4)
			_, _ = c.Read(buf)
			_, _ = c.Write([]byte(answer))
			c.Close()
		}
	}()
	return l.Addr().String()
}

// TestAskConnections: cons first; when it is refused, the AdminServer;
// when both fail, why, with the settings that allow them.
func TestAskConnections(t *testing.T) {
	ctx := context.Background()
	ok := fakeFourLetters(t, consAnswer)
	got := AskConnections(ctx, ok, ConnectionsOptions{Timeout: 5 * time.Second})
	if got.Via != "cons" || len(got.Connections) != 3 || got.Why != "" {
		t.Errorf("cons: %+v", got)
	}
	refused := fakeFourLetters(t, "cons is not executed because it is not in the whitelist.\n")
	admin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/commands/connections" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(adminAnswer))
	}))
	defer admin.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(admin.URL, "http://"))
	p, _ := strconv.Atoi(port)
	got = AskConnections(ctx, refused, ConnectionsOptions{AdminPort: p, Timeout: 5 * time.Second})
	if got.Via != "http://127.0.0.1:"+port+"/commands/connections" || len(got.Connections) != 2 {
		t.Errorf("AdminServer: %+v", got)
	}
	admin.Close()
	got = AskConnections(ctx, refused, ConnectionsOptions{AdminPort: p, Timeout: 5 * time.Second})
	if got.Via != "" || len(got.Connections) != 0 || !strings.Contains(got.Why, "4lw.commands.whitelist must include cons") ||
		!strings.Contains(got.Why, "admin.enableServer=true (admin.serverPort="+port+")") {
		t.Errorf("both refused: %+v", got)
	}
	got = AskConnections(ctx, refused, ConnectionsOptions{Timeout: 5 * time.Second})
	if !strings.Contains(got.Why, "the AdminServer was not asked (--zk-admin-port 0)") {
		t.Errorf("no AdminServer: %+v", got)
	}
}

// FuzzParseCons: no answer makes the parser panic; what it accepts has
// an address for every connection.
func FuzzParseCons(f *testing.F) {
	f.Add(consAnswer)
	f.Add("cons is not executed because it is not in the whitelist.\n")
	f.Add(" /x[](queued=)\n")
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ParseCons("zk", s)
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.Address == "" {
				t.Fatalf("a connection without an address from %q", s)
			}
		}
	})
}

// FuzzParseAdminConnections: no answer makes the parser panic.
func FuzzParseAdminConnections(f *testing.F) {
	f.Add([]byte(adminAnswer))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = ParseAdminConnections("u", b) })
}
