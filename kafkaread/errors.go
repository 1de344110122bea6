package kafkaread

import "errors"

// The classes of failure Dial and the reads name. Each error wraps one,
// and its message carries the address (or node) and the detail.
var (
	// ErrConfig: the client settings cannot be used as given (a setting
	// with a value Kafka would also refuse, a store that cannot be read).
	ErrConfig = errors.New("client settings")
	// ErrUnsupported: a setting Kafka supports that kmeta does not
	// (Kerberos, OAUTHBEARER, an unknown store type).
	ErrUnsupported = errors.New("not supported by kmeta")
	// ErrUnreachable: no answer from the address within the timeout, or a
	// name that does not resolve.
	ErrUnreachable = errors.New("unreachable")
	// ErrRefused: the address refused the connection (nothing listening).
	ErrRefused = errors.New("connection refused")
	// ErrTLS: the TLS handshake failed.
	ErrTLS = errors.New("TLS handshake failed")
	// ErrAuth: SASL authentication failed (wrong user or password, a
	// mechanism the listener does not enable).
	ErrAuth = errors.New("authentication failed")
	// ErrZooKeeperMode: the cluster runs on ZooKeeper; read ZooKeeper
	// instead (zk://).
	ErrZooKeeperMode = errors.New("a ZooKeeper-mode cluster")
	// ErrMissingAPI: the node lacks an API kmeta needs.
	ErrMissingAPI = errors.New("API not supported by the cluster")
	// ErrDenied: the principal may not do what was asked (an
	// authorization error on the whole request, not one resource).
	ErrDenied = errors.New("not authorized")
	// ErrNotKafka: the peer answered something no Kafka node answers
	// (bytes that are no Kafka answer, a connection closed mid-answer,
	// counts beyond any cluster's).
	ErrNotKafka = errors.New("not a Kafka answer")
)
