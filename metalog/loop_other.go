//go:build !unix

package metalog

func isLoop(error) bool { return false }
