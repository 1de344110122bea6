package model

// A view may hold a secret's stand-in instead of the secret: a redacted
// dump holds RedactedValue and SCRAM fingerprints (the secret was there
// and was hidden), and a live cluster's admin API never returns sensitive
// config values or SCRAM salts and keys (the secret was never seen). Such
// a view can be printed and compared, but it is never a source of data to
// write: a credential written without its keys lets nobody log in, a
// password config written as its stand-in is a wrong password. The
// functions here are how a reader marks, and a writer recognises, a
// secret the view does not hold.

// NotReported is the value a view holds for a sensitive config its source
// does not report (Kafka's DescribeConfigs answers null for a sensitive
// value): a mark, never "", which is a value of its own.
const NotReported = "[not reported]"

// SecretWithheld reports whether a config value is a stand-in for a secret
// the view does not hold: a redaction (RedactedValue) or NotReported.
func SecretWithheld(v string) bool {
	return v == NotReported || IsRedacted(v)
}

// ConfigWithheld reports whether a config entry of a resource of type t
// is a secret the view does not hold: a sensitive key (SensitiveConfig)
// whose value is a stand-in (SecretWithheld). A stand-in under a key that
// is not sensitive is the operator's own value: no reader puts one there.
func ConfigWithheld(t ConfigResourceType, key, value string) bool {
	return SensitiveConfig(t, key) && SecretWithheld(value)
}

// Withheld reports whether the credential lacks its secret bytes: a salt,
// a stored key and a server key, none of which a real credential leaves
// empty (Kafka's ScramFormatter derives the keys from a non-empty salt).
// A redacted credential has a Fingerprint in their place; one a source
// did not report (a live cluster's DescribeUserScramCredentials gives the
// mechanism and iterations only) has neither.
func (c *ScramCredential) Withheld() bool {
	return len(c.Salt) == 0 || len(c.StoredKey) == 0 || len(c.ServerKey) == 0
}
