package mutate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

type textEdit struct {
	name  string
	apply func(r *rand.Rand, b []byte) ([]byte, string, bool)
}

func textOps(edits []textEdit) []op {
	ops := byteOps()
	ops = append(ops, op{name: "nul-byte", apply: func(r *rand.Rand, b []byte) ([]byte, string, bool) {
		p := r.IntN(len(b) + 1)
		return splice(b, p, p, []byte{0}), fmt.Sprintf("insert a NUL byte at %d", p), true
	}})
	for _, e := range edits {
		ops = append(ops, op{name: e.name, apply: e.apply})
	}
	return ops
}

// uuidOK is Kafka's Uuid string form: 22 chars of unpadded base64url, 16 bytes.
// uuidOK is Kafka's Uuid.fromString: URL-safe base64 of 16 bytes, read
// with Java's decoder, which does not insist that the unused low bits of
// the last character be zero.
func uuidOK(s string) bool {
	d, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(d) == 16 && len(s) == 22
}

func randUUID(r *rand.Rand) string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// ---- quorum-state: one JSON object ----

type kv struct {
	k string
	v json.RawMessage
}

func parseObj(b []byte) ([]kv, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []kv
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, kv{t.(string), v})
	}
	return out, nil
}

func encObj(kvs []kv, sep string) []byte {
	var w bytes.Buffer
	w.WriteString("{" + strings.TrimSpace(sep))
	for i, e := range kvs {
		if i > 0 {
			w.WriteString("," + sep)
		}
		k, _ := json.Marshal(e.k)
		w.Write(k)
		w.WriteString(":")
		w.Write(e.v)
	}
	w.WriteString(strings.TrimSpace(sep) + "}")
	return w.Bytes()
}

func objEdit(name string, f func(r *rand.Rand, kvs []kv) ([]kv, string, bool)) textEdit {
	return textEdit{name, func(r *rand.Rand, b []byte) ([]byte, string, bool) {
		kvs, err := parseObj(b)
		if err != nil || len(kvs) == 0 {
			return nil, "", false
		}
		out, desc, ok := f(r, kvs)
		if !ok {
			return nil, "", false
		}
		return encObj(out, ""), desc, true
	}}
}

var quorumEdits = []textEdit{
	objEdit("remove-key", func(r *rand.Rand, kvs []kv) ([]kv, string, bool) {
		i := r.IntN(len(kvs))
		return slices.Delete(kvs, i, i+1), fmt.Sprintf("remove key %q", kvs[i].k), true
	}),
	objEdit("change-value", func(r *rand.Rand, kvs []kv) ([]kv, string, bool) {
		i := r.IntN(len(kvs))
		old := string(kvs[i].v)
		var nv string
		if n, err := strconv.ParseInt(old, 10, 64); err == nil {
			nv = pick(r, strconv.FormatInt(n+1, 10), strconv.FormatInt(n-1, 10), "-2", "2147483648", "1e3", "1.5", `"`+old+`"`, "null", "true", "99999999999999999999")
		} else if strings.HasPrefix(old, `"`) {
			nv = pick(r, `""`, `"AAAA"`, `"!!!!!!!!!!!!!!!!!!!!!!"`, `"`+randUUID(r)+`"`, `"`+randUUID(r)[:21]+`"`, "null", "0", `"A\u0000AAAAAAAAAAAAAAAAAAAAA"`)
		} else {
			nv = pick(r, "[]", "null", `[{"voterId":"x"}]`, `[{}]`, `[{"voterId":3001},{"voterId":3001}]`, `{}`)
		}
		desc := fmt.Sprintf("%s: %s -> %s", kvs[i].k, old, nv)
		kvs[i].v = json.RawMessage(nv)
		return kvs, desc, true
	}),
	objEdit("unknown-key", func(r *rand.Rand, kvs []kv) ([]kv, string, bool) {
		return append(kvs, kv{"kmetaExtra", json.RawMessage(`1`)}), `add an unknown key "kmetaExtra"`, true
	}),
	objEdit("duplicate-key", func(r *rand.Rand, kvs []kv) ([]kv, string, bool) {
		i := r.IntN(len(kvs))
		return append(kvs, kv{kvs[i].k, json.RawMessage(`7`)}), fmt.Sprintf("repeat key %q with value 7 at the end", kvs[i].k), true
	}),
	textEdit{"reformat", func(r *rand.Rand, b []byte) ([]byte, string, bool) {
		kvs, err := parseObj(b)
		if err != nil {
			return nil, "", false
		}
		return append(encObj(kvs, "\n  "), '\n'), "pretty-print the same object", true
	}},
}

