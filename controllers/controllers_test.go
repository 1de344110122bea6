package controllers

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// TestParse: what --controllers accepts, sorted by id, and the whole
// message of each refusal.
func TestParse(t *testing.T) {
	dir, _ := model.ParseUUID("q9L1qYxkSV6x3Yt4l2ZRoA")
	for _, tc := range []struct {
		in   string
		want []Spec
		err  string
	}{
		{in: "", want: nil},
		{in: "3001@ctl2:9094, 3000@ctl1:9093,", want: []Spec{{ID: 3000, Host: "ctl1", Port: 9093}, {ID: 3001, Host: "ctl2", Port: 9094}}},
		{in: "3000@ctl1:9093:q9L1qYxkSV6x3Yt4l2ZRoA", want: []Spec{{ID: 3000, Host: "ctl1", Port: 9093, DirectoryID: dir, DirectoryGiven: true}}},
		{in: "3000@[::1]:9093:q9L1qYxkSV6x3Yt4l2ZRoA", want: []Spec{{ID: 3000, Host: "::1", Port: 9093, DirectoryID: dir, DirectoryGiven: true}}},
		{in: "3000@ctl1:9093:AAAAAAAAAAAAAAAAAAAAAA", err: `controllers: bad input: controller "3000@ctl1:9093:AAAAAAAAAAAAAAAAAAAAAA": directory id "AAAAAAAAAAAAAAAAAAAAAA" is not a usable Kafka Uuid`},
		{in: "3000@ctl1:9093:nope", err: `controllers: bad input: controller "3000@ctl1:9093:nope": directory id "nope" is not a usable Kafka Uuid`},
		{in: "3000@ctl1", err: `controllers: bad input: controller "3000@ctl1": want ID@HOST:PORT or ID@HOST:PORT:DIRECTORY_ID`},
		{in: "-1@ctl1:9093", err: `controllers: bad input: controller "-1@ctl1:9093": want ID@HOST:PORT or ID@HOST:PORT:DIRECTORY_ID`},
		{in: "3000@ctl1:0", err: `controllers: bad input: controller "3000@ctl1:0": want ID@HOST:PORT or ID@HOST:PORT:DIRECTORY_ID`},
		{in: "3000@:9093", err: `controllers: bad input: controller "3000@:9093": want ID@HOST:PORT or ID@HOST:PORT:DIRECTORY_ID`},
		{in: "3000@a:1,3000@b:2", err: `controllers: bad input: controller id 3000 given twice`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !errors.Is(err, ErrBadSpec) {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("[%d] %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestSpellings: the three ways Kafka's settings and tools spell one
// voter set, and the dir kmeta writes a controller into.
func TestSpellings(t *testing.T) {
	cs, err := Parse("3000@ctl1:9093:q9L1qYxkSV6x3Yt4l2ZRoA,3001@::1:9094")
	if err == nil {
		t.Fatalf("an unbracketed IPv6 host parsed: %+v", cs)
	}
	cs, err = Parse("3000@ctl1:9093:q9L1qYxkSV6x3Yt4l2ZRoA,3001@[::1]:9094")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, got, want string }{
		{"Voters", Voters(cs), "3000@ctl1:9093,3001@[::1]:9094"},
		{"BootstrapServers", BootstrapServers(cs), "ctl1:9093,[::1]:9094"},
		{"Initial", Initial(cs), "3000@ctl1:9093:q9L1qYxkSV6x3Yt4l2ZRoA,3001@[::1]:9094:AAAAAAAAAAAAAAAAAAAAAA"},
		{"Dir", Dir("out", 3001), filepath.Join("out", "controller-3001")},
		{"Voters of none", Voters(nil), ""},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
}
