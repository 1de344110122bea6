package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// target is one platform a release is built for.
type target struct{ goos, goarch string }

func (t target) String() string { return t.goos + "/" + t.goarch }

// targets are the platforms of a release, in the order they are built.
var targets = []target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"},
}

// options is one run: what to build, from where, into where.
type options struct {
	module  string   // the module's root directory (the go command runs there)
	pkg     string   // the main package, relative to module
	name    string   // the program's name: the binary and the archives' prefix
	docs    []string // files beside the binary, relative to module, stored under their base names
	out     string   // the output directory
	version string   // the release's version, as the archives' names say it
	ldflags string   // the linker flags (-X stamps), -buildid= added
	mtime   time.Time
	targets []target
	goCmd   string
	log     io.Writer
}

func main() {
	o := options{goCmd: "go", log: os.Stdout, targets: targets, name: "kmeta"}
	var docs, only string
	var mtime int64
	flag.StringVar(&o.module, "module", ".", "the module's root `DIR`")
	flag.StringVar(&o.pkg, "pkg", "./cmd/kmeta", "the main `PACKAGE`")
	flag.StringVar(&docs, "docs", "README.md,LICENSE,man/kmeta.1", "`FILES` beside the binary in each archive, comma-separated")
	flag.StringVar(&o.out, "out", "dist", "output `DIR`")
	flag.StringVar(&o.version, "version", "", "the release's `VERSION` (archive names)")
	flag.StringVar(&o.ldflags, "ldflags", "", "linker `FLAGS` (the -X stamps of version and commit)")
	flag.Int64Var(&mtime, "mtime", dosEpoch, "every archive entry's mtime, `UNIXSECONDS` (the commit's time)")
	flag.StringVar(&only, "targets", "", "build only these `OS/ARCH`s, comma-separated (default: all five)")
	flag.Parse()
	if flag.NArg() > 0 || o.version == "" {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/dist -version VERSION [-ldflags FLAGS] [-mtime UNIXSECONDS] [-out DIR]")
		os.Exit(2)
	}
	o.docs = strings.Split(docs, ",")
	o.mtime = time.Unix(mtime, 0)
	if only != "" {
		o.targets = nil
		for _, s := range strings.Split(only, ",") {
			i := slices.IndexFunc(targets, func(t target) bool { return t.String() == s })
			if i < 0 {
				fmt.Fprintf(os.Stderr, "dist: unknown target %q\n", s)
				os.Exit(2)
			}
			o.targets = append(o.targets, targets[i])
		}
	}
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "dist: %v\n", err)
		os.Exit(1)
	}
}

// isArtifact reports whether a file of the output directory is one a run
// writes, so that a new run clears an older one's files (another
// version's archives) and nothing else.
func isArtifact(file, name string) bool {
	re := `^(SHA256SUMS|` + regexp.QuoteMeta(name) + `_.+_(linux|darwin|windows)_[a-z0-9]+\.(tar\.gz|zip))$`
	return regexp.MustCompile(re).MatchString(file)
}

// run builds every target, writes its archive and then SHA256SUMS.
func run(o options) error {
	var docs []member
	for _, d := range o.docs {
		b, err := os.ReadFile(filepath.Join(o.module, d))
		if err != nil {
			return err
		}
		docs = append(docs, member{name: filepath.Base(d), mode: docMode, data: b})
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	old, err := os.ReadDir(o.out)
	if err != nil {
		return err
	}
	for _, e := range old {
		if e.Type().IsRegular() && isArtifact(e.Name(), o.name) {
			if err := os.Remove(filepath.Join(o.out, e.Name())); err != nil {
				return err
			}
		}
	}
	tmp, err := os.MkdirTemp("", "kmeta-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	sums := map[string]string{} // archive name → hex SHA-256
	for _, t := range o.targets {
		exe := o.name
		if t.goos == "windows" {
			exe += ".exe"
		}
		bin := filepath.Join(tmp, t.goos+"_"+t.goarch, exe)
		if err := build(o, t, bin); err != nil {
			return err
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		members := append([]member{{name: exe, mode: exeMode, data: data}}, docs...)
		dir := fmt.Sprintf("%s_%s_%s_%s", o.name, strings.TrimPrefix(o.version, "v"), t.goos, t.goarch)
		name, write := dir+".tar.gz", writeTarGz
		if t.goos == "windows" {
			name, write = dir+".zip", writeZip
		}
		var buf bytes.Buffer
		if err := write(&buf, dir, members, o.mtime); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.out, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(buf.Bytes())
		sums[name] = hex.EncodeToString(sum[:])
		fmt.Fprintf(o.log, "%s  %s (%d bytes)\n", t, filepath.Join(o.out, name), buf.Len())
	}
	// sha256sum's format (the hash, two spaces, the name), sorted by name.
	var list bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(sums)) {
		fmt.Fprintf(&list, "%s  %s\n", sums[name], name)
	}
	if err := os.WriteFile(filepath.Join(o.out, "SHA256SUMS"), list.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(o.log, "wrote %s\n", filepath.Join(o.out, "SHA256SUMS"))
	return nil
}

// build compiles o.pkg for t into bin (see doc.go for why each flag).
func build(o options, t target, bin string) error {
	ldflags := strings.TrimSpace(o.ldflags + " -buildid=")
	cmd := exec.Command(o.goCmd, "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, o.pkg)
	cmd.Dir = o.module
	// Later entries win over the inherited ones.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.goos, "GOARCH="+t.goarch,
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s for %s: %w\n%s", o.pkg, t, err, stderr.Bytes())
	}
	if _, err := os.Stat(bin); err != nil {
		return errors.Join(fmt.Errorf("go build %s for %s wrote no binary", o.pkg, t), err)
	}
	return nil
}
