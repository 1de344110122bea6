package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"
)

// Exceptions are the findings a team accepts on purpose: per rule, per
// topic pattern, each with a reason. The file is JSON: kmeta parses it
// with the standard library, where YAML would be kmeta's first YAML
// dependency; a YAML user converts with any yq.
//
//	{"exceptions": [
//	  {"rule": "replication-factor-one", "topics": "scratch-*", "reason": "throwaway data"},
//	  {"rule": "broker-without-rack", "reason": "broker 9 is a lab box"}
//	]}
//
// topics is a glob (path.Match: *, ?, [a-z]); left out, the exception
// covers the rule's every finding. A finding is covered when one of its
// topic entities matches (a finding about no topic is covered only by an
// exception without topics).
type Exceptions struct {
	Exceptions []Exception `json:"exceptions"`
}

// Exception accepts a rule's findings on topics matching a pattern.
type Exception struct {
	Rule   string `json:"rule"`
	Topics string `json:"topics,omitempty"`
	Reason string `json:"reason"`
}

// ParseExceptions reads an exceptions file, refusing what is not one
// JSON object (null, a second document, anything after it), unknown
// fields, a rule that does not exist, a bad pattern and an exception
// without a reason.
func ParseExceptions(data []byte) (*Exceptions, error) {
	var ex Exceptions
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("exceptions: the file is not a JSON object ({\"exceptions\": [...]})")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ex); err != nil {
		return nil, fmt.Errorf("exceptions: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("exceptions: more after the JSON object, at byte position %d: one object per file", dec.InputOffset())
	}
	for i, e := range ex.Exceptions {
		if _, ok := Lookup(e.Rule); !ok {
			return nil, fmt.Errorf("exceptions[%d]: no rule %q", i, e.Rule)
		}
		if strings.TrimSpace(e.Reason) == "" {
			return nil, fmt.Errorf("exceptions[%d] (%s): a reason is required", i, e.Rule)
		}
		if e.Topics != "" {
			if _, err := path.Match(e.Topics, ""); err != nil {
				return nil, fmt.Errorf("exceptions[%d] (%s): topics %q: %w", i, e.Rule, e.Topics, err)
			}
		}
	}
	return &ex, nil
}

// Match is the reason of the first exception covering f, "" when none
// does.
func (ex *Exceptions) Match(f *Finding) string {
	for _, e := range ex.Exceptions {
		if e.Rule != f.Code {
			continue
		}
		if e.Topics == "" {
			return e.Reason
		}
		for _, en := range f.Entities {
			name := en.Name
			switch en.Kind {
			case "topic":
			case "partition": // topic-N
				name = name[:max(0, strings.LastIndexByte(name, '-'))]
			default:
				continue
			}
			if ok, _ := path.Match(e.Topics, name); ok {
				return e.Reason
			}
		}
	}
	return ""
}
