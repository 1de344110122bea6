package bench

import (
	"context"
	"io"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/source"
)

func TestTmpProf(t *testing.T) {
	spec, err := source.Parse(os.Getenv("SNAP"))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create("/tmp/perf_img.prof")
	pprof.StartCPUProfile(f)
	s := time.Now()
	res, err := source.Load(context.Background(), spec, source.Options{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("load", time.Since(s))
	s = time.Now()
	printer.WriteImage(io.Discard, printer.Format(os.Getenv("FMT")), res.Image, printer.ImageOptions{})
	t.Log("print", time.Since(s))
	pprof.StopCPUProfile()
}
