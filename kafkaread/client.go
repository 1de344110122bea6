package kafkaread

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Client is a connection to one cluster, proven by Dial.
type Client struct {
	cfg Config
	sec *security
	cl  *kgo.Client
	adm *kadm.Client
	// seed is the bootstrap address that answered Dial's ApiVersions.
	seed *kgo.Broker
	// Addr is that address.
	Addr string
	// APIs are the answering node's API keys and version ranges.
	APIs map[int16][2]int16
	// Finalized are the finalized feature levels the answering node
	// reported in ApiVersions, and FinalizedEpoch their epoch.
	Finalized      map[string]int16
	FinalizedEpoch int64
	// Supported are that node's supported feature ranges.
	Supported map[string][2]int16
	// ZkMigrationReady is what a KRaft controller says in ApiVersions
	// (KIP-866): it runs with zookeeper.metadata.migration.enable and the
	// settings the migration needs. Only a 3.4-3.9 controller sets it.
	ZkMigrationReady bool

	// deadline bounds Dial and every request (Dial's doc); wait is how
	// long that was from Dial's start, for messages.
	deadline time.Time
	wait     time.Duration
	// proven: Dial's ApiVersions was answered, so a connection closed
	// later is no failed handshake.
	proven bool
	// dead holds the first error of each broker that did not answer a
	// request of its own (brokerRequest).
	mu   sync.Mutex
	dead map[int32]error
	// addrs are the brokers' advertised addresses (noteAddrs).
	addrs map[int32]string
}

// Dial connects to a bootstrap address that answers and proves the
// connection (see the package doc for the failures it names). Every
// address is asked at once, and the first to answer is the one the client
// talks to: a hung address costs nothing when another answers. One
// deadline, Config.Timeout from now (or ctx's, when sooner), bounds Dial
// and every request of the client after it, so that a command's read of a
// cluster ends within --kafka-timeout whatever the peers do.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if len(cfg.Bootstrap) == 0 {
		return nil, fmt.Errorf("%w: no bootstrap address", ErrConfig)
	}
	// The connection's own settings: a controller's, where they differ.
	// The Client keeps cfg as given, for the other nodes it dials.
	conn := cfg
	if cfg.Controllers {
		conn = cfg.forControllers()
	}
	sec, err := conn.parseSecurity()
	if err != nil {
		return nil, err
	}
	to := cfg.timeout()
	deadline, wait := time.Now().Add(to), to
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline, wait = d, time.Until(d).Round(time.Millisecond)
	}
	pctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	probe, err := kgo.NewClient(clientOpts(cfg.Bootstrap, to, sec)...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	c := &Client{cfg: cfg, sec: sec, deadline: deadline, wait: wait, dead: map[int32]error{}}
	type answer struct {
		i    int
		resp *kmsg.ApiVersionsResponse
		err  error
	}
	seeds := probe.SeedBrokers()
	answers := make(chan answer, len(seeds))
	for i, b := range seeds {
		go func() {
			req := kmsg.NewPtrApiVersionsRequest()
			req.ClientSoftwareName, req.ClientSoftwareVersion = "kmeta", "1"
			resp, err := b.Request(pctx, req)
			if err != nil {
				answers <- answer{i, nil, err}
				return
			}
			r := resp.(*kmsg.ApiVersionsResponse)
			answers <- answer{i, r, kerr.ErrorForCode(r.ErrorCode)}
		}()
	}
	errs := make([]error, len(seeds))
	var won *answer
	for range seeds {
		a := <-answers
		if a.err == nil {
			won = &a
			break
		}
		errs[a.i] = c.classify(cfg.Bootstrap[a.i], a.err)
	}
	cancel()
	probe.Close()
	if won == nil {
		// Every address is named, in the order given, with its class.
		var out []error
		for _, e := range errs {
			if e != nil {
				out = append(out, e)
			}
		}
		if len(out) == 1 {
			return nil, out[0]
		}
		return nil, errors.Join(out...)
	}
	// The client talks to the address that answered, and only to it
	// (and to a broker by id where an answer is that broker's alone):
	// franz-go would otherwise send a request to any address it knows,
	// a hung one included.
	c.Addr = cfg.Bootstrap[won.i]
	if c.cl, err = kgo.NewClient(clientOpts([]string{c.Addr}, to, sec)...); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	c.adm = kadm.NewClient(c.cl)
	c.seed = c.cl.SeedBrokers()[0]
	c.noteVersions(won.resp)
	if err := c.checkMode(); err != nil {
		c.cl.Close()
		return nil, err
	}
	if err := c.checkNeeded(); err != nil {
		c.cl.Close()
		return nil, err
	}
	c.proven = true
	return c, nil
}

