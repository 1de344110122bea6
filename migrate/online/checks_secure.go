package online

import "github.com/kmeta/kmeta/model"

// Codes of the controller listener's security checks (secure.go,
// listencheck.go) and of the quorum that elects no leader.
const (
	CodeCtlProtocolMismatch   = "controller-protocol-mismatch"
	CodeCtlAnonymous          = "controller-listener-anonymous"
	CodeCtlNotSuperUser       = "controller-principal-not-super-user"
	CodeCtlPrincipalUnknown   = "controller-principal-unknown"
	CodeCtlKeyStoreMissing    = "controller-tls-keystore-missing"
	CodeCtlUntrusted          = "controller-tls-untrusted"
	CodeCtlStoresUnread       = "controller-tls-stores-unread"
	CodeCtlMechanismMismatch  = "controller-sasl-mechanism-mismatch"
	CodeCtlSCRAM              = "controller-sasl-scram"
	CodeCtlSettingsMissing    = "controller-listener-settings-missing"
	CodeCtlListenerChosen     = "controller-listener-security"
	CodeCtlSuperUsersAdded    = "controller-super-users-added"
	CodeQuorumNoLeader        = "controllers-no-leader" // quorum-no-leader is quorum's
	CodeControllersUnanswered = "controllers-not-answering"
)

// Status's findings are printed by stage and rollback too.
var secureCommands = statusCommands

