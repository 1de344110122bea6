// Command hello is the small program TestDistReproducible releases in
// place of kmeta: the same stamping, cheap to build.
package main

import "os"

var version = "dev"

func main() { os.Stdout.WriteString("hello " + version + "\n") }
