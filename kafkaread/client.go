package kafkaread

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

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
}

// Dial connects to the first bootstrap address that answers and proves
// the connection (see the package doc for the failures it names).
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
	opts := []kgo.Opt{
		kgo.SeedBrokers(cfg.Bootstrap...),
		kgo.DialTimeout(to),
		kgo.RequestTimeoutOverhead(to),
		kgo.RetryTimeout(to),
		kgo.RequestRetries(2),
		kgo.SoftwareNameAndVersion("kmeta", "1"),
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
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	c := &Client{cfg: cfg, sec: sec, cl: cl, adm: kadm.NewClient(cl)}
	var errs []error
	for i, b := range cl.SeedBrokers() {
		addr := cfg.Bootstrap[i]
		rctx, cancel := context.WithTimeout(ctx, to)
		req := kmsg.NewPtrApiVersionsRequest()
		req.ClientSoftwareName, req.ClientSoftwareVersion = "kmeta", "1"
		resp, err := b.Request(rctx, req)
		cancel()
		if err == nil {
			r := resp.(*kmsg.ApiVersionsResponse)
			err = kerr.ErrorForCode(r.ErrorCode)
			if err == nil {
				c.seed, c.Addr = b, addr
				c.noteVersions(r)
				if err := c.checkMode(); err != nil {
					cl.Close()
					return nil, err
				}
				if err := c.checkNeeded(); err != nil {
					cl.Close()
					return nil, err
				}
				return c, nil
			}
		}
		errs = append(errs, c.classify(addr, err))
		if ctx.Err() != nil {
			break
		}
	}
	cl.Close()
	// Name the first failure's class; every address is in the message.
	if len(errs) == 1 {
		return nil, errs[0]
	}
	return nil, errors.Join(errs...)
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

// need checks that the answering node lists an API at minVersion or
// above.
func (c *Client) need(key, minVersion int16) error {
	r, ok := c.APIs[key]
	if ok && r[1] >= minVersion {
		return nil
	}
	rel := minRelease[key]
	if key == 60 && minVersion >= 1 {
		rel = "3.7" // DescribeCluster v1: controllers answer it (KIP-919)
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
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout())
	defer cancel()
	var resp kmsg.Response
	var err error
	if c.cfg.Controllers {
		resp, err = c.seed.RetriableRequest(ctx, req)
	} else {
		resp, err = c.cl.Request(ctx, req)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", apiName(req.Key()), c.classify(c.Addr, err))
	}
	return resp, nil
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
		return fmt.Errorf("%w: %s did not answer within %s", ErrUnreachable, addr, c.cfg.timeout())
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

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
