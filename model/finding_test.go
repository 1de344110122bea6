package model

import (
	"slices"
	"testing"
)

func TestSortFindingsOneOrder(t *testing.T) {
	loc := func(f string, p int64) *Location { return &Location{File: f, Position: p, Offset: -1} }
	want := []Finding{
		{Code: "b", Severity: SevError, Class: "log", Where: loc("a", 1)},
		{Code: "b", Severity: SevError, Class: "log", Where: loc("a", 9)},
		{Code: "a", Severity: SevError, Class: "topics", Entity: "topic x"},
		{Code: "a", Severity: SevWarning, Class: "log"},
		{Code: "z", Severity: SevInfo},
	}
	got := slices.Clone(want)
	slices.Reverse(got)
	SortFindings(got)
	if !slices.EqualFunc(got, want, func(a, b Finding) bool { return CompareFindings(a, b) == 0 }) {
		t.Fatalf("order:\n%v\nwant\n%v", got, want)
	}
}

func TestPartialWarnings(t *testing.T) {
	img := NewImage()
	img.Warn(WarnTornTail, nil, "torn tail")
	if img.IsPartial() {
		t.Fatal("a torn tail alone is not partial: Kafka never committed those bytes")
	}
	img.Warn(WarnReplayStopped, &Location{File: "x.log", Position: 61, Offset: 5}, "stopped")
	if !img.IsPartial() {
		t.Fatal("replay stopped must make the view partial")
	}
	if got := img.Warnings[1].String(); got != "warning replay-stopped (x.log, position 61, offset 5): stopped" {
		t.Fatalf("String() = %q", got)
	}
}
