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
	// One JSON value and nothing after it; field names as spelled, each
	// once; then the fields' types.
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("exceptions: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("exceptions: more after the JSON object, at byte position %d: one object per file", dec.InputOffset())
	}
	// encoding/json matches field names without regard to case
	// ("Exceptions" fills exceptions): the names are checked as written.
	if err := exactKeys(raw); err != nil {
		return nil, fmt.Errorf("exceptions: %w", err)
	}
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&ex); err != nil {
		return nil, fmt.Errorf("exceptions: %w", err)
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

// exactKeys refuses a field name spelled otherwise than the format's, or
// given twice in one object (encoding/json would take the last).
func exactKeys(data []byte) error {
	if err := noRepeatedKeys(data); err != nil {
		return err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	for k := range top {
		if k != "exceptions" {
			return fmt.Errorf("unknown field %q (the file holds \"exceptions\" alone)", k)
		}
	}
	list, ok := top["exceptions"]
	if !ok || string(bytes.TrimSpace(list)) == "null" {
		return fmt.Errorf("no \"exceptions\" array")
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(list, &entries); err != nil {
		return err
	}
	for i, e := range entries {
		for k, v := range e {
			if k != "rule" && k != "topics" && k != "reason" {
				return fmt.Errorf("exceptions[%d]: unknown field %q (rule, topics and reason are known)", i, k)
			}
			// encoding/json reads null as "": a null topics would cover
			// every topic.
			if string(bytes.TrimSpace(v)) == "null" {
				return fmt.Errorf("exceptions[%d]: %s is null (leave the field out, or give a string)", i, k)
			}
		}
	}
	return nil
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

// noRepeatedKeys walks the document's tokens and refuses an object that
// names a field twice.
func noRepeatedKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		keys   map[string]bool
		key    bool // the next string token of an object is a key
	}
	var stack []*frame
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := t.(type) {
		case json.Delim:
			switch v {
			case '{':
				if top != nil && top.object {
					top.key = true
				}
				stack = append(stack, &frame{object: true, keys: map[string]bool{}, key: true})
				continue
			case '[':
				if top != nil && top.object {
					top.key = true
				}
				stack = append(stack, &frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
				continue
			}
		case string:
			if top != nil && top.object && top.key {
				if top.keys[v] {
					return fmt.Errorf("field %q given twice in one object, at byte position %d", v, dec.InputOffset())
				}
				top.keys[v] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.object {
			top.key = true
		}
	}
}
