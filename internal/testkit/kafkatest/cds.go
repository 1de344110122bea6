package kafkatest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
)

// Class data sharing. A JVM spends most of a short run, and a Kafka
// server most of its start, loading and verifying classes: about half of
// a tool's CPU time and 40% of a broker's until "Kafka Server started"
// (measured on 4.4.0: 2.6–2.9 s of CPU to 1.6 s). The JDK maps classes it
// archived earlier instead (AppCDS, a dynamic archive: JEP 350). The
// first run of each main class of a release writes the archive at exit
// (-XX:ArchiveClassesAtExit) to a temporary name, renamed into the cache
// when the JVM is gone, so a killed or concurrent run never leaves a torn
// archive; later runs map it (-XX:SharedArchiveFile). A missing, stale or
// damaged archive is ignored by the JVM without a word, so a run never
// depends on one. KMETA_JVM_CDS=0 turns it off.
//
// The JVM prints CDS warnings on stdout ("Pre JDK 6 class not supported
// by CDS" while dumping an archive of a release that ships old jars),
// where a test reads a tool's answer: -Xlog:cds*=off silences them, as
// the archive is an optimisation and never part of an answer.
const envCDS = "KMETA_JVM_CDS"

var cdsSeq atomic.Int64

const cdsQuiet = "-Xlog:cds*=off"

// cdsArchive is where a main class's archive of this release lives:
// <release dir>/cds/<kind>-<main class>.jsa.
func (d *Distribution) cdsArchive(server bool, mainClass string) string {
	kind := "tool"
	if server {
		kind = "server"
	}
	name := strings.NewReplacer("/", "_", "\\", "_").Replace(filepath.Base(mainClass))
	return filepath.Join(d.Dir, "cds", kind+"-"+name+".jsa")
}

// cdsArgs returns the JVM option that maps the archive, or, when there is
// none yet and the caller can finish it (dump), the option that writes it
// at exit and the temporary path finish renames.
func (d *Distribution) cdsArgs(server bool, mainClass string, dump bool) (opts []string, tmp string) {
	if os.Getenv(envCDS) == "0" || d.Dir == "" {
		return nil, ""
	}
	final := d.cdsArchive(server, mainClass)
	if _, err := os.Stat(final); err == nil {
		return []string{cdsQuiet, "-XX:SharedArchiveFile=" + final}, ""
	}
	if !dump {
		return nil, ""
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return nil, ""
	}
	tmp = fmt.Sprintf("%s.%d-%d.tmp", final, os.Getpid(), cdsSeq.Add(1))
	return []string{cdsQuiet, "-XX:ArchiveClassesAtExit=" + tmp}, tmp
}

// cdsFinish moves a dumped archive into place once its JVM is gone. A JVM
// killed by a signal (SIGKILL: a test's timeout, a grace period run out)
// may have stopped in the middle of writing it: that file is removed,
// never used.
func (d *Distribution) cdsFinish(server bool, mainClass, tmp string, ps *os.ProcessState) {
	if tmp == "" {
		return
	}
	if _, err := os.Stat(tmp); err != nil {
		return
	}
	if ps == nil {
		os.Remove(tmp)
		return
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); !ok || ws.Signaled() {
		os.Remove(tmp)
		return
	}
	if err := os.Rename(tmp, d.cdsArchive(server, mainClass)); err != nil {
		os.Remove(tmp)
	}
}
