package kafkaread

import "github.com/kmeta/kmeta/model"

// kafkaread's table of checks: the warnings of a live image (class
// "live"), each naming a section the image leaves unreported (it is also
// in Image.NotReported, so nobody reads its emptiness as a fact).

// liveClass is the class of a live image's warnings.
const liveClass = "live"

var checks = model.Checks{
	{
		Code: WarnNotAuthorized, Room: "kafkaread", Class: liveClass, Severity: model.SevWarning,
		Title:    "the principal may not read a section of the live cluster: it is not reported",
		Meaning:  "The admin API denied a request (DescribeAcls, one topic's configs, ...): the section is marked not reported, so verify and lint leave it out rather than read its emptiness as a fact.",
		Fix:      "grant the principal Describe (and DescribeConfigs) on the cluster and its resources, or read the metadata log instead",
		Commands: model.CommandList(model.LiveViewCommands),
	},
	{
		Code: WarnNotAnswered, Room: "kafkaread", Class: liveClass, Severity: model.SevWarning,
		Title:    "the node asked does not answer a section of the live cluster: it is not reported",
		Meaning:  "An API the node's release lacks, a controller asked for what only brokers know, a broker that did not answer, delegation tokens over a connection without SASL: the section is marked not reported.",
		Fix:      "ask a broker of a newer release (--bootstrap-server), over SASL for delegation tokens",
		Commands: model.CommandList(model.LiveViewCommands),
	},
}

// Checks is kafkaread's table: the warnings of a live image.
func Checks() model.Checks { return checks }
