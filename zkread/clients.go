package zkread

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Connection is one client connection a ZooKeeper server reports: a line
// of the four-letter word cons, or an entry of the AdminServer's
// connections command. Each server knows only its own clients.
type Connection struct {
	// Server is the server asked (host:port, or the AdminServer's URL).
	Server string `json:"server"`
	// Address is the client's address, host:port.
	Address string `json:"address"`
	// Session is the client's session id; 0 for a connection without one
	// (mid-handshake, or the connection asking).
	Session int64 `json:"-"`
	// Timeout is the negotiated session timeout in ms; LastOp the last
	// operation (PING, GETD, SETD, CREA...); Established when the
	// connection was made (zero when the server did not say); LastZxid
	// the last zxid the client saw.
	Timeout     int32     `json:"timeoutMs,omitempty"`
	LastOp      string    `json:"lastOperation,omitempty"`
	Established time.Time `json:"established,omitzero"`
	LastZxid    int64     `json:"lastZxid,omitempty"`
	// Secure: the connection came in on the secure (TLS) client port
	// (the AdminServer lists those apart).
	Secure bool `json:"secure,omitempty"`
}

// ErrNotAllowed: the server refuses the command (a four-letter word left
// out of 4lw.commands.whitelist). *RefusedCommandError says which.
var ErrNotAllowed = errors.New("command not allowed by the server")

// RefusedCommandError is a ZooKeeper server's refusal of a monitoring
// command, with its answer and the setting that would allow it.
type RefusedCommandError struct {
	Server  string
	Command string
	// Answer is what the server said (one line, trimmed).
	Answer string
	// Setting is the server setting that allows the command.
	Setting string
}

func (e *RefusedCommandError) Error() string {
	return fmt.Sprintf("%s: %s refused (%q): allowed by %s", e.Server, e.Command, e.Answer, e.Setting)
}

func (e *RefusedCommandError) Unwrap() error { return ErrNotAllowed }

// maxCommandAnswer bounds what kmeta reads of a monitoring command's
// answer: a line per connection, about 250 bytes each, so 64 MiB is far
// beyond the biggest ensemble's client count.
const maxCommandAnswer = 64 << 20

// Cons asks server (host:port, the client port) for its connections with
// the four-letter word cons: a command of ZooKeeper's own monitoring,
// read-only, that only 4lw.commands.whitelist (ZooKeeper 3.5+: cons or
// *) allows. The connection asking is in the answer too, without a
// session. tlsCfg, when set, wraps the connection (a secure client port).
func Cons(ctx context.Context, server string, tlsCfg *tls.Config, timeout time.Duration) ([]Connection, error) {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	d := &net.Dialer{Timeout: timeout}
	var conn net.Conn
	var err error
	if tlsCfg != nil {
		td := &tls.Dialer{NetDialer: d, Config: tlsCfg}
		conn, err = td.DialContext(ctx, "tcp", server)
	} else {
		conn, err = d.DialContext(ctx, "tcp", server)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, server, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if _, err := conn.Write([]byte("cons")); err != nil {
		return nil, fmt.Errorf("%w: %s: cons: %v", ErrUnreachable, server, err)
	}
	b, err := io.ReadAll(io.LimitReader(conn, maxCommandAnswer))
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: cons: %v", ErrUnreachable, server, err)
	}
	return ParseCons(server, string(b))
}

// ParseCons reads the answer to cons. Each connection is a line
//
//	/127.0.0.1:52384[1](queued=0,recved=25,sent=25,sid=0x100000a3b5d0000,lop=PING,est=1700000000000,to=18000,lcxid=0x5,lzxid=0x2f,lresp=...,llat=0,minlat=0,avglat=0,maxlat=3)
//
// (ServerCnxn.dumpConnectionInfo: the remote address, the interest ops in
// brackets, then key=value pairs; sid and what follows only for a
// connection with a session). A refusal ("cons is not executed because it
// is not in the whitelist.") is a *RefusedCommandError; an answer that is
// neither is an error naming the server.
func ParseCons(server, answer string) ([]Connection, error) {
	trimmed := strings.TrimSpace(answer)
	if strings.Contains(trimmed, "is not executed because it is not in the whitelist") {
		return nil, &RefusedCommandError{Server: server, Command: "cons", Answer: firstLine(trimmed), Setting: "4lw.commands.whitelist (add cons, or *)"}
	}
	if strings.Contains(trimmed, "not currently serving requests") {
		return nil, fmt.Errorf("%w: %s: cons: %s", ErrUnreachable, server, firstLine(trimmed))
	}
	out := []Connection{}
	sc := bufio.NewScanner(strings.NewReader(answer))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		c, ok := parseConsLine(line)
		if !ok {
			return nil, fmt.Errorf("%s: cons: line %d is not a connection: %q", server, n, clip(line, 120))
		}
		c.Server = server
		out = append(out, c)
	}
	if len(out) == 0 {
		// The asking connection is always listed: an empty answer is no
		// answer (a server that closed the connection unread).
		return nil, fmt.Errorf("%w: %s: cons: empty answer", ErrUnreachable, server)
	}
	return out, nil
}

