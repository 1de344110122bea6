package model

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Printable reports whether s prints as it is on a terminal: no control
// or format character (bidirectional overrides included), no white space
// but the blank, no invalid UTF-8 (nor U+FFFD, which stands for it). A
// source's names and values reach kmeta's output, and a hostile one can
// hold escape sequences: this is the one rule every place that prints
// them goes by (the printers' Clean, the readers' errors, restore's
// commands).
func Printable(s string) bool {
	for _, r := range s {
		if !PrintableRune(r) {
			return false
		}
	}
	return true
}

// PrintableRune is Printable for one rune.
func PrintableRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsPrint(r) || r == ' ')
}

// Shown is s as an error or a line may print it: as it is when
// Printable, else Go-quoted, every character it refuses escaped.
func Shown(s string) string {
	if Printable(s) {
		return s
	}
	return strconv.Quote(s)
}
