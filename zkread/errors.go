package zkread

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread/zkfile"
)

// Sentinel errors; every error the package returns wraps one of them (or a
// zkfile sentinel for offline files).
var (
	// ErrNoNode: a required znode (the chroot, typically) does not exist.
	ErrNoNode = errors.New("zkread: znode does not exist")
	// ErrAuth: the credentials were rejected, or are evidently wrong (a
	// znode whose ACL grants the authenticated user read access refused it).
	ErrAuth = errors.New("zkread: authentication failed")
	// ErrNoAuth: znodes could not be read for lack of permission.
	ErrNoAuth = errors.New("zkread: not authorized to read znodes")
	// ErrMalformed: a znode's data is not what Kafka writes there.
	ErrMalformed = errors.New("zkread: malformed znode")
	// ErrUnreachable: no ZooKeeper server answered within the session
	// timeout.
	ErrUnreachable = errors.New("zkread: zookeeper unreachable")
	// ErrSource: a source string cannot be parsed or its kind inferred.
	ErrSource = errors.New("zkread: bad source")
	// ErrPastEnd: a point in time (a zxid) past the end of what a data dir
	// holds.
	ErrPastEnd = errors.New("zkread: point in time past the end")
	// ErrDump: a dump file is not a kmeta zk dump.
	ErrDump = errors.New("zkread: bad dump file")
	// ErrTooLarge: a live read met a znode longer than jute.maxbuffer
	// lets ZooKeeper read (LiveOptions.MaxBuffer).
	ErrTooLarge = errors.New("zkread: znode larger than jute.maxbuffer")

	// File-level sentinels, re-exported from zkfile.
	ErrCorrupt  = zkfile.ErrCorrupt
	ErrTornTail = zkfile.ErrTornTail
)

// ZnodeError is an error about one znode.
// Messages never carry a znode's data: the data may be a secret (a SCRAM
// credential, a password config), so they name the znode and the field.
type ZnodeError struct {
	Path string // relative to the chroot
	Msg  string
	Err  error
	// File and Offset locate the znode's data for an offline read: the
	// snapshot or transaction log and the byte offset of the record. File
	// is "" for live and dump reads.
	File   string
	Offset int64
}

func (e *ZnodeError) Error() string {
	where := model.Shown(e.Path)
	if e.File != "" {
		where += fmt.Sprintf(" (%s, offset %d)", model.Shown(e.File), e.Offset)
	}
	if e.Msg == "" {
		return fmt.Sprintf("znode %s: %s", where, model.Shown(fmt.Sprint(e.Err)))
	}
	return fmt.Sprintf("znode %s: %s: %s", where, model.Shown(e.Msg), model.Shown(fmt.Sprint(e.Err)))
}

// Location is where the error applies, for a model.Finding.
func (e *ZnodeError) Location() *model.Location {
	l := model.NoLocation()
	l.Znode = e.Path
	if e.File != "" {
		l.File, l.Position = e.File, e.Offset
	}
	return &l
}

func (e *ZnodeError) Unwrap() error { return e.Err }

// NoAuthError lists the znodes a live read was refused. It unwraps to
// ErrNoAuth, and to ErrAuth too when credentials were given and the ACLs
// show they should have worked.
type NoAuthError struct {
	Paths []string
	// WrongCredentials: the ACL of a refused znode grants the user the
	// credentials name, so the password must be wrong.
	WrongCredentials bool
	User             string
}

func (e *NoAuthError) Error() string {
	shown := e.Paths
	more := ""
	if len(shown) > 5 {
		shown, more = shown[:5], fmt.Sprintf(" and %d more", len(e.Paths)-5)
	}
	quoted := make([]string, len(shown))
	for i, p := range shown {
		quoted[i] = model.Shown(p)
	}
	msg := fmt.Sprintf("zkread: not authorized to read %d znodes: %s%s", len(e.Paths), strings.Join(quoted, ", "), more)
	switch {
	case e.WrongCredentials:
		msg += fmt.Sprintf(" (the ACLs grant digest user %q access the session does not have, so the password given with --zk-auth is wrong)", e.User)
	case e.User != "":
		msg += fmt.Sprintf(" (with credentials for digest user %q: the password may be wrong, or the user lacks READ on them)", e.User)
	default:
		msg += " (no credentials given: try --zk-auth user:password)"
	}
	return msg
}

func (e *NoAuthError) Unwrap() []error {
	if e.WrongCredentials {
		return []error{ErrNoAuth, ErrAuth}
	}
	return []error{ErrNoAuth}
}

// MalformedError lists every malformed znode a Lenient decode skipped.
type MalformedError struct {
	Errs []*ZnodeError
}

func (e *MalformedError) Error() string {
	parts := make([]string, len(e.Errs))
	for i, z := range e.Errs {
		parts[i] = z.Error()
	}
	return fmt.Sprintf("%d malformed znodes: %s", len(e.Errs), strings.Join(parts, "; "))
}

func (e *MalformedError) Unwrap() error { return ErrMalformed }

// tooLargeError refuses a tree holding a znode whose data is longer than
// a data dir read accepts with this jute.maxbuffer (zkfile.LengthLimit):
// path is the first such path in sorted order, size its data's length.
func tooLargeError(path string, size, limit int) error {
	return &ZnodeError{Path: path, Msg: "data", Err: fmt.Errorf("%w: %d bytes, more than jute.maxbuffer lets ZooKeeper read (%d)", ErrTooLarge, size, limit)}
}