func parseConsLine(line string) (Connection, bool) {
	var c Connection
	i := strings.Index(line, "](queued=")
	if i < 0 || !strings.HasSuffix(line, ")") {
		return c, false
	}
	j := strings.LastIndexByte(line[:i], '[')
	if j <= 0 {
		return c, false
	}
	c.Address = socketAddress(line[:j])
	for _, kv := range strings.Split(line[i+2:len(line)-1], ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return c, false
		}
		switch k {
		case "sid":
			id, err := strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 64)
			if err != nil {
				return c, false
			}
			c.Session = int64(id)
		case "lop":
			c.LastOp = v
		case "est":
			if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 {
				c.Established = time.UnixMilli(ms).UTC()
			}
		case "to":
			if to, err := strconv.ParseInt(v, 10, 32); err == nil {
				c.Timeout = int32(to)
			}
		case "lzxid":
			if z, err := strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 64); err == nil {
				c.LastZxid = int64(z)
			}
		}
	}
	return c, c.Address != ""
}

// socketAddress turns Java's InetSocketAddress text ("/127.0.0.1:5555",
// "host/10.0.0.1:5555", "/[::1]:5555", "/0:0:0:0:0:0:0:1:5555") into
// host:port.
func socketAddress(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "[") || strings.Count(s, ":") <= 1 {
		return s
	}
	// An IPv6 literal without brackets: the port is after the last colon.
	k := strings.LastIndexByte(s, ':')
	return "[" + s[:k] + "]" + s[k:]
}

// AdminConnections asks a ZooKeeper AdminServer (admin.enableServer,
// Jetty on admin.serverPort, 8080 by default) for its connections: a GET
// of url, which names the connections command
// (http://HOST:8080/commands/connections). The answer is JSON
// (Commands.ConsCommand): {"connections": [...], "secure_connections":
// [...]}, each entry with remote_socket_address and, for a connection
// with a session, session_id (a number), last_operation, established,
// session_timeout and last_zxid.
func AdminConnections(ctx context.Context, url string, timeout time.Duration) ([]Connection, error) {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: AdminServer %s: %v", ErrSource, url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("%w: AdminServer %s: %v", ErrUnreachable, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxCommandAnswer))
	if err != nil {
		return nil, fmt.Errorf("%w: AdminServer %s: %v", ErrUnreachable, url, err)
	}
	if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized {
		return nil, &RefusedCommandError{Server: url, Command: "connections", Answer: resp.Status, Setting: "the AdminServer's authentication (ZooKeeper 3.9+: zookeeper.admin.needClientAuth / an authorized client)"}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: AdminServer answered %s", url, resp.Status)
	}
	return ParseAdminConnections(url, b)
}

// adminConnection is one entry of the connections command's answer.
type adminConnection struct {
	Remote      string          `json:"remote_socket_address"`
	Session     json.Number     `json:"session_id"`
	LastOp      string          `json:"last_operation"`
	Established json.RawMessage `json:"established"`
	Timeout     json.Number     `json:"session_timeout"`
	LastZxid    json.Number     `json:"last_zxid"`
}

