package migrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// A plan's document is mostly its topics (at a million partitions 36 MB
// compact, 130 MB indented): encoding/json built it whole, and the
// indented form twice more over. writeJSON writes the same bytes with
// the topics encoded one at a time: the rest of the plan is encoded
// with the topics left out (null), and the topics go where that null is.

// WriteJSONIndented writes p as printer.WriteJSON would (an encoding/json
// Encoder, two-space indent, HTML not escaped, a final newline), with
// its topics encoded one at a time.
func (p *Plan) WriteJSONIndented(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := p.writeJSON(bw, true, false); err != nil {
		return err
	}
	return bw.Flush()
}

// writeJSON writes p as encoding/json would: indented by two spaces or
// compact, with HTML escaped or not, and a final newline.
func (p *Plan) writeJSON(w io.Writer, indent, escapeHTML bool) error {
	enc := func(w io.Writer, prefix string) *json.Encoder {
		e := json.NewEncoder(w)
		e.SetEscapeHTML(escapeHTML)
		if indent {
			e.SetIndent(prefix, "  ")
		}
		return e
	}
	q := *p
	q.Topics = nil
	var head bytes.Buffer
	if err := enc(&head, "").Encode(&q); err != nil {
		return err
	}
	key := []byte(`,"topics":null`)
	if indent {
		key = []byte(",\n  \"topics\": null")
	}
	// The key is the plan's own: a string value holding it would show
	// its quotes escaped.
	at := bytes.Index(head.Bytes(), key)
	if at < 0 {
		return errors.New("migrate: the plan's topics are not where its JSON puts them")
	}
	at += len(key) - len("null")
	if _, err := w.Write(head.Bytes()[:at]); err != nil {
		return err
	}
	if err := writeTopics(w, p.Topics, indent, enc); err != nil {
		return err
	}
	_, err := w.Write(head.Bytes()[at+len("null"):])
	return err
}

// writeTopics writes the topics array as encoding/json writes it inside
// the plan (one level down when indented).
func writeTopics(w io.Writer, topics []PlanTopic, indent bool, enc func(io.Writer, string) *json.Encoder) error {
	switch {
	case topics == nil:
		_, err := io.WriteString(w, "null")
		return err
	case len(topics) == 0:
		_, err := io.WriteString(w, "[]")
		return err
	}
	sep, first, last := ",", "[", "]"
	if indent {
		sep, first, last = ",\n    ", "[\n    ", "\n  ]"
	}
	var buf bytes.Buffer
	e := enc(&buf, "    ")
	if _, err := io.WriteString(w, first); err != nil {
		return err
	}
	for i := range topics {
		buf.Reset()
		if err := e.Encode(&topics[i]); err != nil {
			return err
		}
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if i > 0 {
			if _, err := io.WriteString(w, sep); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, last)
	return err
}
