package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/testkit/browsertest"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

const testReportTime = "2026-01-02T03:04:05Z"

// wantChart is a picture a report must hold: its id, and how many
// categories and series its bars are drawn over (counted from the
// command's JSON, not from the page).
type wantChart struct {
	id             string
	labels, series int
}

// finding is what the page must show of each finding.
type finding struct {
	Code     string `json:"code"`
	Message  string `json:"message"`
	Class    string `json:"class"`
	Severity string `json:"severity"`
	Fix      string `json:"fix"`
}

// TestHTMLReportsInBrowser renders each command's html report from the
// committed real-Kafka fixtures and opens it in headless Chromium: the
// page loads with no console error and no network request; the verdict,
// the facts and every finding of the command's JSON are in the DOM; each
// picture has one bar per category and series (plus one legend swatch per
// series when there are several), counted as the SVG paths filled in the
// series' colour; and a 1280x800 screenshot is written to the test's temp
// dir (and to $KMETA_SCREENSHOT_DIR when set, to look at, with one of the
// whole page).
func TestHTMLReportsInBrowser(t *testing.T) {
	if browsertest.Find() == "" {
		t.Skip("no browser: chromium not found (/usr/bin/chromium, $" + browsertest.Env + " or PATH); install Debian's chromium package to run the browser tests")
	}
	zk := "zkdata:" + filepath.Join(zkFixture, "datadir")
	for _, tc := range []struct {
		name string
		args []string
		// expect reads the command's JSON: its findings and pictures.
		expect func(t *testing.T, js []byte) ([]finding, []wantChart)
		source string // a fact the summary must show
		// check, when set, checks what else the page must show.
		check func(t *testing.T, p *browsertest.Page)
	}{
		{"image", []string{"image", fixture44}, expectImageLog(fixture44), fixture44, checkRecordTypes(fixture44)},
		{"image-zk", []string{"image", zk}, expectImage, zk, nil},
		{"verify", []string{"verify", "--zk", zk, "--kraft", "kraft:" + fixture44}, expectVerify, "kraft:" + fixture44, nil},
		{"migrate-plan", []string{"migrate", "plan", "--zk", zk, "--controllers", "1@127.0.0.1:9093"}, expectPlan, zk, nil},
		{"quorum-describe", []string{"quorum", "describe", fixture44}, expectQuorum, "ToAmJGLdjtzIec30sLZozA", nil},
		{"lint", []string{"lint", fixture44}, expectLint, fixture44, nil},
		{"log-stats", []string{"log", "stats", fixture44}, expectLogStats, fixture44, nil},
		{"zk-dependents", []string{"zk", "dependents", zk}, expectZKDependents, zk, nil},
		{"history", []string{"history", fixture44}, expectHistory, "kraft:" + fixture44, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, js, stderr := runKmeta(t, append(tc.args, "-o", "json")...)
			if !json.Valid([]byte(js)) && !validLines(js) {
				t.Fatalf("-o json: %s", stderr)
			}
			fs, charts := tc.expect(t, []byte(js))
			code, page, stderr := runKmeta(t, append(tc.args, "-o", "html", "--report-time", testReportTime)...)
			if code == exitFailure || !strings.HasPrefix(page, "<!DOCTYPE html>") {
				t.Fatalf("-o html: exit %d: %s", code, stderr)
			}
			path := filepath.Join(t.TempDir(), tc.name+".html")
			if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			p := browsertest.Open(t, path)
			checkReportPage(t, p, fs, charts, tc.source)
			if tc.check != nil {
				tc.check(t, p)
			}
			shot := filepath.Join(t.TempDir(), tc.name+".png")
			p.Screenshot(t, shot)
			if dir := os.Getenv("KMETA_SCREENSHOT_DIR"); dir != "" {
				p.Screenshot(t, filepath.Join(dir, tc.name+".png"))
				p.FullScreenshot(t, filepath.Join(dir, tc.name+"-full.png"))
			}
			t.Logf("screenshot: %s", shot)
		})
	}
}

// validLines says whether s is JSON lines (history's -o json).
func validLines(s string) bool {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return len(lines) > 1 && !slices.ContainsFunc(lines, func(l string) bool { return !json.Valid([]byte(l)) })
}