// ParseAdminConnections reads the AdminServer's answer to connections.
func ParseAdminConnections(url string, b []byte) ([]Connection, error) {
	var doc struct {
		Connections       *[]adminConnection `json:"connections"`
		SecureConnections []adminConnection  `json:"secure_connections"`
		Command           string             `json:"command"`
		Error             *string            `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: not a ZooKeeper AdminServer answer (JSON: %v)", url, err)
	}
	if doc.Error != nil && *doc.Error != "" {
		return nil, fmt.Errorf("%s: the AdminServer answered an error: %s", url, clip(*doc.Error, 200))
	}
	if doc.Connections == nil {
		return nil, fmt.Errorf("%s: not a ZooKeeper AdminServer answer to connections (no \"connections\" list)", url)
	}
	out := []Connection{}
	for _, list := range []struct {
		cs     []adminConnection
		secure bool
	}{{*doc.Connections, false}, {doc.SecureConnections, true}} {
		for _, a := range list.cs {
			c := Connection{Server: url, Address: socketAddress(a.Remote), LastOp: a.LastOp, Secure: list.secure}
			if c.Address == "" {
				return nil, fmt.Errorf("%s: a connection without remote_socket_address", url)
			}
			if a.Session != "" {
				id, err := strconv.ParseInt(string(a.Session), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: session_id %q is not a number", url, clip(string(a.Session), 40))
				}
				c.Session = id
			}
			if to, err := a.Timeout.Int64(); err == nil {
				c.Timeout = int32(to)
			}
			if z, err := a.LastZxid.Int64(); err == nil {
				c.LastZxid = z
			}
			c.Established = adminTime(a.Established)
			out = append(out, c)
		}
	}
	return out, nil
}

// adminTime reads a java.util.Date as Jackson writes it: epoch ms (the
// default), or a string in one of the usual forms; zero when neither.
func adminTime(raw json.RawMessage) time.Time {
	var ms int64
	if json.Unmarshal(raw, &ms) == nil && ms > 0 {
		return time.UnixMilli(ms).UTC()
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000-0700", time.UnixDate, "Mon Jan 02 15:04:05 MST 2006"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC()
			}
		}
	}
	return time.Time{}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(strings.TrimSpace(s), 200)
}

func clip(s string, n int) string {
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// ConnectionsOptions say how ServerConnections asks a server.
type ConnectionsOptions struct {
	// TLS wraps the connection for cons (a secure client port).
	TLS *tls.Config
	// AdminPort is the AdminServer's port (admin.serverPort) to ask when
	// cons is refused; 0: do not ask it.
	AdminPort int
	// Timeout bounds each question (default 10 s).
	Timeout time.Duration
}

// ServerConnections is what one server said of its clients.
type ServerConnections struct {
	Server string
	// Via is how they were listed: "cons", or the AdminServer's URL.
	Via         string
	Connections []Connection
	// Why says, when they could not be listed, what each way answered
	// and the setting that enables it.
	Why string
}

// AskConnections lists a server's client connections: with cons, and
// when the server refuses it, with the AdminServer's connections
// command. Both are read-only monitoring commands.
func AskConnections(ctx context.Context, server string, o ConnectionsOptions) ServerConnections {
	out := ServerConnections{Server: server}
	cs, err := Cons(ctx, server, o.TLS, o.Timeout)
	if err == nil {
		out.Via, out.Connections = "cons", cs
		return out
	}
	var why []string
	var refused *RefusedCommandError
	if errors.As(err, &refused) {
		why = append(why, fmt.Sprintf("the four-letter word cons is refused (%q): 4lw.commands.whitelist must include cons (or *)", refused.Answer))
	} else {
		why = append(why, fmt.Sprintf("cons could not be asked: %v", err))
	}
	if o.AdminPort > 0 {
		host, _, herr := net.SplitHostPort(server)
		if herr != nil {
			host = server
		}
		url := fmt.Sprintf("http://%s/commands/connections", net.JoinHostPort(host, strconv.Itoa(o.AdminPort)))
		cs, aerr := AdminConnections(ctx, url, o.Timeout)
		if aerr == nil {
			out.Via, out.Connections = url, cs
			return out
		}
		why = append(why, fmt.Sprintf("the AdminServer's connections command at %s did not answer (%v): it needs admin.enableServer=true (admin.serverPort=%d)", url, aerr, o.AdminPort))
	} else {
		why = append(why, "the AdminServer was not asked (--zk-admin-port 0); it answers with admin.enableServer=true")
	}
	out.Why = strings.Join(why, "; ")
	return out
}
