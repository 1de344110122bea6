package controllers

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// ErrBadSpec: a --controllers value that names no usable voters.
var ErrBadSpec = errors.New("controllers: bad input")

// Listener is the listener name generated configs give the controller
// quorum.
const Listener = "CONTROLLER"

// Spec is one voter of the target quorum.
type Spec struct {
	ID   int32  `json:"id"`
	Host string `json:"host"`
	Port int    `json:"port"`
	// DirectoryID is the metadata log dir's directory.id: given as the
	// fourth part of ID@HOST:PORT:DIRECTORY_ID (Kafka's
	// --initial-controllers syntax), else derived from the cluster id and
	// the node id, so a rerun writes the same file.
	DirectoryID model.UUID `json:"directoryId"`
	// DirectoryGiven is true when the operator gave DirectoryID.
	DirectoryGiven bool `json:"directoryGiven,omitempty"`
}

// Parse parses "ID@HOST:PORT[:DIRECTORY_ID],..."
// (controller.quorum.voters, or Kafka's --initial-controllers with the
// directory ids), sorted by id. Errors wrap ErrBadSpec.
func Parse(s string) ([]Spec, error) {
	var out []Spec
	seen := map[int32]bool{}
	const want = "want ID@HOST:PORT or ID@HOST:PORT:DIRECTORY_ID"
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		idS, hp, ok := strings.Cut(part, "@")
		id, err := strconv.ParseInt(idS, 10, 32)
		if !ok || err != nil || id < 0 {
			return nil, fmt.Errorf("%w: controller %q: %s", ErrBadSpec, part, want)
		}
		c := Spec{ID: int32(id)}
		host, portS, err := net.SplitHostPort(hp)
		if err != nil {
			// HOST:PORT:DIRECTORY_ID: a directory id never holds ':'.
			i := strings.LastIndexByte(hp, ':')
			if i < 0 {
				return nil, fmt.Errorf("%w: controller %q: %s", ErrBadSpec, part, want)
			}
			u, uerr := model.ParseUUID(hp[i+1:])
			if uerr != nil || reservedUUID(u) {
				return nil, fmt.Errorf("%w: controller %q: directory id %q is not a usable Kafka Uuid", ErrBadSpec, part, hp[i+1:])
			}
			c.DirectoryID, c.DirectoryGiven = u, true
			host, portS, err = net.SplitHostPort(hp[:i])
		}
		port, perr := strconv.Atoi(portS)
		if err != nil || perr != nil || port <= 0 || port > 65535 || host == "" {
			return nil, fmt.Errorf("%w: controller %q: %s", ErrBadSpec, part, want)
		}
		if seen[c.ID] {
			return nil, fmt.Errorf("%w: controller id %d given twice", ErrBadSpec, id)
		}
		seen[c.ID] = true
		c.Host, c.Port = host, port
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Spec) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// reservedUUID reports the ids Kafka reserves (msb 0, lsb below 100:
// MIGRATING, UNASSIGNED, LOST and the rest).
func reservedUUID(u model.UUID) bool {
	for _, b := range u[:15] {
		if b != 0 {
			return false
		}
	}
	return u[15] < 100
}

// Voters renders controller.quorum.voters.
func Voters(cs []Spec) string {
	var vs []string
	for _, c := range cs {
		vs = append(vs, fmt.Sprintf("%d@%s", c.ID, net.JoinHostPort(c.Host, strconv.Itoa(c.Port))))
	}
	return strings.Join(vs, ",")
}

// BootstrapServers renders controller.quorum.bootstrap.servers.
func BootstrapServers(cs []Spec) string {
	var vs []string
	for _, c := range cs {
		vs = append(vs, net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
	}
	return strings.Join(vs, ",")
}

// Initial renders Kafka's --initial-controllers value
// (ID@HOST:PORT:DIRECTORY_ID,...).
func Initial(cs []Spec) string {
	var vs []string
	for _, c := range cs {
		vs = append(vs, fmt.Sprintf("%d@%s:%s", c.ID, net.JoinHostPort(c.Host, strconv.Itoa(c.Port)), c.DirectoryID))
	}
	return strings.Join(vs, ",")
}

// DirName is the name of controller id's metadata log dir under the
// directory kmeta writes into: controller-ID.
func DirName(id int32) string { return "controller-" + strconv.Itoa(int(id)) }

// Dir is where migrate apply and quorum rebuild write controller id's
// metadata log dir: OUT/controller-ID.
func Dir(out string, id int32) string { return filepath.Join(out, DirName(id)) }