func validQuorumState(orig, mut []byte, _ Context) error {
	if !utf8.Valid(mut) {
		return errors.New("not UTF-8")
	}
	var o, m map[string]any
	if err := json.Unmarshal(orig, &o); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(mut))
	if err := dec.Decode(&m); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("bytes after the object")
	}
	// A repeated key is not damage: Kafka reads quorum-state with
	// Jackson's ObjectMapper.readTree, whose default keeps the last
	// value, as encoding/json does; the mutant is another valid input.
	for k, ov := range o {
		mv, ok := m[k]
		if !ok {
			return fmt.Errorf("key %q missing", k)
		}
		if reflect.TypeOf(ov) != reflect.TypeOf(mv) {
			return fmt.Errorf("key %q: %T, not %T", k, mv, ov)
		}
		switch v := mv.(type) {
		case float64:
			if v != float64(int32(v)) || (k == "data_version" && v != ov.(float64)) {
				return fmt.Errorf("key %q: %v", k, v)
			}
		case string:
			if strings.Contains(k, "DirectoryId") && !uuidOK(v) {
				return fmt.Errorf("key %q: %q is not a Uuid", k, v)
			}
		case []any:
			for _, e := range v {
				eo, ok := e.(map[string]any)
				if !ok {
					return fmt.Errorf("key %q: element %v", k, e)
				}
				if id, ok := eo["voterId"].(float64); !ok || id != float64(int32(id)) || len(eo) != 1 {
					return fmt.Errorf("key %q: voter %v", k, e)
				}
			}
		}
	}
	return nil
}

// ---- meta.properties: Java properties ----

