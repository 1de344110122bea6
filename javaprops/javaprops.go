package javaprops

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kmeta/kmeta/model"
)

// ErrInvalid: the text is not a java.util.Properties file Java would load
// (a malformed \uXXXX escape), or holds binary data.
var ErrInvalid = errors.New("not a valid Java properties file")

// SyntaxError is a line Properties.load refuses. It names the line and
// never quotes it: a value may be a secret. It unwraps to ErrInvalid.
type SyntaxError struct {
	// Line is the 1-based line the logical line starts at.
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }
func (e *SyntaxError) Unwrap() error { return ErrInvalid }

// Input is the kind of a java.util.Properties file kmeta reads: a node's
// server.properties, a client's client.properties.
var Input = model.InputKind{Name: "Java properties file", Max: 1 << 20}

// Parse parses the java.util.Properties text format: '#' and '!'
// comments, '=', ':' or whitespace separators, backslash escapes
// (including \uXXXX, where a surrogate pair of escapes is one code point)
// and continuation lines. Later keys win, as in Java. Bytes are read as
// ISO-8859-1, as Properties.load(InputStream) reads them. An error is a
// *SyntaxError.
func Parse(data []byte) (map[string]string, error) {
	m, _, err := ParseLines(data)
	return m, err
}

// Read reads and parses a java.util.Properties file (a broker's
// server.properties, a client.properties): a regular file of at most
// Input.Max bytes, and text (binary data would read as keys of garbage).
// A refusal names the file, and the line where the parse failed; it never
// quotes a value, which may be a secret. It unwraps to ErrInvalid, or to
// model.ReadInput's errors when the file cannot be read.
func Read(path string) (map[string]string, error) {
	b, err := model.ReadInput(path, Input)
	if err != nil {
		return nil, err
	}
	if Binary(b) {
		return nil, &readError{fmt.Sprintf("%s: binary data, not a Java properties file", path)}
	}
	m, err := Parse(b)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, &readError{fmt.Sprintf("%s: line %d: %s: %s", path, se.Line, ErrInvalid, se.Msg)}
		}
		return nil, &readError{fmt.Sprintf("%s: %s: %v", path, ErrInvalid, err)}
	}
	return m, nil
}

// readError is Read's refusal of a file: its own message, unwrapping to
// ErrInvalid.
type readError struct{ msg string }

func (e *readError) Error() string { return e.msg }
func (e *readError) Unwrap() error { return ErrInvalid }

// ParseLines is Parse that also returns the 1-based line each key was
// read from (the first physical line of a continued one), for readers that
// place their own errors at a key (metalog's meta.properties). It is
// linear in the input: a logical line is assembled once, whatever the
// number of continuation lines.
func ParseLines(data []byte) (map[string]string, map[string]int, error) {
	out := map[string]string{}
	lines := map[string]int{}
	var buf []byte
	lineNo := 0
	for rest := data; len(rest) > 0 || lineNo == 0; {
		var line []byte
		line, rest = nextLine(rest)
		lineNo++
		start := lineNo
		l := trimLeftProps(line)
		if len(l) == 0 || l[0] == '#' || l[0] == '!' {
			if len(rest) == 0 {
				break
			}
			continue
		}
		buf = append(buf[:0], l...)
		// An odd number of trailing backslashes continues the line.
		for trailingBackslashes(buf)%2 == 1 && len(rest) > 0 {
			buf = buf[:len(buf)-1]
			line, rest = nextLine(rest)
			lineNo++
			buf = append(buf, trimLeftProps(line)...)
		}
		key, val := splitProperty(latin1(buf))
		k, err := unescapeProperty(key)
		if err != nil {
			return nil, nil, &SyntaxError{Line: start, Msg: err.Error()}
		}
		v, err := unescapeProperty(val)
		if err != nil {
			return nil, nil, &SyntaxError{Line: start, Msg: err.Error()}
		}
		out[k] = v
		lines[k] = start
		if len(rest) == 0 {
			break
		}
	}
	return out, lines, nil
}

