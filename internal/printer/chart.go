package printer

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart is one picture of an html report: a bar chart of aggregates (one
// bar per label and series), never one mark per entity, so that a report
// on a million partitions stays as small as one on ten.
type Chart struct {
	// ID names the chart in the page (the figure's id is "chart-"+ID).
	ID     string
	Title  string
	XLabel string
	YLabel string
	// Labels name the categories, in the order drawn.
	Labels []string
	// Series are drawn side by side (or stacked, with Stacked) over the
	// labels; each has one value per label.
	Series  []Series
	Stacked bool
}

// Series is one set of bars of a chart.
type Series struct {
	Name   string
	Values []float64
	// Alert draws the series in the alert colour (differences, errors).
	Alert bool
	// Color, when set, is the series' fill (#RRGGBB) whatever its place.
	Color string
}

// SeriesColors are the fills of a chart's series in order, and AlertColor
// the fill of an Alert series, as they appear in the SVG (fill:#RRGGBB):
// a test counts a series' bars by its colour.
var (
	SeriesColors = []string{"#3B6FB6", "#9DB8DE", "#E0A526", "#6B8E23", "#7F7F7F"}
	AlertColor   = "#C0392B"
	// CriticalColor fills the critical findings of lint's page, darker
	// than the alert colour of errors.
	CriticalColor = "#6E1A12"
)

// Bars is how many bars ch draws: one per label and series.
func (ch Chart) Bars() int { return len(ch.Labels) * len(ch.Series) }

// SeriesColor is the fill series i of ch is drawn in.
func (ch Chart) SeriesColor(i int) string {
	if c := ch.Series[i].Color; c != "" {
		return c
	}
	if ch.Series[i].Alert {
		return AlertColor
	}
	return SeriesColors[i%len(SeriesColors)]
}

// svg draws ch with gonum/plot as an SVG element to inline in a page:
// the XML prolog and generator comment are cut off, the rest is gonum's
// output unchanged. Fonts are not embedded (the browser's sans-serif is
// used), which keeps the page small and free of font fetches.
func (ch Chart) svg() (string, error) {
	for _, s := range ch.Series {
		if len(s.Values) != len(ch.Labels) {
			return "", fmt.Errorf("printer: chart %s: series %q has %d values for %d labels", ch.ID, s.Name, len(s.Values), len(ch.Labels))
		}
	}
	p := plot.New()
	// The title is the figure's caption, not drawn twice.
	p.X.Label.Text = ch.XLabel
	p.Y.Label.Text = ch.YLabel
	p.Y.Min = 0
	p.Legend.Top = true
	// Bars side by side share the category's width.
	width := vg.Points(40)
	if n := len(ch.Labels); n > 12 {
		width = vg.Points(480 / float64(n))
	}
	barW := width
	if !ch.Stacked && len(ch.Series) > 1 {
		barW = width / vg.Length(len(ch.Series))
	}
	var below *plotter.BarChart
	for i, s := range ch.Series {
		b, err := plotter.NewBarChart(plotter.Values(s.Values), barW)
		if err != nil {
			return "", fmt.Errorf("printer: chart %s: %w", ch.ID, err)
		}
		b.Color = hexColor(ch.SeriesColor(i))
		b.LineStyle.Width = 0
		if ch.Stacked {
			if below != nil {
				b.StackOn(below)
			}
			below = b
		} else if len(ch.Series) > 1 {
			b.Offset = barW*vg.Length(i) - width/2 + barW/2
		}
		p.Add(b)
		if len(ch.Series) > 1 {
			p.Legend.Add(s.Name, b)
		}
	}
	if len(ch.Labels) > 0 {
		p.NominalX(ch.Labels...)
	}
	c := vgsvg.New(vg.Points(560), vg.Points(280))
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	// An accessible name, so that the picture says what it shows.
	s = strings.Replace(s, "<svg ", `<svg role="img" aria-label="`+htmlAttrEscape(ch.Title)+`" `, 1)
	return s, nil
}

func hexColor(s string) color.Color {
	var r, g, b uint8
	fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b)
	return color.RGBA{R: r, G: g, B: b, A: 255}
}
