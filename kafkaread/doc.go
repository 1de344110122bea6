// Package kafkaread reads a running Kafka cluster through its admin API
// into kmeta's model: the kafka:// source. It is a reader, a sibling of
// metalog and zkread, and speaks Kafka's protocol through franz-go (kgo,
// kadm, kmsg) and its SASL packages.
//
// # Connecting
//
// A Config names the bootstrap addresses (kafka://h1:9092,h2:9092) and
// carries Kafka's own client settings file (client.properties, the
// --command-config of Kafka's tools), parsed with kmeta's one
// java.util.Properties parser (javaprops). Understood settings:
//
//	security.protocol      PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
//	sasl.mechanism         PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
//	sasl.jaas.config       PlainLoginModule / ScramLoginModule with
//	                       username="..." password="..."
//	ssl.truststore.*       type PEM, PKCS12 or JKS; location, password,
//	                       or PEM text in ssl.truststore.certificates
//	ssl.keystore.*         the same, with ssl.key.password; PEM text in
//	                       ssl.keystore.certificate.chain and ssl.keystore.key
//	ssl.endpoint.identification.algorithm   "" turns host name checks off
//
// A store of type JKS (Kafka's default type) that is a PKCS12 file is read
// as PKCS12, as the JDK's JKS key store reads it. Controllers reached on
// another listener (a PLAINTEXT controller listener behind SASL_SSL
// brokers) take Config.ControllerProperties (--controller-command-config),
// or the file's listener.name.<listener>.* keys over the rest.
//
// Kerberos (GSSAPI) and OAUTHBEARER are Kafka mechanisms kmeta does not
// speak; they are refused by name (ErrUnsupported), never attempted.
//
// Dial proves the connection with one ApiVersions round trip to a
// bootstrap address before anything else is asked, so that the failures
// an operator meets first are named as such, each with the address:
// nothing listening (ErrRefused, at once), nobody answering
// (ErrUnreachable, after the timeout), a TLS handshake that fails
// (ErrTLS, with the certificate problem), a SASL authentication that fails
// (ErrAuth), a ZooKeeper-mode broker (ErrZooKeeperMode: it lists the
// ZooKeeper-only inter-broker APIs such as LeaderAndIsr, which no KRaft
// node lists), and an API kmeta needs that the node does not have
// (ErrMissingAPI, naming the API and the first release that has it).
//
// Every bootstrap address is asked at once, and the client then talks to
// the first that answered, and to it alone: a hung address costs nothing
// when another answers, and an error names the address that failed
// (every one, in the order given, when none answers). Every request goes
// to that node (a broker forwards to the controller what only it
// answers), but for what one broker alone answers (its own configs, its
// supported features), asked of all brokers at once with a quarter of
// the timeout each; a broker that did not answer is not asked again and
// is named in a warning. One deadline, Config.Timeout (--kafka-timeout)
// from Dial, bounds Dial and every request after it, so that a command's
// read of a cluster ends within it whatever the peers do.
//
// What a peer sends is bounded: an answer of at most 64 MiB, a quorum of
// at most MaxVoters voters and MaxObservers observers, topic names Kafka
// accepts. A peer that breaks the protocol (bytes that are no Kafka
// answer, a connection closed after ApiVersions was answered, counts or
// names no Kafka sends) is ErrNotKafka, never a gap in the image. A
// message quotes a setting's value only when it is a name or a path, and
// never a secret setting's value (a line of the settings file that ran
// into the next carries its secret along).
//
// With Config.Controllers (--bootstrap-controller, KIP-919) the addresses
// are controllers: they answer no Metadata request, so every request goes
// straight to a bootstrap address rather than through franz-go's
// metadata-driven routing.
//
// # The image
//
// Client.Image reads what the admin API exposes into a model.Image and
// lists in Image.NotReported what it cannot (epochs, incarnation ids,
// directories, producer ids, the migration state, secrets; the quorum is
// quorum describe's). Each broker's static configs come from its own
// DescribeConfigs answer with synonyms (Image.StaticConfigs); a broker
// that does not answer for its configs is listed in
// Image.UnreportedConfigs, and the other brokers' and the cluster's
// configs are still read. A section the principal may not read or the node
// does not answer is marked as well and named by a warning
// (live-not-authorized, live-not-answered); the rest is read.
//
// # Reading only
//
// Everything in this package reads, except writes.go: the one file of the
// product that sends a request which changes a cluster (UpdateFeatures
// for features upgrade and downgrade; CreateTopics, CreatePartitions,
// IncrementalAlterConfigs, AlterClientQuotas, CreateAcls and DeleteAcls
// for restore). A test of the house keeps every other request out of the
// product.
package kafkaread