// parseProps reads Java's properties format: comment lines start with # or
// !, a line ending in an odd number of backslashes continues on the next
// (whose leading blanks are dropped), the key ends at the first unescaped
// '=', ':' or blank, and escapes \t \n \r \f \uXXXX and \x (= x) apply.
func parseProps(b []byte) (map[string]string, error) {
	out := map[string]string{}
	lines := strings.FieldsFunc(string(b), func(c rune) bool { return c == '\n' || c == '\r' })
	for i := 0; i < len(lines); i++ {
		l := strings.TrimLeft(lines[i], " \t\f")
		if l == "" || l[0] == '#' || l[0] == '!' {
			continue
		}
		for {
			n := len(l) - len(strings.TrimRight(l, `\`))
			if n%2 == 0 || i+1 >= len(lines) {
				if n%2 == 1 {
					l = l[:len(l)-1]
				}
				break
			}
			i++
			l = l[:len(l)-1] + strings.TrimLeft(lines[i], " \t\f")
		}
		k, v, err := splitProp(l)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

func splitProp(l string) (string, string, error) {
	var key strings.Builder
	i := 0
	for ; i < len(l); i++ {
		c := l[i]
		if c == '\\' && i+1 < len(l) {
			i++
			key.WriteByte(unesc(l[i]))
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		key.WriteByte(c)
	}
	rest := strings.TrimLeft(l[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	var v strings.Builder
	for j := 0; j < len(rest); j++ {
		c := rest[j]
		if c != '\\' || j+1 >= len(rest) {
			v.WriteByte(c)
			continue
		}
		j++
		if rest[j] == 'u' {
			if j+5 > len(rest) {
				return "", "", errors.New("malformed \\uxxxx")
			}
			n, err := strconv.ParseUint(rest[j+1:j+5], 16, 16)
			if err != nil {
				return "", "", errors.New("malformed \\uxxxx")
			}
			v.WriteRune(rune(n))
			j += 4
			continue
		}
		v.WriteByte(unesc(rest[j]))
	}
	return key.String(), v.String(), nil
}

func unesc(c byte) byte {
	switch c {
	case 't':
		return '\t'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 'f':
		return '\f'
	}
	return c
}

func lineEdit(name string, f func(r *rand.Rand, lines []string) ([]string, string, bool)) textEdit {
	return textEdit{name, func(r *rand.Rand, b []byte) ([]byte, string, bool) {
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		out, desc, ok := f(r, lines)
		if !ok {
			return nil, "", false
		}
		return []byte(strings.Join(out, "\n") + "\n"), desc, true
	}}
}

// propLine picks a key=value line.
func propLine(r *rand.Rand, lines []string) (int, string, string, bool) {
	var idx []int
	for i, l := range lines {
		if l != "" && l[0] != '#' && strings.Contains(l, "=") {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return 0, "", "", false
	}
	i := idx[r.IntN(len(idx))]
	k, v, _ := strings.Cut(lines[i], "=")
	return i, k, v, true
}

var propsEdits = []textEdit{
	lineEdit("remove-key", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		i, k, _, ok := propLine(r, lines)
		return slices.Delete(lines, i, i+1), fmt.Sprintf("remove %s (line %d)", k, i+1), ok
	}),
	lineEdit("change-value", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		i, k, v, ok := propLine(r, lines)
		if !ok {
			return nil, "", false
		}
		var nv string
		switch k {
		case "cluster.id", "directory.id":
			nv = pick(r, randUUID(r), v[:len(v)-1], v+" ", v+"\x00", "", v+"A", strings.ToUpper(v), "0000000000000000000000")
		case "version":
			nv = pick(r, "0", "2", "-1", "x", "1 ", "")
		default:
			nv = pick(r, "3001", "-1", "x", "", "1e3", "2147483648", v+" ")
		}
		lines[i] = k + "=" + nv
		return lines, fmt.Sprintf("line %d: %s=%q -> %q", i+1, k, v, nv), true
	}),
	lineEdit("comment", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		i := r.IntN(len(lines) + 1)
		c := pick(r, "# a comment", "! a comment", "", "   ")
		return slices.Insert(lines, i, c), fmt.Sprintf("insert line %q before line %d", c, i+1), true
	}),
	lineEdit("continuation", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		i, k, v, ok := propLine(r, lines)
		if !ok || len(v) < 2 {
			return nil, "", false
		}
		c := 1 + r.IntN(len(v)-1)
		lines[i] = k + "=" + v[:c] + `\`
		return slices.Insert(lines, i+1, "    "+v[c:]), fmt.Sprintf("line %d: continue %s's value on the next line after %d chars", i+1, k, c), true
	}),
	lineEdit("separator", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		i, k, v, ok := propLine(r, lines)
		s := pick(r, " = ", ":", " ", "\t=\t")
		lines[i] = "  " + k + s + v
		return lines, fmt.Sprintf("line %d: %s written with separator %q", i+1, k, s), ok
	}),
	lineEdit("duplicate-key", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		_, k, v, ok := propLine(r, lines)
		nv := pick(r, v, "7", randUUID(r))
		return append(lines, k+"="+nv), fmt.Sprintf("repeat %s=%q at the end", k, nv), ok
	}),
	lineEdit("unknown-key", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		return append(lines, "kmeta.extra=1"), "add an unknown key kmeta.extra", true
	}),
	lineEdit("reorder", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		return lines, "shuffle the lines", true
	}),
	lineEdit("unicode-escape", func(r *rand.Rand, lines []string) ([]string, string, bool) {
		i, k, v, ok := propLine(r, lines)
		if !ok || v == "" {
			return nil, "", false
		}
		lines[i] = k + "=" + fmt.Sprintf(`\u%04x`, v[0]) + v[1:]
		return lines, fmt.Sprintf("line %d: %s's first char as a \\u escape", i+1, k), true
	}),
	textEdit{"crlf", func(r *rand.Rand, b []byte) ([]byte, string, bool) {
		return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")), "CRLF line ends", true
	}},
}

func validProps(orig, mut []byte, _ Context) error {
	o, err := parseProps(orig)
	if err != nil {
		return err
	}
	m, err := parseProps(mut)
	if err != nil {
		return err
	}
	for k := range o {
		if _, ok := m[k]; !ok {
			return fmt.Errorf("%s missing", k)
		}
	}
	if m["version"] != o["version"] {
		return fmt.Errorf("version %q", m["version"])
	}
	if n, err := strconv.ParseInt(m["node.id"], 10, 32); err != nil || n < 0 {
		return fmt.Errorf("node.id %q", m["node.id"])
	}
	for _, k := range []string{"cluster.id", "directory.id"} {
		if v, ok := m[k]; ok && !uuidOK(v) {
			return fmt.Errorf("%s %q is not a Uuid", k, v)
		}
	}
	return nil
}

// ---- kmeta zk dump: one JSON document with a znodes array ----

func decodeAny(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("bytes after the document")
	}
	return v, nil
}

func dumpEdit(name string, f func(r *rand.Rand, top map[string]any, zs []any) (string, bool)) textEdit {
	return textEdit{name, func(r *rand.Rand, b []byte) ([]byte, string, bool) {
		v, err := decodeAny(b)
		if err != nil {
			return nil, "", false
		}
		top, _ := v.(map[string]any)
		zs, _ := top["znodes"].([]any)
		if len(zs) < 2 {
			return nil, "", false
		}
		desc, ok := f(r, top, zs)
		if !ok {
			return nil, "", false
		}
		out, err := json.MarshalIndent(top, "", "  ")
		if err != nil {
			return nil, "", false
		}
		return append(out, '\n'), desc, true
	}}
}

// setData gives a znode new data, keeping text and decoded in step with it.
func setData(z map[string]any, d []byte) {
	z["data"] = base64.StdEncoding.EncodeToString(d)
	delete(z, "text")
	delete(z, "decoded")
	if utf8.Valid(d) {
		z["text"] = string(d)
		if v, err := decodeAny(d); err == nil {
			z["decoded"] = v
		}
	}
	if st, ok := z["stat"].(map[string]any); ok {
		st["dataLength"] = json.Number(strconv.Itoa(len(d)))
	}
}

func withData(r *rand.Rand, zs []any, prefix string) (map[string]any, []byte, bool) {
	for t := 0; t < 64; t++ {
		z, _ := zs[r.IntN(len(zs))].(map[string]any)
		s, _ := z["data"].(string)
		p, _ := z["path"].(string)
		if s == "" || !strings.HasPrefix(p, prefix) {
			continue
		}
		d, err := base64.StdEncoding.DecodeString(s)
		if err == nil && len(d) > 0 {
			return z, d, true
		}
	}
	return nil, nil, false
}

var dumpEdits = []textEdit{
	dumpEdit("drop-znode", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		i := 1 + r.IntN(len(zs)-1)
		p := zs[i].(map[string]any)["path"] // before Delete shifts the rest
		top["znodes"] = slices.Delete(zs, i, i+1)
		return fmt.Sprintf("drop znode %v", p), true
	}),
	dumpEdit("duplicate-znode", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		i := r.IntN(len(zs))
		top["znodes"] = slices.Insert(zs, i, zs[i])
		return fmt.Sprintf("duplicate znode %v", zs[i].(map[string]any)["path"]), true
	}),
	dumpEdit("swap-znodes", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		i, j := r.IntN(len(zs)), r.IntN(len(zs))
		zs[i], zs[j] = zs[j], zs[i]
		return fmt.Sprintf("swap znodes %d and %d", i, j), i != j
	}),
	dumpEdit("data-consistent", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		z, d, ok := withData(r, zs, "")
		if !ok {
			return "", false
		}
		p := r.IntN(len(d))
		d[p] ^= 1 << r.IntN(7)
		setData(z, d)
		return fmt.Sprintf("znode %v: data byte %d changed (text, decoded, dataLength kept in step)", z["path"], p), true
	}),
	dumpEdit("data-only", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		z, d, ok := withData(r, zs, "")
		if !ok {
			return "", false
		}
		p := r.IntN(len(d))
		d[p] ^= 1 << r.IntN(7)
		z["data"] = base64.StdEncoding.EncodeToString(d)
		return fmt.Sprintf("znode %v: data byte %d changed, text and decoded left stale", z["path"], p), true
	}),
	dumpEdit("scram-mechanism", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		z, d, ok := withData(r, zs, "/config/users/")
		if !ok || !bytes.Contains(d, []byte("SCRAM-SHA-")) {
			return "", false
		}
		nm := pick(r, "SCRAM-SHA-999", "scram-sha-256", "SCRAM-SHA-256 ", "PLAIN")
		setData(z, bytes.Replace(d, []byte("SCRAM-SHA-"+pick(r, "256", "512")), []byte(nm), 1))
		return fmt.Sprintf("znode %v: a SCRAM mechanism renamed %q (a credential Kafka cannot read)", z["path"], nm), true
	}),
	dumpEdit("scram-field", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		z, d, ok := withData(r, zs, "/config/users/")
		if !ok || !bytes.Contains(d, []byte("salt=")) {
			return "", false
		}
		from := pick(r, "salt=", "stored_key=", "server_key=", "iterations=", ",")
		to := pick(r, "", "salty=", "=", ",,")
		setData(z, bytes.Replace(d, []byte(from), []byte(to), 1))
		return fmt.Sprintf("znode %v: %q -> %q in a SCRAM credential", z["path"], from, to), true
	}),
	dumpEdit("bad-base64", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		z, _, ok := withData(r, zs, "")
		if !ok {
			return "", false
		}
		z["data"] = pick(r, "!!!", "eyJ", "", "e30=====")
		return fmt.Sprintf("znode %v: data %q", z["path"], z["data"]), true
	}),
	dumpEdit("stat-edit", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		z, _ := zs[r.IntN(len(zs))].(map[string]any)
		st, ok := z["stat"].(map[string]any)
		if !ok || len(st) == 0 {
			return "", false
		}
		keys := make([]string, 0, len(st))
		for k := range st {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		k := keys[r.IntN(len(keys))]
		old := st[k]
		st[k] = pick[any](r, json.Number("1"), json.Number("-1"), "x", nil, json.Number("1.5"), json.Number("9223372036854775808"))
		return fmt.Sprintf("znode %v: stat.%s %v -> %v", z["path"], k, old, st[k]), true
	}),
	dumpEdit("remove-field", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		if r.IntN(3) == 0 {
			k := pick(r, "format", "version", "chroot", "znodes", "maxZxid", "source")
			delete(top, k)
			return "remove top-level " + k, true
		}
		z, _ := zs[r.IntN(len(zs))].(map[string]any)
		k := pick(r, "path", "stat", "data", "acl")
		delete(z, k)
		return fmt.Sprintf("znode %v: remove %s", z["path"], k), true
	}),
	dumpEdit("top-value", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		k := pick(r, "format", "version", "chroot", "maxZxid", "changed")
		old := top[k]
		top[k] = pick[any](r, "x", json.Number("2"), nil, "/other", true, json.Number("-1"))
		return fmt.Sprintf("top-level %s %v -> %v", k, old, top[k]), true
	}),
	dumpEdit("path-edit", func(r *rand.Rand, top map[string]any, zs []any) (string, bool) {
		z, _ := zs[1+r.IntN(len(zs)-1)].(map[string]any)
		p, _ := z["path"].(string)
		np := pick(r, p+"/", p+"\x00x", strings.TrimPrefix(p, "/"), p+"/../x", strings.Replace(p, "/", "//", 1), p+"\xff", p+"-x")
		z["path"] = np
		return fmt.Sprintf("path %q -> %q", p, np), true
	}),
}

func validDump(orig, mut []byte, _ Context) error {
	if !utf8.Valid(mut) {
		return errors.New("not UTF-8")
	}
	ov, err := decodeAny(orig)
	if err != nil {
		return err
	}
	mv, err := decodeAny(mut)
	if err != nil {
		return err
	}
	o, _ := ov.(map[string]any)
	m, ok := mv.(map[string]any)
	if !ok {
		return errors.New("not an object")
	}
	for k, v := range o {
		if k == "znodes" {
			continue
		}
		if !reflect.DeepEqual(m[k], v) && k != "source" {
			return fmt.Errorf("top-level %s: %v", k, m[k])
		}
	}
	zs, ok := m["znodes"].([]any)
	if !ok {
		return errors.New("znodes is not an array")
	}
	seen := map[string]bool{}
	numChildren := map[string]string{}
	for _, e := range zs {
		z, ok := e.(map[string]any)
		if !ok {
			return errors.New("a znode is not an object")
		}
		p, ok := z["path"].(string)
		if !ok || !strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) || (p != "/" && strings.HasSuffix(p, "/")) || strings.Contains(p, "//") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
			return fmt.Errorf("path %v", z["path"])
		}
		if seen[p] {
			return fmt.Errorf("path %s repeats", p)
		}
		seen[p] = true
		st, ok := z["stat"].(map[string]any)
		if !ok || len(st) != 11 {
			return fmt.Errorf("%s: stat %v", p, z["stat"])
		}
		for k, v := range st {
			n, ok := v.(json.Number)
			if _, err := strconv.ParseInt(string(n), 10, 64); !ok || err != nil {
				return fmt.Errorf("%s: stat.%s %v", p, k, v)
			}
		}
		var d []byte
		if s, ok := z["data"].(string); ok {
			if d, err = base64.StdEncoding.Strict().DecodeString(s); err != nil {
				return fmt.Errorf("%s: data: %v", p, err)
			}
			if n, _ := st["dataLength"].(json.Number); string(n) != strconv.Itoa(len(d)) {
				return fmt.Errorf("%s: dataLength %s, data %d bytes", p, n, len(d))
			}
		} else if _, present := z["data"]; !present || z["data"] != nil {
			return fmt.Errorf("%s: data %v", p, z["data"])
		}
		// text and decoded are views derived from data (zk dump writes them
		// for people, readers read data), so they are not checked here.
		_ = d
		n, _ := st["numChildren"].(json.Number)
		numChildren[p] = string(n)
	}
	kids := map[string]int{}
	for p := range seen {
		if p == "/" {
			continue
		}
		parent := p[:strings.LastIndexByte(p, '/')]
		if parent == "" {
			parent = "/"
		}
		if !seen[parent] {
			return fmt.Errorf("%s: parent %s missing", p, parent)
		}
		kids[parent]++
	}
	// The stat counts the children (the header, unchanged, records no
	// change of the tree while it was read that would excuse a
	// disagreement).
	for p, n := range numChildren {
		if n != strconv.Itoa(kids[p]) {
			return fmt.Errorf("%s: numChildren %s, %d children", p, n, kids[p])
		}
	}
	return nil
}
