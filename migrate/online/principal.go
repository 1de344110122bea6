package online

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// javaNames are the attribute keywords Java's X500Principal.getName()
// (RFC 2253) prints; any other attribute is printed as its OID and the
// hex of its DER value.
var javaNames = map[string]string{
	"2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O",
	"2.5.4.11": "OU", "2.5.4.9": "STREET", "0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1": "UID",
}

// javaDN is a certificate subject (its DER) as Java's
// X500Principal.getName() prints it, which is what Kafka's
// DefaultKafkaPrincipalBuilder gives ssl.principal.mapping.rules: RFC
// 2253, the last RDN first. A subject that does not parse is its hex.
func javaDN(raw []byte) string {
	var seq pkix.RDNSequence
	if rest, err := asn1.Unmarshal(raw, &seq); err != nil || len(rest) > 0 {
		return "#" + hex.EncodeToString(raw)
	}
	var rdns []string
	for i := len(seq) - 1; i >= 0; i-- {
		var avas []string
		for _, a := range seq[i] {
			oid := a.Type.String()
			name, known := javaNames[oid]
			s, isString := a.Value.(string)
			if !known || !isString {
				der, err := asn1.Marshal(a.Value)
				if err != nil {
					der = nil
				}
				if !known {
					name = oid
				}
				avas = append(avas, name+"=#"+hex.EncodeToString(der))
				continue
			}
			avas = append(avas, name+"="+escapeDN(s))
		}
		rdns = append(rdns, strings.Join(avas, "+"))
	}
	return strings.Join(rdns, ",")
}

// escapeDN escapes an attribute value as RFC 2253 does.
func escapeDN(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case strings.ContainsRune(`,+"\<>;`, r),
			i == 0 && (r == ' ' || r == '#'),
			i == len(s)-1 && r == ' ':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sslRule is one rule of ssl.principal.mapping.rules.
type sslRule struct {
	isDefault    bool
	pattern      *regexp.Regexp
	replacement  string
	lower, upper bool
}

// Kafka's SslPrincipalMapper grammar: DEFAULT, or
// RULE:pattern/replacement/[LU], the rules separated by commas (a
// pattern may hold escaped characters, commas among them).
var (
	sslRulePattern  = `(DEFAULT)|RULE:((?:\\.|[^\\/])*)/((?:\\.|[^\\/])*)/([LU]?).*?|(.*?)`
	sslRuleSplitter = regexp.MustCompile(`\s*(` + sslRulePattern + `)\s*(,\s*|$)`)
	sslRuleParser   = regexp.MustCompile(`^(?:` + sslRulePattern + `)`)
)

// parseSSLRules parses ssl.principal.mapping.rules ("" is DEFAULT).
func parseSSLRules(rules string) ([]sslRule, error) {
	if strings.TrimSpace(rules) == "" {
		return []sslRule{{isDefault: true}}, nil
	}
	var out []sslRule
	for _, m := range sslRuleSplitter.FindAllStringSubmatch(rules, -1) {
		rule := m[1]
		if rule == "" {
			continue
		}
		p := sslRuleParser.FindStringSubmatch(rule)
		if p == nil || len(p[0]) != len(rule) {
			return nil, fmt.Errorf("ssl.principal.mapping.rules: invalid rule %q", rule)
		}
		switch {
		case p[1] != "":
			out = append(out, sslRule{isDefault: true})
		case strings.HasPrefix(rule, "RULE:"):
			re, err := regexp.Compile(`^(?:` + p[2] + `)$`)
			if err != nil {
				// A Java pattern Go's regexp cannot take (a back
				// reference, a lookahead).
				return nil, fmt.Errorf("ssl.principal.mapping.rules: pattern %q: %v", p[2], err)
			}
			out = append(out, sslRule{pattern: re, replacement: p[3], lower: p[4] == "L", upper: p[4] == "U"})
		}
	}
	return out, nil
}

// apply is SslPrincipalMapper.Rule.apply: the replacement when the
// pattern matches the whole name, else ok false.
func (r sslRule) apply(dn string) (string, bool) {
	if r.isDefault {
		return dn, true
	}
	m := r.pattern.FindStringSubmatchIndex(dn)
	if m == nil {
		return "", false
	}
	out := string(r.pattern.ExpandString(nil, javaReplacement(r.replacement, r.pattern.NumSubexp()), dn, m))
	switch {
	case r.lower:
		out = strings.ToLower(out)
	case r.upper:
		out = strings.ToUpper(out)
	}
	return out, true
}

// javaReplacement turns a java.util.regex replacement into Go's
// template: $n is a group (as many digits as name an existing group),
// \x is x, any other $ is literal.
func javaReplacement(s string, groups int) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(s[i])
			}
		case c == '$' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 2
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				if n, _ := strconv.Atoi(s[i+1 : j+1]); n > groups {
					break
				}
				j++
			}
			b.WriteString("${" + s[i+1:j] + "}")
			i = j - 1
		case c == '$':
			b.WriteString("$$")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// mapSSLPrincipal is SslPrincipalMapper.getName: the first rule that
// applies; an error when none does (Kafka then refuses the connection).
func mapSSLPrincipal(rules, dn string) (string, error) {
	rs, err := parseSSLRules(rules)
	if err != nil {
		return "", err
	}
	for _, r := range rs {
		if out, ok := r.apply(dn); ok {
			return out, nil
		}
	}
	return "", fmt.Errorf("no rule of ssl.principal.mapping.rules applies (Kafka refuses the connection)")
}
