package migrate

import (
	"bufio"
	"io"

	"github.com/kmeta/kmeta/jsonstream"
)

// A plan's document is mostly its topics (at a million partitions 36 MB
// compact, 130 MB indented): encoding/json built it whole, and the
// indented form twice more over. writeJSON writes the same bytes with
// the topics encoded one at a time (package jsonstream).

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
	q := *p
	q.Topics = nil
	return jsonstream.Write(w, &q, "topics", p.Topics, indent, escapeHTML)
}
