package model

// RedactedView is Redacted without copying what redaction leaves alone:
// the topics and their partitions (nearly all of a large image, and free
// of secrets) are shared with the receiver, everything else is the deep,
// redacted copy Redacted makes. It is for read-only consumers such as the
// printers; use Redacted for a copy to modify.
func (img *Image) RedactedView() *Image {
	if img == nil {
		return nil
	}
	rest := *img
	rest.Topics = nil
	out := rest.Redacted()
	out.Topics = img.Topics
	return out
}
