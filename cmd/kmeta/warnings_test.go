package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/model"
)

// TestWarningQuotesOnlyTheMessage: a warning whose message (or place)
// holds bytes that are not UTF-8 keeps the "kmeta: warning: CODE: " form;
// only the message, and the place, are quoted.
func TestWarningQuotesOnlyTheMessage(t *testing.T) {
	var buf bytes.Buffer
	c := cli.NewContext(&cli.App{ErrWriter: &buf}, nil, nil)
	where := model.At("/data/version-2/log.\xfe", 16, -1)
	printWarnings(c, []model.Finding{
		{Code: model.WarnLenientDecode, Message: "znode /brokers/topics/a\xffb: not JSON"},
		{Code: model.WarnTornTail, Message: "a torn entry", Where: &where},
		{Code: model.WarnChrootDetected, Message: "chroot /kafka detected"},
	})
	out := buf.String()
	if !utf8.ValidString(out) {
		t.Errorf("output is not UTF-8: %q", out)
	}
	want := []string{
		`kmeta: warning: lenient-decode: "znode /brokers/topics/a\xffb: not JSON"`,
		`kmeta: warning: torn-tail: a torn entry ("/data/version-2/log.\xfe, position 16")`,
		`kmeta: warning: chroot-detected: chroot /kafka detected`,
	}
	if got := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", out, strings.Join(want, "\n"))
	}
}