// maxReadBytes bounds one answer of a peer (franz-go's default is 100
// MB): the largest kmeta asks for, a Metadata of every topic of a large
// cluster, stays well below it.
const maxReadBytes = 64 << 20

func clientOpts(seeds []string, to time.Duration, sec *security) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(seeds...),
		kgo.DialTimeout(to),
		kgo.RequestTimeoutOverhead(to),
		kgo.RetryTimeout(to),
		kgo.RequestRetries(2),
		kgo.SoftwareNameAndVersion("kmeta", "1"),
		kgo.BrokerMaxReadBytes(maxReadBytes),
		// kmeta reads metadata; it never needs franz-go's background
		// metadata refreshes to find partitions to produce to.
		kgo.MetadataMinAge(to),
	}
	if sec.sasl != nil {
		opts = append(opts, kgo.SASL(sec.sasl))
	}
	if sec.tls != nil {
		opts = append(opts, kgo.DialTLSConfig(sec.tls))
	}
	return opts
}

// bounded is ctx bounded by the client's deadline.
func (c *Client) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, c.deadline)
}

// nodeBounded bounds one request to one node of many (a broker's own
// configs, its ApiVersions): a quarter of the timeout, within the
// deadline, so that nodes that do not answer leave time for the rest of
// the read. It also returns the bound, for messages.
func (c *Client) nodeBounded(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	bound := c.cfg.timeout() / 4
	d := time.Now().Add(bound)
	if d.After(c.deadline) {
		d, bound = c.deadline, time.Until(c.deadline)
	}
	nctx, cancel := context.WithDeadline(ctx, d)
	return nctx, cancel, bound.Round(time.Millisecond)
}

// brokerRequest sends req to broker id alone (an answer only that broker
// gives), bounded as one node of many. A broker that did not answer, or
// refused the connection, is not asked again: its first error is
// returned at once.
func (c *Client) brokerRequest(ctx context.Context, id int32, req kmsg.Request) (kmsg.Response, error) {
	c.mu.Lock()
	err := c.dead[id]
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	nctx, cancel, bound := c.nodeBounded(ctx)
	defer cancel()
	resp, err := c.cl.Broker(int(id)).Request(nctx, req)
	if err == nil {
		return resp, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		err = fmt.Errorf("broker %d: %w: %s did not answer within %s (one broker's share of the timeout)", id, ErrUnreachable, c.brokerAddr(id), bound)
	} else {
		err = fmt.Errorf("broker %d: %w", id, c.classify(c.brokerAddr(id), err))
	}
	if errors.Is(err, ErrUnreachable) || errors.Is(err, ErrRefused) {
		c.mu.Lock()
		c.dead[id] = err
		c.mu.Unlock()
	}
	return nil, err
}

// brokerAddr is broker id's address as the cluster advertised it
// (noteAddrs), or "broker ID".
func (c *Client) brokerAddr(id int32) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.addrs[id]; ok {
		return a
	}
	return fmt.Sprintf("broker %d", id)
}

// noteAddrs keeps the brokers' addresses an answer lists, for errors.
func (c *Client) noteAddrs(resp kmsg.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addrs == nil {
		c.addrs = map[int32]string{}
	}
	switch r := resp.(type) {
	case *kmsg.DescribeClusterResponse:
		for _, b := range r.Brokers {
			c.addrs[b.NodeID] = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		}
	case *kmsg.MetadataResponse:
		for _, b := range r.Brokers {
			c.addrs[b.NodeID] = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		}
	}
}

// Close ends the connection.
func (c *Client) Close() { c.cl.Close() }

// Controllers reports whether the client talks to controllers
// (--bootstrap-controller).
func (c *Client) Controllers() bool { return c.cfg.Controllers }

