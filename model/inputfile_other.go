//go:build !unix

package model

import "os"

func openNoWait(path string) (*os.File, error) { return os.Open(path) }
