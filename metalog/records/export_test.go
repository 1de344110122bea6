package records

// validMetadata is ValidMetadata under the name the internal tests use.
var validMetadata = ValidMetadata

var AppendUUID = appendUUID
