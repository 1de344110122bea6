//go:build ignore

// testsummary reads `go test -json` on stdin (one run or several), prints each package's result
// line as `go test` would, the output of every failed test, and a last
// line "N passed, N failed, N skipped" (tests and subtests), after the ten
// slowest top-level tests (a real-Kafka test's wait for a JVM slot left
// out) so that the next slowdown is seen where it is.
// It exits 1 when a test or package failed, so `make test` fails as go
// test would.
//
//	go test -json ./... | go run scripts/testsummary.go
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// slotWait is the line kafkatest.Concurrently logs once a test has its
// JVM slot.
var slotWait = regexp.MustCompile(`kafkatest: waited ([0-9.]+)s for a JVM slot`)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	var passed, failed, skipped int
	var failedNames []string
	type timed struct {
		name    string
		elapsed float64
	}
	var tests []timed
	outputs := map[string]*strings.Builder{}
	waited := map[string]float64{}
	pkgOut := map[string]*strings.Builder{}
	badPkg := false
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			// Build errors and other non-JSON lines pass through.
			fmt.Println(string(line))
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			if e.Test == "" {
				b := pkgOut[e.Package]
				if b == nil {
					b = &strings.Builder{}
					pkgOut[e.Package] = b
				}
				b.WriteString(e.Output)
				continue
			}
			b := outputs[key]
			if b == nil {
				b = &strings.Builder{}
				outputs[key] = b
			}
			b.WriteString(e.Output)
			if m := slotWait.FindStringSubmatch(e.Output); m != nil {
				waited[key], _ = strconv.ParseFloat(m[1], 64)
			}
		case "pass", "fail", "skip":
			if e.Test == "" {
				status := map[string]string{"pass": "ok  ", "fail": "FAIL", "skip": "?   "}[e.Action]
				fmt.Printf("%s\t%s\t%.3fs\n", status, e.Package, e.Elapsed)
				if e.Action == "fail" {
					badPkg = true
					if b := pkgOut[e.Package]; b != nil {
						fmt.Print(b.String())
					}
				}
				// testsummary.sh may test a package again in a later run.
				delete(pkgOut, e.Package)
				continue
			}
			if !strings.Contains(e.Test, "/") && e.Action != "skip" {
				// A real-Kafka test's time waiting for a JVM slot is the
				// queue's, not its own.
				tests = append(tests, timed{strings.TrimPrefix(e.Package, "github.com/kmeta/kmeta/") + "." + e.Test, e.Elapsed - waited[key]})
			}
			switch e.Action {
			case "pass":
				passed++
			case "skip":
				skipped++
			case "fail":
				failed++
				failedNames = append(failedNames, e.Package+"."+e.Test)
				if b := outputs[key]; b != nil {
					fmt.Print(b.String())
				}
			}
			delete(outputs, key)
		}
	}
	if len(failedNames) > 0 {
		slices.Sort(failedNames)
		fmt.Println("failed:")
		for _, n := range failedNames {
			fmt.Println("  " + n)
		}
	}
	slices.SortStableFunc(tests, func(a, b timed) int {
		switch {
		case a.elapsed > b.elapsed:
			return -1
		case a.elapsed < b.elapsed:
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	if len(tests) > 0 {
		fmt.Println("slowest tests:")
		for _, t := range tests[:min(10, len(tests))] {
			fmt.Printf("  %7.1fs  %s\n", t.elapsed, t.name)
		}
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 || badPkg {
		os.Exit(1)
	}
}
