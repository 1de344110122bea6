package features

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	version "github.com/hashicorp/go-version"
)

var ivName = regexp.MustCompile(`^(\d+)\.(\d+)-IV(\d+)$`)

// LevelFor resolves what a user or Kafka config may call a metadata
// version:
//
//   - a level name, matched exactly: "3.7-IV2";
//   - a release, "3.7", "3.7.2" or "4.2.0-rc1": like Kafka's
//     fromVersionString, only major.minor counts and it maps to the release's
//     latest production level ("3.7" → 3.7-IV4). A release with no
//     production level (e.g. "4.5" in 4.4.0) is unknown;
//   - a bare feature level number: "17".
//
// Releases before 3.0 and "3.0-IV0" are inter.broker.protocol.version values
// with no KRaft level; they return ErrNotKRaft.
func (c *Catalog) LevelFor(s string) (Level, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Level{}, fmt.Errorf("%w: empty version", ErrUnknownLevel)
	}
	if n, err := strconv.ParseInt(s, 10, 16); err == nil {
		if l, ok := c.ByLevel(int16(n)); ok {
			return l, nil
		}
		return Level{}, fmt.Errorf("%w: level %d is not in the %s catalog (%s)", ErrUnknownLevel, n, c.Name, c.rangeText())
	}
	if m := ivName.FindStringSubmatch(s); m != nil {
		for _, l := range c.Levels {
			if l.Name == s {
				return l, nil
			}
		}
		if major, _ := strconv.Atoi(m[1]); major < 3 || s == "3.0-IV0" {
			return Level{}, fmt.Errorf("%w: %q is an inter.broker.protocol.version only", ErrNotKRaft, s)
		}
		return Level{}, fmt.Errorf("%w: %q (%s)", ErrUnknownLevel, s, c.rangeText())
	}
	v, err := version.NewVersion(s)
	if err != nil || !strings.Contains(s, ".") || strings.HasPrefix(s, "v") {
		return Level{}, fmt.Errorf("%w: %q is neither a release, a level name nor a level number", ErrUnknownLevel, s)
	}
	seg := v.Segments()
	if seg[0] < 3 {
		return Level{}, fmt.Errorf("%w: %q is an inter.broker.protocol.version only", ErrNotKRaft, s)
	}
	release := fmt.Sprintf("%d.%d", seg[0], seg[1])
	var found *Level
	for i := range c.Levels {
		l := &c.Levels[i]
		if l.Release == release && l.Production {
			found = l
		}
	}
	if found == nil {
		return Level{}, fmt.Errorf("%w: release %q has no production level in the %s catalog (%s)", ErrUnknownLevel, s, c.Name, c.rangeText())
	}
	return *found, nil
}

func (c *Catalog) rangeText() string {
	return fmt.Sprintf("known levels %s (%d) to %s (%d)", c.Levels[0].Name, c.Levels[0].Level, c.Latest().Name, c.Latest().Level)
}
