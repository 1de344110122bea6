package report

import (
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/model"
)

// report's table of checks: Kafka's own answer to a feature change, which
// the report adds to kmeta's verdict.

var checks = model.Checks{
	{
		Code: KindKafkaRefused, Room: "report", Class: features.Class, Severity: model.SevError,
		Title:    "Kafka refused the feature change (its validate-only or real UpdateFeatures answer)",
		Meaning:  "kmeta's verdict allowed the change but the controller refused it: its error and message are the finding's. With --dry-run, or before the real request, a validate-only refusal means nothing was written.",
		Fix:      "read Kafka's message; kmeta features check and describe show the levels each node supports",
		Commands: []string{"features disable", "features downgrade", "features upgrade"},
	},
}

// Checks is report's table.
func Checks() model.Checks { return checks }
