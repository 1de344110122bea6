package migrate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteConfigMode: a generated config holds the node's passwords in
// plain text: it is created mode 0600, and so is its replacement.
func TestWriteConfigMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "server.properties")
	for i, data := range []string{"ssl.key.password=a\n", "ssl.key.password=b\n"} {
		if _, err := WriteConfig(path, []byte(data), i > 0, false); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("write %d: mode %v, want 0600", i, st.Mode().Perm())
		}
	}
}

// TestCheckConfigOut: the output may not be the input under any name.
func TestCheckConfigOut(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "server.properties")
	if err := os.WriteFile(in, []byte("broker.id=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.properties")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, out := range []string{in, link, "server.properties", "./server.properties"} {
		if err := CheckConfigOut(out, in); !errors.Is(err, ErrBadInput) {
			t.Errorf("--out %s: %v, want ErrBadInput", out, err)
		}
	}
	other := filepath.Join(dir, "kraft.properties")
	if err := CheckConfigOut(other, in); err != nil {
		t.Errorf("a new file: %v", err)
	}
	if err := os.WriteFile(other, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckConfigOut(other, in); err != nil {
		t.Errorf("another existing file: %v", err)
	}
}
