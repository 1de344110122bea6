package printer

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// bigImage has enough partitions for several of asyncWriter's buffers.
func bigImage() *model.Image {
	img := model.NewImage()
	for k := range 40 {
		tp := &model.Topic{Name: fmt.Sprintf("t%02d", k), ID: model.UUID{1, byte(k)}, Partitions: map[int32]*model.Partition{}}
		for i := range int32(500) {
			tp.Partitions[i] = &model.Partition{ID: i, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2}, Leader: 1,
				LeaderEpoch: i % 7, Directories: []model.UUID{{1}, {2}, {3}}}
		}
		img.Topics[tp.Name] = tp
	}
	return img
}

// Through asyncWriter, WriteImage prints exactly what the formatters write
// straight into a buffer.
func TestWriteImageAsyncSameBytes(t *testing.T) {
	img := bigImage()
	for _, f := range []Format{Text, JSON} {
		var direct, got bytes.Buffer
		var err error
		switch f {
		case Text:
			err = WriteImageText(&direct, img.RedactedView())
		case JSON:
			err = img.RedactedView().WriteIndentedJSON(&direct, "  ")
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteImage(&got, f, img, ImageOptions{}); err != nil {
			t.Fatal(err)
		}
		if direct.Len() < 1<<20 {
			t.Fatalf("%s: only %d bytes: too small to fill the writer's buffers", f, direct.Len())
		}
		if !bytes.Equal(direct.Bytes(), got.Bytes()) {
			t.Errorf("%s: WriteImage printed %d bytes that differ from the formatter's %d", f, got.Len(), direct.Len())
		}
	}
}

type failingWriter struct{ n, after int }

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n >= w.after {
		return 0, errDiskFull
	}
	w.n++
	return len(p), nil
}

// A write error, at the first write or later, is WriteImage's error.
func TestWriteImageAsyncWriteError(t *testing.T) {
	img := bigImage()
	for _, after := range []int{0, 2} {
		for _, f := range []Format{Text, JSON} {
			if err := WriteImage(&failingWriter{after: after}, f, img, ImageOptions{}); !errors.Is(err, errDiskFull) {
				t.Errorf("%s, failing after %d writes: error %v, want %v", f, after, err, errDiskFull)
			}
		}
	}
}