// nextLine splits off one line, ending at \n, \r\n or \r as Java's
// LineReader does.
func nextLine(d []byte) (line, rest []byte) {
	for i := 0; i < len(d); i++ {
		switch d[i] {
		case '\n':
			return d[:i], d[i+1:]
		case '\r':
			if i+1 < len(d) && d[i+1] == '\n' {
				return d[:i], d[i+2:]
			}
			return d[:i], d[i+1:]
		}
	}
	return d, nil
}

func trimLeftProps(b []byte) []byte {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\f') {
		i++
	}
	return b[i:]
}

// latin1 decodes ISO-8859-1 bytes; ASCII (all Kafka writes) is unchanged.
func latin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

func trailingBackslashes(s []byte) int {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n
}

// splitProperty splits at the first unescaped '=', ':' or whitespace,
// skipping the separator and whitespace around it.
func splitProperty(line string) (string, string) {
	i := 0
	for ; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
	}
	if i >= len(line) {
		return line, ""
	}
	key := line[:i]
	rest := strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	} else if line[i] == '=' || line[i] == ':' {
		rest = strings.TrimLeft(line[i+1:], " \t\f")
	}
	return key, rest
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			// The errors never quote the escape: the value may be a
			// secret.
			if i+4 >= len(s) {
				return "", fmt.Errorf("truncated \\u escape")
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("bad \\u escape (\\u takes four hex digits)")
			}
			i += 4
			// Java reads each escape as one UTF-16 char, so a high and a
			// low surrogate escape in a row are one code point. A lone
			// surrogate stays a char in Java; a Go string cannot hold
			// one, so it reads as U+FFFD.
			if utf16.IsSurrogate(rune(r)) && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if lo, err := strconv.ParseUint(s[i+3:i+7], 16, 16); err == nil {
					if pair := utf16.DecodeRune(rune(r), rune(lo)); pair != utf8.RuneError {
						b.WriteRune(pair)
						i += 6
						continue
					}
				}
			}
			b.WriteRune(rune(r))
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// Binary says whether data looks like binary rather than text: a NUL
// byte, or more than a tenth of control bytes other than blanks.
func Binary(data []byte) bool {
	ctl := 0
	for _, c := range data {
		switch {
		case c == 0:
			return true
		case c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f', c == 0x7f:
			ctl++
		}
	}
	return ctl*10 > len(data)
}

// Format renders a Java properties file: a comment, then
// key=value lines sorted by key, escaped as java.util.Properties reads
// them. Each line of the comment is written as a comment line, whichever
// of \n, \r\n or \r ends it: Java ends a comment at any of them, so a
// bare \r in a comment (a path the comment names may hold one) would
// otherwise start a line Java reads as a property.
func Format(comment string, props map[string]string) []byte {
	var b strings.Builder
	lines := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(comment)
	for _, l := range strings.Split(lines, "\n") {
		b.WriteString("# " + l + "\n")
	}
	for _, l := range Lines(props) {
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

// Lines are the property lines Format writes, without the comment and
// the line ends: "key=value", escaped, sorted by key. For a printed
// command that pipes a properties file to a Kafka tool (restore's
// kafka-configs --add-config-file /dev/stdin); each line is printable
// ASCII, so no shell or terminal sees a control character.
func Lines(props map[string]string) []string {
	out := make([]string, 0, len(props))
	for _, k := range slices.Sorted(maps.Keys(props)) {
		out = append(out, escapeProperty(k, true)+"="+escapeProperty(props[k], false))
	}
	return out
}

func escapeProperty(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' && (key || i == 0):
			b.WriteString(`\ `)
		case key && (r == '=' || r == ':' || r == '#' || r == '!'):
			b.WriteString(`\` + string(r))
		case !key && i == 0 && (r == '#' || r == '!'):
			b.WriteString(`\` + string(r))
		case r < 0x20 || r > 0x7e:
			// Kafka loads properties as ISO-8859-1: escape everything
			// else, beyond the BMP as a surrogate pair.
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04X\u%04X`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
