package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// entry is what an archive says of one of its files, everything a reader
// (tar(1), unzip(1), Windows' Explorer) would apply when extracting.
type entry struct {
	Name         string
	Mode         fs.FileMode
	MTime        int64
	Uid, Gid     int
	Uname, Gname string
	Data         string
}

var testMembers = []member{
	{name: "kmeta", mode: exeMode, data: []byte("\x7fELF not really")},
	{name: "README.md", mode: docMode, data: []byte("# kmeta\n")},
	{name: "LICENSE", mode: docMode, data: bytes.Repeat([]byte("Apache License "), 1000)},
	{name: "kmeta.1", mode: docMode, data: []byte(".TH KMETA 1\n")},
}

// wantEntries is the directory and testMembers, in their order, each as
// the archive must hold it.
func wantEntries(dir string, mtime int64) []entry {
	out := []entry{{Name: dir + "/", Mode: fs.ModeDir | dirMode, MTime: mtime}}
	for _, m := range testMembers {
		out = append(out, entry{Name: dir + "/" + m.name, Mode: m.mode, MTime: mtime, Data: string(m.data)})
	}
	return out
}

func readTarGz(t *testing.T, b []byte) []entry {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if h := gz.Header; !h.ModTime.IsZero() || h.Name != "" || h.Comment != "" || h.Extra != nil || h.OS != 255 {
		t.Errorf("gzip header %+v: want no name, time, comment or extra and OS 255 (unknown)", h)
	}
	tr := tar.NewReader(gz)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Format != tar.FormatUSTAR || !h.AccessTime.IsZero() || !h.ChangeTime.IsZero() || len(h.PAXRecords) > 0 {
			t.Errorf("%s: format %v, atime %v, ctime %v, PAX %v: want USTAR and nothing more", h.Name, h.Format, h.AccessTime, h.ChangeTime, h.PAXRecords)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{Name: h.Name, Mode: h.FileInfo().Mode(), MTime: h.ModTime.Unix(),
			Uid: h.Uid, Gid: h.Gid, Uname: h.Uname, Gname: h.Gname, Data: string(data)})
	}
	return out
}

func readZip(t *testing.T, b []byte) []entry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		// archive/zip gives the MS-DOS time's offset from the extended
		// timestamp as the zone: 0 when the MS-DOS time is in UTC.
		if _, off := f.Modified.Zone(); off != 0 {
			t.Errorf("%s: modified %v: want the MS-DOS time in UTC", f.Name, f.Modified)
		}
		out = append(out, entry{Name: f.Name, Mode: f.Mode(), MTime: f.Modified.Unix(), Data: string(data)})
	}
	return out
}

// TestArchives: each writer puts down exactly the directory and the
// members, in order, with the fixed mtime, modes and owners; two writes
// are byte-identical, and the mtime's time zone changes nothing.
func TestArchives(t *testing.T) {
	const dir = "kmeta_1.2.3_linux_amd64"
	when := time.Unix(1767225600, 0) // 2026-01-01T00:00:00Z
	elsewhere := when.In(time.FixedZone("UTC+5", 5*3600))
	for _, tc := range []struct {
		kind  string
		write func(io.Writer, string, []member, time.Time) error
		read  func(*testing.T, []byte) []entry
	}{
		{"tar.gz", writeTarGz, readTarGz},
		{"zip", writeZip, readZip},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := tc.write(&a, dir, testMembers, when); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(&b, dir, testMembers, elsewhere); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("two writes of one archive differ (%d and %d bytes)", a.Len(), b.Len())
			}
			if diff := cmp.Diff(wantEntries(dir, when.Unix()), tc.read(t, a.Bytes())); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

// TestZipBefore1980: an MS-DOS date cannot hold a time before 1980, so an
// older mtime (SOURCE_DATE_EPOCH=0) is 1980-01-01 in a zip archive, not a
// wrapped-around date.
func TestZipBefore1980(t *testing.T) {
	var b bytes.Buffer
	if err := writeZip(&b, "d", testMembers[:1], time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if got := f.Modified.Unix(); got != dosEpoch {
			t.Errorf("%s: mtime %d, want %d (1980-01-01)", f.Name, got, dosEpoch)
		}
		if f.ModifiedDate != 0x21 || f.ModifiedTime != 0 { // 1980-01-01 00:00:00
			t.Errorf("%s: MS-DOS date %#x time %#x, want 0x21 0", f.Name, f.ModifiedDate, f.ModifiedTime)
		}
	}
}
