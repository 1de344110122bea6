package online

import (
	"errors"

	"github.com/kmeta/kmeta/migrate"
)

// ErrBadInput is migrate's: a flag or file that cannot be used (exit 2).
var ErrBadInput = migrate.ErrBadInput

// ErrRefused: the phase's entry conditions do not hold, or no rollback is
// valid; the findings say which and how to fix them (exit 1).
var ErrRefused = errors.New("refused")
