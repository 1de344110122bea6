package records

var AppendUUID = appendUUID
