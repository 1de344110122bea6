//go:build !unix

package metalog

import "os"

// chownLike does nothing where files have no Unix owner.
func chownLike(*os.File, os.FileInfo) error { return nil }