// expectHistory: no findings; the timeline over the changes' times, by
// kind (seven colours, then the rest as one), and the changes by kind.
func expectHistory(t *testing.T, js []byte) ([]finding, []wantChart) {
	tl := report.NewHistoryTimeline()
	kinds := map[model.EntityKind]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(js)), "\n") {
		var c struct {
			Kind string    `json:"kind"`
			Time time.Time `json:"time"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatal(err)
		}
		k, ok := model.ParseEntityKind(c.Kind)
		if !ok {
			t.Fatalf("kind %q", c.Kind)
		}
		kinds[k] = true
		tl.Add(k, c.Time)
	}
	return nil, []wantChart{{"history-time", tl.Bins(), min(len(kinds), 8)}, {"history-kinds", len(kinds), 1}}
}

func checkReportPage(t *testing.T, p *browsertest.Page, fs []finding, charts []wantChart, source string) {
	t.Helper()
	p.Settle(t)
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	if reqs := p.Requests(); len(reqs) > 0 {
		t.Errorf("network requests: %q", reqs)
	}
	str := func(js string) string { return browsertest.Eval[string](t, p, js) }
	num := func(js string) int { return browsertest.Eval[int](t, p, js) }
	if v := str(`document.querySelector("#verdict").textContent`); v == "" {
		t.Error("no verdict")
	}
	if m := str(`document.querySelector("#made").textContent`); m != testReportTime {
		t.Errorf("made %q, want %q", m, testReportTime)
	}
	if v := str(`document.querySelector("#version").textContent`); v == "" {
		t.Error("no version")
	}
	if facts := str(`document.querySelector("table.facts").textContent`); !strings.Contains(facts, source) {
		t.Errorf("the summary does not name %s:\n%s", source, facts)
	}
	if n := num(`Number(document.querySelector("#by-severity tr.total td.num").textContent)`); n != len(fs) {
		t.Errorf("summary counts %d findings, want %d", n, len(fs))
	}
	// Every finding, as code and message, in the findings section.
	got := browsertest.Eval[[][2]string](t, p, `Array.from(document.querySelectorAll("#findings tr.finding")).map(r => [r.dataset.code, r.cells[8].textContent])`)
	want := make([][2]string, len(fs))
	for i, f := range fs {
		want[i] = [2]string{f.Code, f.Message}
	}
	cmp2 := func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) }
	slices.SortFunc(got, cmp2)
	slices.SortFunc(want, cmp2)
	if !slices.Equal(got, want) {
		t.Errorf("findings in the page:\n%q\nwant:\n%q", got, want)
	}
	// Every fix is on the page as it is in the JSON, with its copy button.
	var fixes []string
	for _, f := range fs {
		if f.Fix != "" {
			fixes = append(fixes, f.Fix)
		}
	}
	gotFixes := browsertest.Eval[[]string](t, p, `Array.from(document.querySelectorAll("#findings code.fix")).filter(c => c.nextElementSibling && c.nextElementSibling.matches("button.copy")).map(c => c.textContent)`)
	slices.Sort(fixes)
	slices.Sort(gotFixes)
	if !slices.Equal(gotFixes, fixes) {
		t.Errorf("fixes with a copy button in the page:\n%q\nwant:\n%q", gotFixes, fixes)
	}
	if len(fs) > 0 {
		// Error, warning and info; critical too when a finding has it
		// (lint's alone).
		sevs := 3
		if slices.ContainsFunc(fs, func(f finding) bool { return f.Severity == "critical" }) {
			sevs++
		}
		charts = append(charts, wantChart{"findings", len(findingClasses(fs)), sevs})
	}
	ids := browsertest.Eval[[]string](t, p, `Array.from(document.querySelectorAll("figure.chart")).map(f => f.id)`)
	var wantIDs []string
	for _, c := range charts {
		wantIDs = append(wantIDs, "chart-"+c.id)
	}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("pictures %q, want %q", ids, wantIDs)
	}
	for _, c := range charts {
		colors := strings.Fields(str(fmt.Sprintf(`document.querySelector("#chart-%s").dataset.colors`, c.id)))
		if len(colors) != c.series {
			t.Errorf("chart %s: %d series, want %d", c.id, len(colors), c.series)
			continue
		}
		if n := num(fmt.Sprintf(`document.querySelectorAll("#chart-%s svg").length`, c.id)); n != 1 {
			t.Errorf("chart %s: %d svg elements", c.id, n)
		}
		legend := 0
		if c.series > 1 {
			legend = 1
		}
		for _, col := range colors {
			n := num(fmt.Sprintf(`Array.from(document.querySelectorAll("#chart-%s svg path")).filter(e => e.getAttribute("style") === "fill:%s").length`, c.id, col))
			if n != c.labels+legend {
				t.Errorf("chart %s: %d paths in %s, want %d bars and %d legend swatch", c.id, n, col, c.labels, legend)
			}
		}
	}
}

func findingClasses(fs []finding) []string {
	var out []string
	for _, f := range fs {
		cl := f.Class
		if cl == "" {
			cl = "general"
		}
		if !slices.Contains(out, cl) {
			out = append(out, cl)
		}
	}
	return out
}

func decode(t *testing.T, js []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(js, v); err != nil {
		t.Fatal(err)
	}
}

// The image: one category per broker (registered or holding a replica or
// a leadership), two series; one per replication factor. Its warnings are
// the findings.
func expectImage(t *testing.T, js []byte) ([]finding, []wantChart) {
	var img struct {
		Brokers []struct {
			ID int32 `json:"id"`
		} `json:"brokers"`
		Topics []struct {
			Partitions []struct {
				Replicas []int32 `json:"replicas"`
				Leader   int32   `json:"leader"`
			} `json:"partitions"`
		} `json:"topics"`
		Warnings []finding `json:"warnings"`
	}
	decode(t, js, &img)
	brokers, rf := map[int32]bool{}, map[int]bool{}
	for _, b := range img.Brokers {
		brokers[b.ID] = true
	}
	for _, tp := range img.Topics {
		for _, p := range tp.Partitions {
			rf[len(p.Replicas)] = true
			for _, r := range p.Replicas {
				brokers[r] = true
			}
			if p.Leader >= 0 {
				brokers[p.Leader] = true
			}
		}
	}
	return img.Warnings, []wantChart{{"brokers", len(brokers), 2}, {"replication-factor", len(rf), 1}}
}

// expectImageLog is expectImage for an image replayed from the KRaft log
// in dir: also the pictures of the records replay applied after the
// snapshot, over offsets and batch time, one bar per bin and series (the
// types, at most seven and "other"), as a Timeline observing a replay of
// its own counts them (metalog's TestTimelineKafkaFixtures checks
// Timeline against Kafka's DumpLogSegments on the same fixtures).
func expectImageLog(dir string) func(t *testing.T, js []byte) ([]finding, []wantChart) {
	return func(t *testing.T, js []byte) ([]finding, []wantChart) {
		fs, charts := expectImage(t, js)
		tl := replayTimeline(t, dir)
		series := 0
		for _, ty := range tl.Types() {
			if ty.Log > 0 {
				series++
			}
		}
		series = min(series, 8)
		if series < 2 || tl.Offsets().Bins() < 2 || tl.Times().Bins() < 2 {
			t.Fatalf("the fixture's log after the snapshot is too small to draw: %d types, %d and %d bins", series, tl.Offsets().Bins(), tl.Times().Bins())
		}
		return fs, append(charts, wantChart{"records-offsets", tl.Offsets().Bins(), series}, wantChart{"records-time", tl.Times().Bins(), series})
	}
}

// replayTimeline replays the KRaft log in dir with a Timeline observing.
func replayTimeline(t *testing.T, dir string) *metalog.Timeline {
	t.Helper()
	tl := metalog.NewTimeline()
	if _, err := metalog.LoadImage(dir, metalog.ImageOptions{AtOffset: -1, Observe: tl.Observe}); err != nil {
		t.Fatal(err)
	}
	return tl
}

// checkRecordTypes: the page's table of record types lists each type
// replay applied with its count in the snapshot and after it.
func checkRecordTypes(dir string) func(t *testing.T, p *browsertest.Page) {
	return func(t *testing.T, p *browsertest.Page) {
		var want [][]string
		for _, ty := range replayTimeline(t, dir).Types() {
			want = append(want, []string{ty.Name, fmt.Sprint(ty.Snapshot), fmt.Sprint(ty.Log), fmt.Sprint(ty.Snapshot + ty.Log)})
		}
		got := browsertest.Eval[[][]string](t, p, `Array.from(document.querySelectorAll("details.table")).filter(d => d.querySelector("th").textContent === "RECORD TYPE").flatMap(d => Array.from(d.querySelectorAll("tbody tr")).map(r => Array.from(r.cells).map(c => c.textContent)))`)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("record types in the page:\n%q\nwant:\n%q", got, want)
		}
	}
}

// log stats: one bar per record type, data and control; the damage the
// statistics stop at, if any, is the finding.
func expectLogStats(t *testing.T, js []byte) ([]finding, []wantChart) {
	var doc struct {
		ByAPIKey      []json.RawMessage `json:"byApiKey"`
		ByControlType []json.RawMessage `json:"byControlType"`
		Damage        *finding          `json:"damage"`
	}
	decode(t, js, &doc)
	var fs []finding
	if doc.Damage != nil {
		fs = append(fs, *doc.Damage)
	}
	return fs, []wantChart{{"records", len(doc.ByAPIKey) + len(doc.ByControlType), 1}}
}

// verify: the compared classes, each side and the differences.
func expectVerify(t *testing.T, js []byte) ([]finding, []wantChart) {
	var doc struct {
		Compared []json.RawMessage `json:"compared"`
		Findings []finding         `json:"findings"`
	}
	decode(t, js, &doc)
	return doc.Findings, []wantChart{{"compared", len(doc.Compared), 3}}
}

// migrate plan: the record types it writes.
func expectPlan(t *testing.T, js []byte) ([]finding, []wantChart) {
	var plan struct {
		Records struct {
			ByType []json.RawMessage `json:"byType"`
		} `json:"records"`
		Findings []finding `json:"findings"`
	}
	decode(t, js, &plan)
	return plan.Findings, []wantChart{{"records", len(plan.Records.ByType), 1}}
}

// quorum describe: the voters whose end offset the source knows, their
// offsets and their lag behind the leader.
func expectQuorum(t *testing.T, js []byte) ([]finding, []wantChart) {
	var doc struct {
		Status struct {
			Voters []struct {
				LogEndOffset int64 `json:"logEndOffset"`
			} `json:"voters"`
		} `json:"status"`
		Findings []finding `json:"findings"`
	}
	decode(t, js, &doc)
	n := 0
	for _, v := range doc.Status.Voters {
		if v.LogEndOffset >= 0 {
			n++
		}
	}
	return doc.Findings, []wantChart{{"log-end-offset", n, 1}, {"lag", n, 1}}
}

// lint: the findings no exception covers, grouped by family, and the
// chart of them by family and severity (the page's own); every fix in
// the JSON is on the page with its copy button.
// zk dependents: every finding of its JSON (on the fixture: Kafka's own
// brokers still connected when the data dir was written).
func expectZKDependents(t *testing.T, js []byte) ([]finding, []wantChart) {
	var doc struct {
		Findings []finding `json:"findings"`
	}
	decode(t, js, &doc)
	if len(doc.Findings) == 0 {
		t.Fatal("no finding on the fixture: the page's findings go untested")
	}
	return doc.Findings, nil
}

func expectLint(t *testing.T, js []byte) ([]finding, []wantChart) {
	var doc struct {
		Findings []struct {
			finding
			Excepted string `json:"excepted"`
		} `json:"findings"`
	}
	decode(t, js, &doc)
	var out []finding
	for _, f := range doc.Findings {
		if f.Excepted == "" {
			out = append(out, f.finding)
		}
	}
	if len(out) == 0 {
		t.Fatal("the fixture lints clean: the lint page's findings and chart go untested")
	}
	return out, nil
}
