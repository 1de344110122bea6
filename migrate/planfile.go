package migrate

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/kmeta/kmeta/model"
)

// The plan file is what 'migrate plan --write' saves and apply, brokers
// and configs read back: the Plan as JSON, identified by PlanFormat.

// WritePlan saves p as a plan file at path, atomically, as every file
// migrate writes; an existing file with other content is refused unless
// overwrite. The source is recorded with absolute paths when the plan was
// made with them (Options.SourceFile): apply, brokers and configs often
// run from another directory, or another host's copy of the file.
func WritePlan(path string, p *Plan, overwrite bool) error {
	if p.fileSource != "" && p.fileSource != p.Source {
		q := *p
		q.Source = p.fileSource
		p = &q
	}
	// Compact: at a million partitions an indented plan is three times
	// the size to write and read. json.Marshal's bytes, a topic at a time.
	var b bytes.Buffer
	if err := p.writeJSON(&b, false, true); err != nil {
		return err
	}
	_, err := putFile(path, b.Bytes(), overwrite, false)
	return err
}

// ReadPlan reads a whole plan file, with the per-partition assignment
// (what brokers checks broker dirs against).
func ReadPlan(path string) (*Plan, error) { return readPlan(path, true) }

// ReadPlanHeader reads a plan file without its topics: the per-partition
// assignment (most of the file at scale) is skipped, not decoded. Replan
// takes the topics from the source and needs only the header to check
// against; configs needs only the controllers and the quorum.
func ReadPlanHeader(path string) (*Plan, error) { return readPlan(path, false) }

// skipJSON decodes nothing: the decoder only finds where the value ends.
type skipJSON struct{}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

func readPlan(path string, topics bool) (*Plan, error) {
	b, err := model.ReadInput(path, model.InputPlan)
	if err != nil {
		return nil, err
	}
	var p Plan
	if topics {
		err = json.Unmarshal(b, &p)
	} else {
		err = json.Unmarshal(b, &struct {
			*Plan
			Topics skipJSON `json:"topics"`
		}{Plan: &p})
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrBadInput, err)
	}
	if p.Format != PlanFormat {
		return nil, fmt.Errorf("%s: %w: format %q, want %q", path, ErrBadInput, p.Format, PlanFormat)
	}
	return &p, nil
}