// SecureChecks declares the checks above.
var SecureChecks = model.Checks{
	{Code: CodeCtlProtocolMismatch, Room: "online", Class: Class, Severity: model.SevError, Commands: secureCommands,
		Title:   "a node's controller listener protocol is not the controllers'",
		Meaning: "A broker or controller connects to the controllers with the protocol its listener.security.protocol.map gives CONTROLLER; when it is not the one the controllers listen with, the handshake fails: the broker never registers, the controller never votes.",
		Fix:     "give every node the same CONTROLLER entry in listener.security.protocol.map (the files kmeta migrate stage writes do)"},
	{Code: CodeCtlAnonymous, Room: "online", Class: Class, Severity: model.SevError, Commands: secureCommands,
		Title:   "the controller listener does not authenticate, and the controllers' authorizer does not let User:ANONYMOUS in",
		Meaning: "On a PLAINTEXT controller listener (or TLS without client certificates) every peer is User:ANONYMOUS. StandardAuthorizer refuses every request of a principal that is not a super user (AuthorizerNotReadyException) until it has loaded the metadata, which it cannot do before the quorum has a leader: Votes are refused and no leader is ever elected. allow.everyone.if.no.acl.found does not apply before the load.",
		Fix:     "secure the controller listener (--controller-listener-protocol SSL or SASL_SSL), or add User:ANONYMOUS to super.users on the controllers (anyone who reaches their port is then a super user)"},
	{Code: CodeCtlNotSuperUser, Room: "online", Class: Class, Severity: model.SevError, Commands: secureCommands,
		Title:   "a principal on the controller listener is not a super user of the controllers",
		Meaning: "A controller must be a super user of the other controllers: their authorizer refuses everyone else until it has loaded the metadata, which takes a leader (AuthorizerNotReadyException on every Vote). A broker registers before the ACLs are migrated, so it must be a super user too.",
		Fix:     "add the principal to super.users in every controller's file"},
	{Code: CodeCtlPrincipalUnknown, Room: "online", Class: Class, Severity: model.SevWarning, Commands: secureCommands,
		Title:   "kmeta cannot tell a node's principal on the controller listener",
		Meaning: "The principal a node presents (its certificate's subject, its SASL user) could not be worked out here (a key store on another host, a JAAS file, custom principal rules): whether the controllers' authorizer lets it in is not checked.",
		Fix:     "make sure the principal is in super.users on every controller"},
	{Code: CodeCtlKeyStoreMissing, Room: "online", Class: Class, Severity: model.SevError, Commands: secureCommands,
		Title:   "a TLS controller listener lacks a key store",
		Meaning: "The controllers need a key store to listen with TLS, and, when they require client certificates (ssl.client.auth=required), every broker and controller needs one to connect: the handshake fails without it.",
		Fix:     "set listener.name.controller.ssl.keystore.* (or ssl.keystore.*) in the node's file"},
	{Code: CodeCtlUntrusted, Room: "online", Class: Class, Severity: model.SevError, Commands: secureCommands,
		Title:   "a node does not trust the certificate at the other end of the controller listener",
		Meaning: "A node's trust store must hold the CA that signed the certificates of the nodes it talks to on the controller listener (without one, Java trusts only the JDK's own CAs): the handshake fails, no vote, no registration.",
		Fix:     "set listener.name.controller.ssl.truststore.* to a store holding the peers' CA"},
	{Code: CodeCtlStoresUnread, Room: "online", Class: Class, Severity: model.SevWarning, Commands: secureCommands,
		Title:   "the controller listener's TLS stores could not be read here",
		Meaning: "kmeta reads the key and trust stores the files name to check that the nodes trust each other's certificates; these could not be read (on another host, another password): the trust between them is not checked.",
		Fix:     "run kmeta where the stores are, or check by hand that each trust store holds the CA of the peers' certificates"},
	{Code: CodeCtlMechanismMismatch, Room: "online", Class: Class, Severity: model.SevError, Commands: secureCommands,
		Title:   "a node's SASL mechanism for the controllers is not one the controllers enable",
		Meaning: "sasl.mechanism.controller.protocol must be among the mechanisms the controllers enable on their listener (listener.name.controller.sasl.enabled.mechanisms, else sasl.enabled.mechanisms): the handshake fails otherwise.",
		Fix:     "give every node the same sasl.mechanism.controller.protocol and enable it on the controllers' listener"},
	{Code: CodeCtlSCRAM, Room: "online", Class: Class, Severity: model.SevError, Commands: secureCommands,
		Title:   "the controllers authenticate each other with SCRAM",
		Meaning: "SCRAM credentials live in the metadata log, which a controller cannot read before the quorum has a leader: controllers cannot authenticate each other with SCRAM (KAFKA-15513) and never elect one.",
		Fix:     "use PLAIN (or GSSAPI, or TLS certificates) on the controller listener; kmeta migrate stage gives PLAIN with the inter-broker user's credentials"},
	{Code: CodeCtlSettingsMissing, Room: "online", Class: Class, Severity: model.SevError, Commands: []string{"migrate stage"},
		Title:   "the brokers' files lack what the controller listener's protocol needs",
		Meaning: "The controller listener takes its TLS stores and SASL mechanism and JAAS from the brokers' inter-broker listener; the file has none for the protocol chosen.",
		Fix:     "choose another --controller-listener-protocol, or add the settings to the brokers' files"},
	{Code: CodeCtlListenerChosen, Room: "online", Class: Class, Severity: model.SevInfo, Commands: []string{"migrate stage"},
		Title:   "how the controller listener is secured",
		Meaning: "The controller listener follows the brokers' inter-broker listener: its protocol, TLS stores, SASL mechanism and JAAS, written as listener.name.controller.* in the controllers' and brokers' files; this says what was chosen and why.",
	},
	{Code: CodeCtlSuperUsersAdded, Room: "online", Class: Class, Severity: model.SevInfo, Commands: []string{"migrate stage"},
		Title:   "principals added to the controllers' super.users",
		Meaning: "The principals the controllers and brokers present on the controller listener must be super users of the controllers (their authorizer refuses everyone else before it has loaded the metadata); kmeta adds those it found missing to the controllers' super.users.",
	},
	{Code: CodeQuorumNoLeader, Room: "online", Class: Class, Severity: model.SevError, Commands: statusCommands,
		Title:   "the controllers run but have no leader",
		Meaning: "The controllers were started but the quorum elected no leader: nothing of the migration can happen. The controllers' own state (quorum-state, their answers) says so; the other findings say why when the files show it.",
		Fix:     "fix what the other findings name and restart the controllers; their server.log names the refused Votes"},
	{Code: CodeControllersUnanswered, Room: "online", Class: Class, Severity: model.SevWarning, Commands: statusCommands,
		Title:   "the controllers cannot answer yet",
		Meaning: "A controller answers direct requests (--bootstrap-controller, KIP-919) only once it has loaded metadata at 3.7-IV0 or later; before the quorum has a leader it answers UNSUPPORTED_VERSION. kmeta goes on with ZooKeeper's view.",
		Fix:     "read a controller's metadata log dir (--kraft kraft:DIR), or ask again once the quorum has a leader"},
}
