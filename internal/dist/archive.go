package main

import (
	"archive/tar"
	"archive/zip"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"time"
)

// member is one file of an archive: its name below the archive's
// directory, its mode and its bytes. Nothing else about the file on disk
// (owner, mtime, mode bits) reaches the archive.
type member struct {
	name string
	mode fs.FileMode
	data []byte
}

const (
	dirMode  fs.FileMode = 0o755
	exeMode  fs.FileMode = 0o755
	docMode  fs.FileMode = 0o644
	dosEpoch             = 315532800 // 1980-01-01T00:00:00Z, the first time an MS-DOS date holds
)

// writeTarGz writes dir/ and its members, in the order given, as a
// gzipped USTAR archive whose every entry has mtime, owner 0:0 and no
// owner names.
func writeTarGz(w io.Writer, dir string, members []member, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	// A zero Header: no file name, no modification time; compress/gzip
	// writes OS 255 (unknown), so the host leaves no mark either.
	tw := tar.NewWriter(gz)
	mtime = mtime.UTC().Truncate(time.Second)
	hdr := func(name string, typ byte, mode fs.FileMode, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: int64(mode), Size: size,
			ModTime: mtime, Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(dir+"/", tar.TypeDir, dirMode, 0)); err != nil {
		return fmt.Errorf("tar %s/: %w", dir, err)
	}
	for _, m := range members {
		if err := tw.WriteHeader(hdr(dir+"/"+m.name, tar.TypeReg, m.mode, int64(len(m.data)))); err != nil {
			return fmt.Errorf("tar %s/%s: %w", dir, m.name, err)
		}
		if _, err := tw.Write(m.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes dir/ and its members, in the order given, as a zip
// archive: deflated, every entry with mtime (in UTC, 1980 at the
// earliest) and Unix modes.
func writeZip(w io.Writer, dir string, members []member, mtime time.Time) error {
	if mtime.Unix() < dosEpoch {
		mtime = time.Unix(dosEpoch, 0)
	}
	mtime = mtime.UTC().Truncate(time.Second)
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	head := func(name string, method uint16, mode fs.FileMode) *zip.FileHeader {
		h := &zip.FileHeader{Name: name, Method: method, Modified: mtime}
		h.SetMode(mode)
		return h
	}
	if _, err := zw.CreateHeader(head(dir+"/", zip.Store, fs.ModeDir|dirMode)); err != nil {
		return fmt.Errorf("zip %s/: %w", dir, err)
	}
	for _, m := range members {
		f, err := zw.CreateHeader(head(dir+"/"+m.name, zip.Deflate, m.mode))
		if err != nil {
			return fmt.Errorf("zip %s/%s: %w", dir, m.name, err)
		}
		if _, err := f.Write(m.data); err != nil {
			return err
		}
	}
	return zw.Close()
}
