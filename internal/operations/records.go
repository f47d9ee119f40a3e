package operations

import (
	"time"

	"github.com/understudy-dev/understudy/internal/store/compat"
)

// Operation is a stored long-running operation (compute's Operation resource).
type Operation struct {
	Scope             string // "projects/{p}/global" or "projects/{p}/regions/{r}": where it is listed
	Project           string
	Name              string // operation-...
	ID                string // random uint64, decimal
	Seq               uint64 // acceptance order, for lists
	Kind              string // what finishes it, e.g. "forwardingRules.insert"
	OperationType     string // insert, delete, patch, setLabels
	TargetLink        string
	TargetID          string
	Target            string // the key of the resource the finisher acts on
	User              string
	ClientOperationID string // the requestId, when given
	Description       string

	Status     string // PENDING, RUNNING, DONE
	Progress   int
	InsertTime time.Time
	StartTime  time.Time
	EndTime    time.Time
	DueTime    time.Time // when it turns DONE (delay mode)
	Manual     bool      // advances one step per read
	// Failure, decided at accept, is reported when the operation turns DONE.
	Failure *Failure
}

// Failure is how an operation ends when it fails: DONE with these errors.
type Failure struct {
	HTTPStatus  int
	HTTPMessage string
	Errors      []ErrorItem
}

// ErrorItem is one entry of an operation's error.errors[].
type ErrorItem struct {
	Code     string
	Message  string
	Location string
	// Details are error details as the wire has them (errorInfo, quotaInfo, help,
	// localizedMessage), kept as generic values.
	Details []map[string]any
}

// Done reports whether the operation has finished.
func (o Operation) Done() bool { return o.Status == "DONE" }

// Key is the operation's primary key.
func (o Operation) Key() string { return scopedKey(o.Scope, o.Name) }

// unixNanos is t as a number that orders times. (Times before 1970 do not occur: the clock
// only moves forward from now.)
func unixNanos(t time.Time) uint64 { return uint64(max(t.UnixNano(), 0)) }

// tables are the operations table and its indexes.
type tables struct {
	// Ops is keyed by Operation.Key.
	Ops *store.Table[Operation]
	// ByID finds an operation by scope and numeric id (scopedKey).
	ByID *store.Unique[Operation]
	// ByRequestID finds the operation a requestId started, within its scope (a project's
	// global operations, or its operations in one region): a global method never answers
	// with a regional operation, which the client would then look for among the global ones.
	ByRequestID *store.Unique[Operation]
	// InOrder lists a scope's operations in acceptance order (Seq within the scope).
	InOrder *store.Numbered[Operation]
	// Due orders unfinished, timed operations by when they turn DONE (unixNanos of DueTime,
	// group "").
	Due *store.Numbered[Operation]
	// Finished orders finished operations by end time, for retention (unixNanos of
	// EndTime, group "").
	Finished *store.Numbered[Operation]
}

func newTables(db *store.DB) *tables {
	t := store.NewTable[Operation](db, "operations")
	return &tables{
		Ops:  t,
		ByID: t.AddUnique("id", func(o Operation) (string, bool) { return scopedKey(o.Scope, o.ID), true }),
		ByRequestID: t.AddUnique("requestId", func(o Operation) (string, bool) {
			return scopedKey(o.Scope, o.ClientOperationID), o.ClientOperationID != ""
		}),
		InOrder: t.AddNumbered(func(o Operation) (string, uint64, bool) { return o.Scope, o.Seq, true }),
		Due: t.AddNumbered(func(o Operation) (string, uint64, bool) {
			return "", unixNanos(o.DueTime), !o.Done() && !o.Manual
		}),
		Finished: t.AddNumbered(func(o Operation) (string, uint64, bool) {
			return "", unixNanos(o.EndTime), o.Done()
		}),
	}
}

// scopedKey is the key of a name, an id or a requestId in an operation scope, where each is
// unique.
func scopedKey(scope, s string) string { return scope + "|" + s }
