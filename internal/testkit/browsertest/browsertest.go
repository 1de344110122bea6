// Package browsertest opens pages in a real headless browser (Debian's
// chromium, driven over the DevTools protocol with chromedp) for tests of
// kmeta's html reports: it records every console error, uncaught
// exception, browser log error (a Content-Security-Policy violation is
// one) and network request the page makes, evaluates JavaScript in it and
// takes screenshots.
//
// The browser is started with a fresh profile and everything that would
// reach the network on its own (background networking, component
// updates, sync) turned off, so a request seen is one the page made.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Env names a browser binary to use instead of the ones Find looks for.
const Env = "KMETA_CHROMIUM"

// Find returns the path of a Chromium-family browser: $KMETA_CHROMIUM,
// /usr/bin/chromium (Debian's package), or chromium, chromium-browser,
// google-chrome on PATH; "" when there is none.
func Find() string {
	if p := os.Getenv(Env); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Page is one page open in a headless browser.
type Page struct {
	ctx context.Context
	url string

	mu       sync.Mutex
	errors   []string
	requests []string
	// wall is how long the navigation took as Open saw it.
	wall time.Duration
}

// Width and Height are the window's (and screenshots') size.
const (
	Width  = 1280
	Height = 800
)

// Open starts a browser (skipping the test when none is installed), opens
// the file at path by its file:// URL and waits for it to load. The
// browser stops when the test ends.
func Open(t testing.TB, path string) *Page {
	t.Helper()
	bin := Find()
	if bin == "" {
		t.Skip("no browser: chromium not found (/usr/bin/chromium, $" + Env + " or PATH); install Debian's chromium package (apt-get install chromium) to run the browser tests")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(t.TempDir()),
		// Chromium puts its profile's singleton socket in a directory of
		// its own under TMPDIR and removes it only when it exits on its
		// own; the test's end kills it, which left one directory behind
		// in /tmp for every page opened.
		chromedp.Env("TMPDIR=" + t.TempDir()),
		chromedp.WindowSize(Width, Height),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	p := &Page{ctx: ctx, url: "file://" + abs}
	listen := func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == "error" || e.Type == "assert" {
				p.errors = append(p.errors, "console."+string(e.Type)+": "+argsText(e.Args))
			}
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			what := d.Text
			if d.Exception != nil {
				what += " " + d.Exception.Description
			}
			p.errors = append(p.errors, fmt.Sprintf("exception: %s at %s:%d", what, d.URL, d.LineNumber))
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				p.errors = append(p.errors, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if e.Request.URL != p.url {
				p.requests = append(p.requests, e.Request.URL)
			}
		}
	}
	if err := chromedp.Listen(ctx, listen); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(Width, Height)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(p.url), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("open %s in %s: %v", p.url, bin, err)
	}
	p.wall = time.Since(start)
	return p
}

// Timing is how long the browser took to open a page: the Navigation
// and Paint Timing APIs' figures, from the start of navigation to the end
// of the DOMContentLoaded handlers, to the end of the load event and to
// the first paint of content, and the wall time the test waited for the
// navigation and the body (browser already started).
type Timing struct {
	DOMContentLoaded, Load, FirstContentfulPaint, Wall time.Duration
}

// Timing waits for the page's load event to end and its first content
// to be painted, and returns its timing.
func (p *Page) Timing(t testing.TB) Timing {
	t.Helper()
	for {
		v := Eval[[3]float64](t, p, `(e => e ? [e.domContentLoadedEventEnd, e.loadEventEnd,
			(performance.getEntriesByName("first-contentful-paint")[0] || {startTime: 0}).startTime] : [0, 0, 0])(performance.getEntriesByType("navigation")[0])`)
		if v[1] > 0 && v[2] > 0 {
			ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
			return Timing{DOMContentLoaded: ms(v[0]), Load: ms(v[1]), FirstContentfulPaint: ms(v[2]), Wall: p.wall}
		}
		if err := chromedp.Do(p.ctx, chromedp.Sleep(20*time.Millisecond)); err != nil {
			t.Fatal(fmt.Errorf("wait for the load event: %w", err))
		}
	}
}

func argsText(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		if a.Value != nil {
			parts = append(parts, string(a.Value))
		} else {
			parts = append(parts, a.Description)
		}
	}
	return strings.Join(parts, " ")
}

// Errors are the console errors, uncaught exceptions and browser log
// errors seen so far.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...)
}

// Requests are the URLs the page requested besides itself.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Eval evaluates the JavaScript expression js in p and decodes its value.
func Eval[T any](t testing.TB, p *Page, js string) T {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// Screenshot writes a PNG of the window (Width x Height) to path.
func (p *Page) Screenshot(t testing.TB, path string) {
	t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// FullScreenshot writes a PNG of the whole page, Width wide and as tall
// as the page, to path: to look at the parts of a report below the
// window.
func (p *Page) FullScreenshot(t testing.TB, path string) {
	t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Settle waits briefly for late events (a request or error the page
// makes after load) to arrive before they are checked.
func (p *Page) Settle(t testing.TB) {
	t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Sleep(200*time.Millisecond)); err != nil {
		t.Fatal(fmt.Errorf("settle: %w", err))
	}
}