// Mechanism is the SASL mechanism in use, "" without SASL.
func (c *Client) Mechanism() string { return c.sec.mechName }

func (c *Client) noteVersions(r *kmsg.ApiVersionsResponse) {
	c.APIs = map[int16][2]int16{}
	for _, k := range r.ApiKeys {
		c.APIs[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
	}
	c.Finalized = map[string]int16{}
	for _, f := range r.FinalizedFeatures {
		c.Finalized[f.Name] = f.MaxVersionLevel
	}
	c.FinalizedEpoch = r.FinalizedFeaturesEpoch
	c.ZkMigrationReady = r.ZkMigrationReady
	c.Supported = map[string][2]int16{}
	for _, f := range r.SupportedFeatures {
		c.Supported[f.Name] = [2]int16{f.MinVersion, f.MaxVersion}
	}
}

// zkOnlyAPIs are inter-broker APIs only a ZooKeeper-mode broker lists in
// ApiVersions (their listener type is ZK_BROKER alone). ControlledShutdown
// is not one: in 3.x its listeners are zkBroker and controller (migrating
// ZooKeeper brokers send it to the KRaft controller), and a 3.9 KRaft
// controller in migration lists it.
var zkOnlyAPIs = []int16{4, 5, 6} // LeaderAndIsr, StopReplica, UpdateMetadata

func (c *Client) checkMode() error {
	for _, k := range zkOnlyAPIs {
		if _, ok := c.APIs[k]; ok {
			return fmt.Errorf("%w: %s answers as a ZooKeeper-mode broker (it lists %s, an API only ZooKeeper-mode brokers have); read its metadata from ZooKeeper instead (zk://HOST:2181/CHROOT)", ErrZooKeeperMode, c.Addr, apiName(k))
		}
	}
	return nil
}

// checkNeeded names, at Dial, a node without the APIs every view is read
// with (ErrMissingAPI, as the package doc promises), rather than leave it
// to the first request: a broker answers Metadata and DescribeConfigs; a
// controller answers DescribeCluster v1 (KIP-919) instead of Metadata.
func (c *Client) checkNeeded() error {
	need := [][2]int16{{3, 0}, {32, 0}} // Metadata, DescribeConfigs
	if c.cfg.Controllers {
		need = [][2]int16{{60, 1}, {32, 0}} // DescribeCluster v1, DescribeConfigs
	}
	for _, n := range need {
		if err := c.need(n[0], n[1]); err != nil {
			return err
		}
	}
	return nil
}

// minRelease is the first Kafka release whose brokers answer each API
// kmeta uses (at the version kmeta needs), for ErrMissingAPI messages.
var minRelease = map[int16]string{
	3:  "0.8",  // Metadata
	29: "0.11", // DescribeAcls
	32: "0.11", // DescribeConfigs
	41: "1.1",  // DescribeDelegationToken
	48: "2.6",  // DescribeClientQuotas
	50: "2.7",  // DescribeUserScramCredentials
	55: "3.3",  // DescribeQuorum (KRaft production-ready)
	57: "2.7",  // UpdateFeatures
	60: "2.8",  // DescribeCluster
}

// minReleaseAt is the first release answering an API at a version
// above its first (key, version): what kmeta needs of newer versions.
var minReleaseAt = map[[2]int16]string{
	{3, 10}: "2.8", // Metadata v10: topic ids
	{32, 1}: "1.1", // DescribeConfigs v1: synonyms
	{55, 2}: "3.9", // DescribeQuorum v2: directory ids, voter endpoints
	{60, 1}: "3.7", // DescribeCluster v1: controllers answer it (KIP-919)
}

// need checks that the answering node lists an API at minVersion or
// above.
func (c *Client) need(key, minVersion int16) error {
	r, ok := c.APIs[key]
	if ok && r[1] >= minVersion {
		return nil
	}
	rel := minRelease[key]
	if r, ok := minReleaseAt[[2]int16{key, minVersion}]; ok {
		rel = r
	}
	if rel == "" {
		rel = "a newer release"
	}
	role := "broker"
	if c.cfg.Controllers {
		role = "controller"
	}
	return fmt.Errorf("%w: %s (%s) does not answer %s v%d, which kmeta needs; Kafka %s or newer has it", ErrMissingAPI, c.Addr, role, apiName(key), minVersion, rel)
}

func apiName(key int16) string {
	if n := kmsg.NameForKey(key); n != "" {
		return n
	}
	return fmt.Sprintf("API %d", key)
}

// request sends req where it belongs: through franz-go's routing to
// brokers, or straight to the answering bootstrap controller (controllers
// answer no Metadata request, which that routing needs).
func (c *Client) request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	if id, ok := brokerResource(req); ok && !c.cfg.Controllers {
		resp, err := c.brokerRequest(ctx, id, req)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", apiName(req.Key()), err)
		}
		return resp, nil
	}
	// Every other answer is the answering node's to give: a broker
	// forwards what the controller answers (DescribeQuorum,
	// ListPartitionReassignments), and any broker answers the rest.
	resp, err := c.seed.RetriableRequest(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", apiName(req.Key()), c.classify(c.Addr, err))
	}
	c.noteAddrs(resp)
	return resp, nil
}

