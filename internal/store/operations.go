package store

import "time"

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

// operationCodec keeps an operation's fields in the order of the struct; a failure's
// error details, of no fixed shape, as JSON.
var operationCodec = Codec[Operation]{
	Encode: func(e *Enc, o Operation) {
		e.String(o.Scope)
		e.String(o.Project)
		e.String(o.Name)
		e.String(o.ID)
		e.Uint(o.Seq)
		e.String(o.Kind)
		e.String(o.OperationType)
		e.String(o.TargetLink)
		e.String(o.TargetID)
		e.String(o.Target)
		e.String(o.User)
		e.String(o.ClientOperationID)
		e.String(o.Description)
		e.String(o.Status)
		e.Int(o.Progress)
		e.Time(o.InsertTime)
		e.Time(o.StartTime)
		e.Time(o.EndTime)
		e.Time(o.DueTime)
		e.Bool(o.Manual)
		f := o.Failure
		e.Bool(f != nil)
		if f == nil {
			return
		}
		e.Int(f.HTTPStatus)
		e.String(f.HTTPMessage)
		e.Len(len(f.Errors), f.Errors == nil)
		for _, fe := range f.Errors {
			e.String(fe.Code)
			e.String(fe.Message)
			e.String(fe.Location)
			e.JSON(fe.Details)
		}
	},
	Decode: func(d *Dec) Operation {
		o := Operation{Scope: d.String(), Project: d.String(), Name: d.String(), ID: d.String(), Seq: d.Uint(),
			Kind: d.String(), OperationType: d.String(), TargetLink: d.String(), TargetID: d.String(),
			Target: d.String(), User: d.String(), ClientOperationID: d.String(), Description: d.String(),
			Status: d.String(), Progress: d.Int(), InsertTime: d.Time(), StartTime: d.Time(), EndTime: d.Time(),
			DueTime: d.Time(), Manual: d.Bool()}
		if !d.Bool() {
			return o
		}
		f := &OperationFailure{HTTPStatus: d.Int(), HTTPMessage: d.String()}
		if n, isNil := d.Len(); !isNil {
			f.Errors = make([]OperationError, n)
			for i := range f.Errors {
				fe := &f.Errors[i]
				fe.Code, fe.Message, fe.Location = d.String(), d.String(), d.String()
				d.JSON(&fe.Details)
			}
		}
		o.Failure = f
		return o
	},
}

// unixNanos is t as a number that orders times. (Times before 1970 do not occur: the clock
// only moves forward from now.)
func unixNanos(t time.Time) uint64 { return uint64(max(t.UnixNano(), 0)) }

// Operations holds the operations table.
type Operations struct {
	// Ops is keyed by Operation.Key.
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
	t := NewTable(db, "operations", operationCodec)
	return &Operations{
		Ops:  t,
		ByID: t.AddUnique("id", func(b []byte, o Operation) ([]byte, bool) { return AppendIDKey(b, o.Scope, o.ID), true }),
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

// AppendIDKey appends the ByID key of an operation's id in scope to b: ByID is defined with
// it, and Prepare reads ahead with it (TouchUnique).
func AppendIDKey(b []byte, scope, id string) []byte { return appendKey(b, scope, id) }

// UnixNanos is the number by which Due and Finished order times, for their scans.
func UnixNanos(t time.Time) uint64 { return unixNanos(t) }
