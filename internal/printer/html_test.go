package printer

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/model"
)

var testHTMLOptions = HTMLOptions{Version: "test", Made: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}

// syntheticImage is an image of n partitions over topics of 100
// partitions, replicas spread over 6 brokers (replication factor 3, every
// 10th partition 1), leaders on the first replica.
func syntheticImage(n int) *model.Image {
	img := model.NewImage()
	img.ClusterID = "synthetic"
	img.Provenance = model.Provenance{Source: "synthetic", Offset: int64(n), Epoch: 1}
	for b := int32(0); b < 6; b++ {
		img.Brokers[b] = &model.Broker{ID: b}
	}
	var t *model.Topic
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			name := fmt.Sprintf("topic-%07d", i/100)
			t = &model.Topic{Name: name, Partitions: map[int32]*model.Partition{}}
			img.Topics[name] = t
		}
		rs := []int32{int32(i % 6), int32((i + 1) % 6), int32((i + 2) % 6)}
		if i%10 == 0 {
			rs = rs[:1]
		}
		t.Partitions[int32(i%100)] = &model.Partition{ID: int32(i % 100), Replicas: rs, ISR: rs, Leader: rs[0]}
	}
	return img
}

// countFill counts the SVG paths filled with colour c.
func countFill(page, c string) int { return strings.Count(page, "fill:"+c+`"`) }

// The image page draws one bar per broker and series and one per
// replication factor (plus a legend swatch per series of a chart with
// several), is the same bytes for the same input, and fetches nothing.
func TestImageHTML(t *testing.T) {
	img := syntheticImage(1000)
	img.Warnings = []model.Finding{{Code: "replay-stopped", Severity: model.SevError, Class: "log", Message: `<script>alert(1)</script>`}}
	var a, b bytes.Buffer
	if err := WriteImage(&a, HTML, img, ImageOptions{HTML: testHTMLOptions}); err != nil {
		t.Fatal(err)
	}
	if err := WriteImage(&b, HTML, img, ImageOptions{HTML: testHTMLOptions}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two renderings of one image differ")
	}
	page := a.String()
	if strings.Contains(page, "<script>alert") {
		t.Error("a finding's message is not escaped")
	}
	// Every URL is an XML namespace: nothing to fetch.
	for _, u := range regexp.MustCompile(`(?:src|href)=|url\(|https?://[^"]*`).FindAllString(page, -1) {
		if u != "http://www.w3.org/2000/svg" && u != "http://www.w3.org/1999/xlink" {
			t.Errorf("page refers to %q", u)
		}
	}
	// brokers: 6 labels × 2 series and a legend swatch for each series;
	// replication factor: 2 bars in the first colour; findings (1 class,
	// stacked by severity: error in AlertColor, warning in the 3rd colour
	// and info in the 2nd): a bar and a swatch each.
	if got, want := countFill(page, SeriesColors[0]), 6+1+2; got != want {
		t.Errorf("%d paths in %s, want %d", got, SeriesColors[0], want)
	}
	if got, want := countFill(page, SeriesColors[1]), 6+1+1+1; got != want {
		t.Errorf("%d paths in %s, want %d", got, SeriesColors[1], want)
	}
	for _, s := range []string{`id="chart-brokers" data-bars="12"`, `id="chart-replication-factor" data-bars="2"`, `id="chart-findings" data-bars="3"`,
		`class="verdict status-findings"`, "2026-01-02T03:04:05Z", "kmeta version"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %s", s)
		}
	}
}

// A million partitions make a page of aggregates: far under 20 MB.
func TestImageHTMLMillionPartitionsSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,000,000-partition image (not in -short)")
	}
	img := syntheticImage(1_000_000)
	var b bytes.Buffer
	if err := WriteImage(&b, HTML, img, ImageOptions{HTML: testHTMLOptions}); err != nil {
		t.Fatal(err)
	}
	if b.Len() >= 20<<20 {
		t.Fatalf("report of 1,000,000 partitions is %d bytes, want < 20 MB", b.Len())
	}
	t.Logf("report of 1,000,000 partitions: %d bytes", b.Len())
}

// A document without a page has no html report.
func TestWriteHTMLNeedsPage(t *testing.T) {
	if err := WriteHTML(&bytes.Buffer{}, Document{}, testHTMLOptions); err == nil {
		t.Fatal("no error")
	}
	if err := WriteDocument(&bytes.Buffer{}, HTML, Document{Page: &Page{}}); err == nil {
		t.Fatal("WriteDocument wrote html")
	}
}