// brokerResource is the broker a DescribeConfigs about one broker's own
// configs must be sent to (Kafka answers them on that broker only).
func brokerResource(req kmsg.Request) (int32, bool) {
	dc, ok := req.(*kmsg.DescribeConfigsRequest)
	if !ok || len(dc.Resources) != 1 || dc.Resources[0].ResourceType != kmsg.ConfigResourceTypeBroker || dc.Resources[0].ResourceName == "" {
		return 0, false
	}
	id, err := strconv.ParseInt(dc.Resources[0].ResourceName, 10, 32)
	return int32(id), err == nil
}

// classify names a connection failure by its class (see errors.go). The
// message carries the address and what the operator can check.
func (c *Client) classify(addr string, err error) error {
	if err == nil {
		return nil
	}
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verify           *tls.CertificateVerificationError
		header           tls.RecordHeaderError
		alert            tls.AlertError
		dns              *net.DNSError
		ke               *kerr.Error
		op               *net.OpError
		firstEOF         *kgo.ErrFirstReadEOF
	)
	switch {
	case errors.As(err, &op) && op.Op == "remote error":
		// The broker sent a TLS alert: it refused the handshake. Its
		// reason is the alert's ("bad certificate", "certificate
		// required"), which Go keeps unexported, so the text is kept.
		hint := "the listener may require a client certificate (ssl.client.auth=required): set ssl.keystore.location"
		if c.sec.tls != nil && len(c.sec.tls.Certificates) > 0 {
			hint = "the broker did not accept the client certificate of ssl.keystore.location (is its CA in the broker's trust store?)"
		}
		return fmt.Errorf("%w with %s: the broker refused the handshake (%v); %s", ErrTLS, addr, op.Err, hint)
	case c.sec.tls == nil && strings.Contains(err.Error(), "tls alert record"):
		// franz-go's reading of a TLS alert where a Kafka answer's size
		// was expected.
		return fmt.Errorf("%w with %s: the broker answered in TLS, so the listener is SSL or SASL_SSL, but security.protocol is %s", ErrTLS, addr, c.sec.protocol)
	case c.sec.tls != nil && errors.As(err, &firstEOF) && strings.Contains(firstEOF.Error(), "after a dial"):
		// The connection closed before the TLS handshake ended: a
		// PLAINTEXT listener reads the ClientHello as an oversized
		// request and drops the connection.
		return fmt.Errorf("%w with %s: the broker closed the connection during the TLS handshake; is the listener PLAINTEXT or SASL_PLAINTEXT? security.protocol is %s", ErrTLS, addr, c.sec.protocol)
	case errors.As(err, &hostname):
		return fmt.Errorf("%w with %s: %v; connect through a name or address the certificate carries, or set ssl.endpoint.identification.algorithm= (empty) to skip the host name check", ErrTLS, addr, hostname)
	case errors.As(err, &unknownAuthority):
		trust := "ssl.truststore.location"
		if c.cfg.Properties["ssl.truststore.location"] == "" {
			trust = "the system's roots (no ssl.truststore.location is set)"
			if c.cfg.Properties["ssl.truststore.certificates"] != "" {
				trust = "ssl.truststore.certificates"
			}
		}
		return fmt.Errorf("%w with %s: %v; the trust store (%s) does not hold the CA that signed the broker's certificate", ErrTLS, addr, unknownAuthority, trust)
	case errors.As(err, &invalid):
		return fmt.Errorf("%w with %s: %v", ErrTLS, addr, invalid)
	case errors.As(err, &verify), errors.As(err, &alert):
		return fmt.Errorf("%w with %s: %v", ErrTLS, addr, err)
	case errors.As(err, &header):
		return fmt.Errorf("%w with %s: the server did not answer in TLS (is the listener PLAINTEXT or SASL_PLAINTEXT? security.protocol is %s)", ErrTLS, addr, c.sec.protocol)
	case errors.As(err, &ke) && ke.Code == kerr.IllegalSaslState.Code:
		return fmt.Errorf("%w at %s with %s: the broker expects no SASL here: is the listener PLAINTEXT or SSL? security.protocol is %s (%v)", ErrAuth, addr, c.sec.mechName, c.sec.protocol, err)
	case errors.As(err, &ke) && ke.Code == kerr.UnsupportedSaslMechanism.Code:
		return fmt.Errorf("%w at %s: the listener does not enable %s (the broker's sasl.enabled.mechanisms) (%v)", ErrAuth, addr, c.sec.mechName, err)
	case errors.As(err, &ke) && ke.Code == kerr.SaslAuthenticationFailed.Code:
		return fmt.Errorf("%w at %s with %s: %v", ErrAuth, addr, c.sec.mechName, err)
	case errors.As(err, &ke) && (ke.Code == kerr.ClusterAuthorizationFailed.Code || ke.Code == kerr.TopicAuthorizationFailed.Code):
		return fmt.Errorf("%w at %s: %v", ErrDenied, addr, err)
	case errors.Is(err, kerr.UnsupportedVersion):
		return fmt.Errorf("%w: %s: %v", ErrMissingAPI, addr, err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%w by %s: nothing listens there", ErrRefused, addr)
	case errors.As(err, &dns):
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, addr, dns)
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return fmt.Errorf("%w: %s did not answer within %s", ErrUnreachable, addr, c.waited())
	case strings.Contains(err.Error(), "response size"), strings.Contains(err.Error(), "not contain enough data"):
		// franz-go's reading of a size prefix (or a body) no Kafka node
		// sends: a peer that is no Kafka listener, or a broken one.
		return fmt.Errorf("%w: %s answered bytes that are no Kafka answer (%s); is %s a Kafka listener?", ErrNotKafka, addr, notKafkaDetail(err), addr)
	case c.proven && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || strings.Contains(err.Error(), "EOF")):
		// It answered ApiVersions: a connection closed now is no failed
		// handshake, whatever the settings.
		return fmt.Errorf("%w: %s closed the connection instead of answering, after it had answered ApiVersions (no authentication failure)", ErrNotKafka, addr)
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET), strings.Contains(err.Error(), "EOF"):
		hint := fmt.Sprintf("security.protocol is %s", c.sec.protocol)
		if c.sec.tls == nil {
			hint += "; a TLS or SASL listener closes a connection that speaks neither"
		}
		if c.sec.sasl != nil {
			hint += "; a listener without SASL closes the connection at the SASL handshake"
		}
		return fmt.Errorf("%w: %s closed the connection during the handshake (%s)", ErrAuth, addr, hint)
	}
	return fmt.Errorf("%s: %w", addr, err)
}

// waited is how long the client waits at most: its timeout, or less when
// the deadline it was given is sooner (one node of many).
func (c *Client) waited() time.Duration {
	if c.wait > 0 {
		return c.wait
	}
	return c.cfg.timeout()
}

// notKafkaDetail says what franz-go found wrong with an answer, in words
// that do not suggest a Kafka node sent it.
func notKafkaDetail(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "'HTTP'"):
		return "an HTTP answer"
	case strings.Contains(msg, "negative response size"):
		return "its first four bytes, read as an answer's size, are negative"
	case strings.Contains(msg, "large response size"):
		return fmt.Sprintf("its first four bytes, read as an answer's size, exceed the %d bytes kmeta accepts", maxReadBytes)
	}
	return "an answer shorter than what it announces"
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
