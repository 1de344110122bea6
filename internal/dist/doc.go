// Command dist builds kmeta's release archives: `make dist` runs it.
//
//	go run ./internal/dist -out dist -version V -ldflags "-s -w -X main.version=V -X main.commit=C" -mtime UNIXSECONDS
//
// For each target (linux/amd64, linux/arm64, darwin/amd64, darwin/arm64,
// windows/amd64) it builds a static binary and writes one archive,
// kmeta_VERSION_OS_ARCH.tar.gz (.zip for Windows), holding a directory of
// that name with the binary (kmeta, kmeta.exe), README.md, LICENSE and the
// man page kmeta.1; then SHA256SUMS, the archives' SHA-256 in the format
// `sha256sum -c` reads. VERSION loses a leading "v" in the names only.
//
// # Reproducible
//
// Two runs on one commit with one Go release write byte-identical files,
// whatever the checkout's path, the build cache, the user, the umask or the
// files' mtimes:
//
//   - The binary: CGO_ENABLED=0 (static, no C toolchain), -trimpath (no
//     checkout or GOROOT path in it), -buildvcs=false (the commit is
//     stamped with -ldflags -X instead: Go's VCS stamp records
//     vcs.modified, which an untracked file turns true, so a stray file
//     would change the bytes without changing the source), -buildid=
//     (empty: nothing in the binary names the build), GOFLAGS emptied (an
//     exported -race or -mod would change it) and the microarchitecture
//     levels pinned (GOAMD64=v1, GOARM64=v8.0: the lowest, so the binary
//     runs on every CPU of its architecture, and an exported GOAMD64=v3
//     cannot change it). The Go release is part of the input: a binary
//     says which one built it (kmeta --version, go version -m).
//   - The archives: written here with archive/tar, compress/gzip and
//     archive/zip rather than tar(1) and zip(1), whose defaults vary
//     between systems. Entries in a fixed order (the directory, the
//     binary, README.md, LICENSE, kmeta.1); every mtime is -mtime (make
//     passes the commit's time, as SOURCE_DATE_EPOCH; zip's MS-DOS time
//     cannot go below 1980, so older ones are 1980-01-01 in zip files);
//     owner and group 0 with no names; modes 0755 for the directory and the
//     binary, 0644 for the documents, whatever the files on disk say; tar
//     in USTAR format; gzip with no name, no time and OS "unknown".
//
// `make dist-check` (scripts/distcheck.sh) proves it on kmeta itself: a
// second run from a fresh clone at another path with an empty build cache
// must write the same SHA256SUMS. TestDistReproducible does the same for a
// small program on two targets, cheaply enough for every `make test`.
//
// Older archives and SHA256SUMS in the output directory are removed first;
// nothing else there is touched.
package main
