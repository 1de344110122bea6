// Package recdef parses kmeta's record definition language (see
// metalog/records/records.def). The record code generator and the test that
// checks the definitions against Kafka's JSON schemas both build on it, so
// there is one reading of the definitions.
package recdef

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxVersion stands for an open-ended range ("N+").
const MaxVersion = 32767

// Versions is an inclusive version range.
type Versions struct{ Lo, Hi int }

// Contains reports whether v is in the range.
func (r Versions) Contains(v int) bool { return r.Lo <= v && v <= r.Hi }

// Empty reports whether the range holds no version.
func (r Versions) Empty() bool { return r.Lo > r.Hi }

func (r Versions) String() string {
	switch {
	case r.Empty():
		return "none"
	case r.Hi == MaxVersion:
		return fmt.Sprintf("%d+", r.Lo)
	case r.Lo == r.Hi:
		return strconv.Itoa(r.Lo)
	}
	return fmt.Sprintf("%d-%d", r.Lo, r.Hi)
}

// ParseVersions parses "N", "N+", "N-M" or "none".
func ParseVersions(s string) (Versions, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "none":
		return Versions{1, 0}, nil
	case strings.HasSuffix(s, "+"):
		n, err := strconv.Atoi(strings.TrimSuffix(s, "+"))
		return Versions{n, MaxVersion}, err
	case strings.Contains(s, "-"):
		a, b, _ := strings.Cut(s, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil {
			return Versions{}, fmt.Errorf("bad version range %q", s)
		}
		return Versions{lo, hi}, nil
	}
	n, err := strconv.Atoi(s)
	return Versions{n, n}, err
}

// Kind says whether a message is a framed metadata record or a control record.
type Kind int

const (
	Metadata Kind = iota
	Control
)

// Message is one record definition.
type Message struct {
	Kind     Kind
	Key      int // apiKey for metadata records, control type for control records
	Name     string
	Versions Versions
	Fields   []*Field
	Line     int
}

// Field is one field of a message or nested struct.
type Field struct {
	Name     string
	Type     string // as written: "int32", "[]int32", "[]BrokerEndpoint", "KRaftVersionFeature"
	Versions Versions
	Nullable Versions // empty when never nullable
	Tagged   bool
	Tag      int
	Default  string // as written; "" when unspecified
	// Struct is the nested struct for struct and []struct types.
	Struct *Struct
	Line   int
}

// Struct is a nested struct type.
type Struct struct {
	Name   string
	Fields []*Field
}

// IsArray reports whether the field is an array.
func (f *Field) IsArray() bool { return strings.HasPrefix(f.Type, "[]") }

// ElemType is the element type of an array, or the type itself.
func (f *Field) ElemType() string { return strings.TrimPrefix(f.Type, "[]") }

// Primitive reports whether t names a primitive type.
func Primitive(t string) bool {
	switch t {
	case "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "string", "bytes", "uuid":
		return true
	}
	return false
}

// Parse reads definitions.
func Parse(r io.Reader) ([]*Message, error) {
	var (
		msgs []*Message
		cur  *Message
		// stack[i] is the field list at indent level i+1 (level 1 = message fields).
		stack   []*[]*Field
		structs map[string]*Struct
	)
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		raw := sc.Text()
		if i := strings.Index(raw, "#"); i >= 0 {
			raw = raw[:i]
		}
		if strings.TrimSpace(raw) == "" {
			continue
		}
		indent := len(raw) - len(strings.TrimLeft(raw, " "))
		words := strings.Fields(raw)
		if indent == 0 {
			if len(words) != 4 || (words[0] != "metadata" && words[0] != "control") {
				return nil, fmt.Errorf("line %d: want `metadata|control KEY Name Versions`", line)
			}
			key, err := strconv.Atoi(words[1])
			if err != nil {
				return nil, fmt.Errorf("line %d: bad key: %v", line, err)
			}
			vr, err := ParseVersions(words[3])
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			cur = &Message{Key: key, Name: words[2], Versions: vr, Line: line}
			if words[0] == "control" {
				cur.Kind = Control
			}
			msgs = append(msgs, cur)
			stack = []*[]*Field{&cur.Fields}
			structs = map[string]*Struct{}
			continue
		}
		if cur == nil || indent%2 != 0 {
			return nil, fmt.Errorf("line %d: field outside a message or odd indent", line)
		}
		level := indent / 2
		if level > len(stack) {
			return nil, fmt.Errorf("line %d: indented too deep", line)
		}
		stack = stack[:level]
		if len(words) < 2 {
			return nil, fmt.Errorf("line %d: want `Name type [attrs]`", line)
		}
		f := &Field{Name: words[0], Type: words[1], Versions: cur.Versions, Nullable: Versions{1, 0}, Line: line}
		for _, a := range words[2:] {
			switch {
			case strings.HasPrefix(a, "v"):
				vr, err := ParseVersions(a[1:])
				if err != nil {
					return nil, fmt.Errorf("line %d: %v", line, err)
				}
				f.Versions = vr
			case a == "nullable":
				f.Nullable = Versions{-1, -1} // resolved below to the field's versions
			case strings.HasPrefix(a, "nullable=v"):
				vr, err := ParseVersions(strings.TrimPrefix(a, "nullable=v"))
				if err != nil {
					return nil, fmt.Errorf("line %d: %v", line, err)
				}
				f.Nullable = vr
			case strings.HasPrefix(a, "tag="):
				n, err := strconv.Atoi(a[4:])
				if err != nil {
					return nil, fmt.Errorf("line %d: bad tag", line)
				}
				f.Tagged, f.Tag = true, n
			case strings.HasPrefix(a, "default="):
				f.Default = a[8:]
			default:
				return nil, fmt.Errorf("line %d: unknown attribute %q", line, a)
			}
		}
		if f.Nullable == (Versions{-1, -1}) {
			f.Nullable = f.Versions
		}
		// Versions are clamped to the message's valid range.
		if f.Versions.Hi > cur.Versions.Hi {
			f.Versions.Hi = cur.Versions.Hi
		}
		if f.Nullable.Hi > cur.Versions.Hi {
			f.Nullable.Hi = cur.Versions.Hi
		}
		*stack[len(stack)-1] = append(*stack[len(stack)-1], f)
		if et := f.ElemType(); !Primitive(et) {
			st := structs[et]
			if st == nil {
				st = &Struct{Name: et}
				structs[et] = st
			}
			f.Struct = st
			stack = append(stack, &st.Fields)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if err := validate(m.Name, m.Fields); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

func validate(where string, fields []*Field) error {
	tags := map[int]string{}
	for _, f := range fields {
		if f.Struct != nil && len(f.Struct.Fields) == 0 {
			return fmt.Errorf("line %d: %s.%s: struct %s has no fields", f.Line, where, f.Name, f.Struct.Name)
		}
		if f.Tagged {
			if o, dup := tags[f.Tag]; dup {
				return fmt.Errorf("line %d: %s: tag %d used by %s and %s", f.Line, where, f.Tag, o, f.Name)
			}
			tags[f.Tag] = f.Name
		}
		if f.Struct != nil {
			if err := validate(where+"."+f.Name, f.Struct.Fields); err != nil {
				return err
			}
		}
	}
	return nil
}
