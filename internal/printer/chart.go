package printer

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
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
// a test counts a series' bars by its colour. Seven are told apart when
// stacked (a log's records by type); OtherColor fills the series that
// gathers the rest.
var (
	SeriesColors = []string{"#3B6FB6", "#9DB8DE", "#E0A526", "#6B8E23", "#8E6BB8", "#2A9D8F", "#D16BA5"}
	OtherColor   = "#B0B0B0"
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

// Chart sizes, in CSS pixels (the SVG's user units): the plot, and the
// gap between it and the legend drawn on its right.
const (
	chartWidth     = 500
	chartWideWidth = 800 // a chart of more than chartWideAbove categories
	chartWideAbove = 24
	chartHeight    = 280
	legendGap      = 12
)

// chartFont is the typeface of every text of a chart: sans-serif, like
// the page (the stylesheet names it for browsers without Liberation
// Sans, whose widths Arial and Arimo share).
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// svg draws ch with gonum/plot as an SVG element to inline in a page:
// the XML prolog and generator comment are cut off, the rest is gonum's
// output but for the element's size, given in CSS pixels. Fonts are not
// embedded (the browser's sans-serif is used), which keeps the page small
// and free of font fetches. A chart of several series has its legend on
// the right of the plot, where it never hides a bar.
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
	for _, st := range []*text.Style{&p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label} {
		st.Font = font.From(chartFont, st.Font.Size)
	}
	p.Y.Min = 0
	// Counts get whole ticks; a chart of zeros (no lag) still has an
	// axis from 0 up, not one around 0.
	whole, top := true, 0.0
	for _, se := range ch.Series {
		for _, v := range se.Values {
			whole = whole && v == math.Trunc(v)
			top = max(top, v)
		}
	}
	if whole {
		p.Y.Tick.Marker = wholeTicks{}
	}
	if top == 0 {
		p.Y.Max = 1
	}
	plotW := vg.Length(chartWidth)
	if len(ch.Labels) > chartWideAbove {
		plotW = chartWideWidth
	}
	// A category is at most 40 wide, and leaves a gap to the next (the
	// axes take about 60 of the plot's width); bars side by side share
	// it.
	width := vg.Points(40)
	if n := len(ch.Labels); n > 0 {
		width = min(width, (plotW-60)*0.8/vg.Length(n))
	}
	// Labels wider than their category are turned, so that they do not
	// run into each other.
	for _, l := range ch.Labels {
		if p.X.Tick.Label.Width(l) > (plotW-60)/vg.Length(len(ch.Labels))-4 {
			p.X.Tick.Label.Rotation = math.Pi / 5
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
			break
		}
	}
	barW := width
	if !ch.Stacked && len(ch.Series) > 1 {
		barW = width / vg.Length(len(ch.Series))
	}
	legend := plot.NewLegend()
	legend.TextStyle.Font = font.From(chartFont, 12)
	legend.Top, legend.Left = true, true
	legend.Padding = 3
	var below *plotter.BarChart
	var bars []*plotter.BarChart
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
		bars = append(bars, b)
	}
	// The legend lists stacked series top down, as they are drawn.
	if len(ch.Series) > 1 {
		for i := range bars {
			j := i
			if ch.Stacked {
				j = len(bars) - 1 - i
			}
			legend.Add(ch.Series[j].Name, bars[j])
		}
	}
	if len(ch.Labels) > 0 {
		p.NominalX(ch.Labels...)
	}
	var legendW vg.Length
	if len(ch.Series) > 1 {
		r := legend.Rectangle(draw.Canvas{})
		legendW = r.Max.X - r.Min.X + legendGap
	}
	c := vgsvg.New(plotW+legendW, chartHeight)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
	if legendW > 0 {
		legend.Draw(draw.Crop(dc, plotW+legendGap, 0, 0, -4))
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	// An accessible name, so that the picture says what it shows; its
	// size in CSS pixels, one per user unit (gonum gives points, which
	// would draw it a third larger than its text was laid out for).
	s = svgSize.ReplaceAllString(s, `${1}width="$2" height="$3"`)
	s = strings.Replace(s, "<svg ", `<svg role="img" aria-label="`+htmlAttrEscape(ch.Title)+`" `, 1)
	return s, nil
}

// wholeTicks are gonum's default ticks less those between whole numbers,
// labelled as whole numbers ("1", not "1.0").
type wholeTicks struct{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value == math.Trunc(t.Value) {
			if t.Label != "" {
				t.Label = strconv.FormatFloat(t.Value, 'f', -1, 64)
			}
			out = append(out, t)
		}
	}
	return out
}

// svgSize is the size gonum gives the svg element, in points.
var svgSize = regexp.MustCompile(`^(<svg )width="([0-9.]+)pt" height="([0-9.]+)pt"`)

func hexColor(s string) color.Color {
	var r, g, b uint8
	fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b)
	return color.RGBA{R: r, G: g, B: b, A: 255}
}
