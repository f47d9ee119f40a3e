package operations

import (
	"strings"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
)

// Record is a stored operation: the Operation resource as compute's get returns it, with
// its links (selfLink, targetLink, region) as paths under /compute/v1/ (projects/...),
// which the API makes URLs of the host a request names; and what the engine keeps beside
// it while it runs. Its primary key is its selfLink path.
type Record struct {
	Op gen.Operation `json:"operation"`
	// Seq is its place in the order of acceptance; it orders operations accepted in the
	// same millisecond, which their times do not.
	Seq uint64 `json:"sequence"`
	// Due is when a timed operation turns DONE (zero for a manual or finished one).
	Due time.Time `json:"due,omitzero"`
	// Manual operations advance one step per read.
	Manual bool `json:"manual,omitempty"`
	// Failure, decided at accept, is how the operation ends; once it is DONE its error is
	// the Operation's own.
	Failure *Failure `json:"failure,omitempty"`
}

// Failure is how an operation ends when it fails: DONE with these errors.
type Failure struct {
	HTTPStatus  int32                    `json:"httpErrorStatusCode"`
	HTTPMessage string                   `json:"httpErrorMessage"`
	Errors      []gen.OperationErrorItem `json:"errors"`
}

// Done reports whether the operation has finished.
func (r Record) Done() bool { return r.status() == gen.OperationStatusDONE }

func (r Record) status() gen.OperationStatus {
	if r.Op.Status == nil {
		return ""
	}
	return *r.Op.Status
}

// Scope is where the operation is listed: projects/{p}/global or projects/{p}/regions/{r}.
func (r Record) Scope() string {
	scope, _, _ := strings.Cut(deref(r.Op.SelfLink), "/operations/")
	return scope
}

// Project is the project the operation belongs to.
func (r Record) Project() string {
	rest := strings.TrimPrefix(deref(r.Op.SelfLink), "projects/")
	project, _, _ := strings.Cut(rest, "/")
	return project
}

// Name is the operation's name.
func (r Record) Name() string { return deref(r.Op.Name) }

// ID is the operation's numeric id, in decimal.
func (r Record) ID() string { return deref(r.Op.Id) }

// kind names the finisher of the operation: the collection of its target and what it
// does to it (forwardingRules.insert).
func (r Record) kind() string {
	path := strings.TrimRight(deref(r.Op.TargetLink), "/")
	i := strings.LastIndexByte(path, '/')
	j := strings.LastIndexByte(path[:max(i, 0)], '/')
	if i < 0 {
		return ""
	}
	return path[j+1:i] + "." + deref(r.Op.OperationType)
}

// tables are the engine's table and its indexes.
type tables struct {
	// ops are the records, keyed by their selfLink path.
	ops *store.Table[Record]
	// byID finds an operation by its scope and numeric id (scope/operations/{id}).
	byID *store.Index[Record]
	// byRequestID finds the operation a requestId started, within its scope (a project's
	// global operations, or its operations in one region): a global method never answers
	// with a regional operation, which the client would then look for among the global ones.
	byRequestID *store.Index[Record]
	// due orders running timed operations by when they turn DONE, and ended finished ones
	// by when they ended, for retention (nanoseconds since 1970). Advance reads them up to
	// now: a row is read only when it has work.
	due, ended *store.Index[Record]
}

func newTables(db *store.DB) *tables {
	t := &tables{
		byID: store.UniqueIndex("id", func(r Record) (string, bool) {
			return r.Scope() + "/operations/" + r.ID(), true
		}),
		byRequestID: store.UniqueIndex("requestId", func(r Record) (string, bool) {
			id := deref(r.Op.ClientOperationId)
			return scopedKey(r.Scope(), id), id != ""
		}),
		// The keys are made only for the rows an index holds: every operation is in one
		// of the two, and each Put asks both.
		due: store.OrderedIndex("due", func(r Record) (string, bool) {
			if r.Due.IsZero() || r.Done() {
				return "", false
			}
			return store.Uint(uint64(nanos(r.Due))), true
		}),
		ended: store.OrderedIndex("ended", func(r Record) (string, bool) {
			if !r.Done() {
				return "", false
			}
			return store.Uint(uint64(nanos(r.endTime()))), true
		}),
	}
	t.ops = store.NewTable(db, "operations", t.byID, t.byRequestID, t.due, t.ended)
	return t
}

// scopedKey is the key of a requestId in an operation scope, where it is unique.
func scopedKey(scope, s string) string { return scope + "|" + s }

// nanos is t as a number that orders times. (Times before 1970 do not occur: the clock
// only moves forward from now.)
func nanos(t time.Time) int64 { return max(t.UnixNano(), 0) }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }
