package records

// ValidMetadata exposes the validator's raw verdict (without the decoder
// fallback ValidateMetadata adds) to the external tests.
var ValidMetadata = validMetadata
var AppendUUID = appendUUID
