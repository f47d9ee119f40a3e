package store

import (
	"slices"
	"time"
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
	Failure *OperationFailure
}

// OperationFailure is how an operation ends when it fails: DONE with these errors.
type OperationFailure struct {
	HTTPStatus  int
	HTTPMessage string
	Errors      []OperationError
}

// OperationError is one entry of an operation's error.errors[].
type OperationError struct {
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
func (o Operation) Key() string { return o.Scope + "|" + o.Name }

func cloneOperation(o Operation) Operation {
	if o.Failure != nil {
		f := *o.Failure
		f.Errors = slices.Clone(f.Errors)
		o.Failure = &f
	}
	return o
}

// canonicalOperation shares what operations repeat: the scope (built for each request),
// the project (part of the request path: a copy of its own lets the request line go), the
// caller and the description. Kind, OperationType and Status are the engine's constants
// already.
func canonicalOperation(o Operation, s *sharer) Operation {
	o.Scope, o.Project = s.share(0, o.Scope), s.share(1, o.Project)
	o.User, o.Description = s.share(2, o.User), s.share(3, o.Description)
	return o
}

// unixNanos is t as a number that orders times. (Times before 1970 do not occur: the clock
// only moves forward from now.)
func unixNanos(t time.Time) uint64 { return uint64(max(t.UnixNano(), 0)) }

// Operations holds the operations table.
type Operations struct {
	// Ops is keyed by Operation.Key. Put keeps the key it is given, so a key must be a
	// string of its own, never cut from a longer one that the operation does not keep whole
	// (the engine's newKey follows the key with the operation's id).
	Ops *Table[Operation]
	// ByID finds an operation by scope and numeric id.
	ByID *Unique[Operation]
	// ByRequestID finds the operation a requestId started, within its scope (a project's
	// global operations, or its operations in one region): a global method never answers
	// with a regional operation, which the client would then look for among the global ones.
	ByRequestID *Unique[Operation]
	// InOrder lists a scope's operations in acceptance order (Seq within the scope).
	InOrder *Numbered[Operation]
	// Due orders unfinished, timed operations by when they turn DONE (UnixNanos of DueTime,
	// group "").
	Due *Numbered[Operation]
	// Finished orders finished operations by end time, for retention (UnixNanos of
	// EndTime, group "").
	Finished *Numbered[Operation]
}

// NewOperations adds the operations table to db.
func NewOperations(db *DB) *Operations {
	t := NewTable[Operation](db, "operations", cloneOperation)
	t.canonical = canonicalOperation
	t.madeKeys = true // the engine's keys are Operation.Key's
	return &Operations{
		Ops:  t,
		ByID: t.AddUnique("id", func(b []byte, o Operation) ([]byte, bool) { return appendKey(b, o.Scope, o.ID), true }),
		ByRequestID: t.AddUnique("requestId", func(b []byte, o Operation) ([]byte, bool) {
			return AppendRequestIDKey(b, o.Scope, o.ClientOperationID), o.ClientOperationID != ""
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

// RequestIDKey is the ByRequestID key of a requestId: requestIds are unique per operation
// scope (Operation.Scope).
func RequestIDKey(scope, requestID string) string { return scope + "|" + requestID }

// AppendRequestIDKey appends RequestIDKey(scope, requestID) to b, for GetBytes.
func AppendRequestIDKey(b []byte, scope, requestID string) []byte {
	return appendKey(b, scope, requestID)
}

// UnixNanos is the number by which Due and Finished order times, for their scans.
func UnixNanos(t time.Time) uint64 { return unixNanos(t) }
