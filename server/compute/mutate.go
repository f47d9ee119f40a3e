package compute

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

// What every mutation of every resource shares: its requestId, its accept step and the
// operation it starts (or only checks, validateOnly), and the lifecycle of what it creates
// or deletes.

// checkRequestID accepts a missing requestId or a UUID other than the nil UUID, and
// returns it in lower case, so that a retry spelling it in upper case is the same request.
// The validator has matched the requestId against the canonical pattern (8-4-4-4-12 hex
// digits), so lower case is the only difference two spellings of one UUID can have.
func checkRequestID(id *gen.RequestIdQuery) (string, error) {
	if id == nil {
		return "", nil
	}
	s := strings.ToLower(*id)
	if s == "00000000-0000-0000-0000-000000000000" {
		return "", invalidField("requestId", fmt.Sprintf("Invalid value for field 'requestId': '%s'. The requestId must be a valid UUID other than the zero UUID.", s))
	}
	return s, nil
}

// mutate runs a mutation's accept step and starts its operation, in scope (the project's
// global operations when ""), in one transaction. A requestId seen before in the scope
// returns the original operation and changes nothing.
func (s *Server) mutate(ctx context.Context, project, scope, requestID string, accept func(tx *store.Tx) (operations.Start, error)) (operations.Record, error) {
	if scope == "" {
		scope = globalScope(project)
	}
	var op operations.Record
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		if prior, ok := s.ops.Existing(tx, scope, requestID); ok {
			op = prior
			return nil
		}
		start, err := accept(tx)
		if err != nil {
			return err
		}
		start.Scope, start.RequestID, start.User = scope, requestID, userFrom(ctx)
		op, err = s.ops.Begin(tx, start)
		return err
	})
	return op, err
}

// errValidateOnly rolls back a mutation that was only to be checked.
var errValidateOnly = errors.New("compute: validateOnly")

// validateOnly decides a mutation as mutate does, the operation it starts included, and
// then rolls every change back, the operation's record and its requestId too
// (validateOnly=true). The answer is an operation with only its kind: the Google Cloud CLI
// takes that for a dry run's and waits on any other operation, and there is nothing to
// wait for. Deciding it here, renderOperation has no links to add and leaves it so.
func (s *Server) validateOnly(ctx context.Context, project, scope, _ string, accept func(tx *store.Tx) (operations.Start, error)) (operations.Record, error) {
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		start, err := accept(tx)
		if err != nil {
			return err
		}
		start.Scope, start.User = scope, userFrom(ctx)
		if _, err = s.ops.Begin(tx, start); err != nil {
			return err
		}
		return errValidateOnly
	})
	if !errors.Is(err, errValidateOnly) {
		return operations.Record{}, err
	}
	return operations.Record{Op: gen.Operation{Kind: ptr(gen.OperationKindComputeOperation)}}, nil
}

// born is the lifecycle of a resource created in tx: the next place in the order of
// creation, pending until its insert's operation is DONE.
func (s *Server) born(tx *store.Tx, pending bool) Lifecycle {
	return Lifecycle{Seq: tx.Next("compute"), Pending: pending}
}

// finishInsert is an insert's finisher: the resource stored under path (what names its
// kind in errors) is no longer pending. One stored finished already, because its operation
// finished at accept, is left as it is.
func finishInsert[R any, P record[R]](tx *store.Tx, t *store.Table[R], path, what string) error {
	r, ok := t.Get(tx, path)
	if !ok {
		return fmt.Errorf("%s %s: %w", what, path, store.ErrNotFound)
	}
	if l := P(&r).life(); l.Pending {
		l.Pending = false
		return t.Put(tx, path, r)
	}
	return nil
}

// beginDelete refuses to delete r, stored in t under path, while another delete of it runs
// (resourceNotReady), and marks it as being deleted until its delete's operation finishes.
// With operations that finish at accept the finisher deletes r at once, in the same
// transaction, so there is nothing to mark. A delete refused later in its transaction rolls
// the mark back.
func beginDelete[R any, P record[R]](s *Server, tx *store.Tx, t *store.Table[R], path string, r R) error {
	l := P(&r).life()
	if l.Deleting {
		return notReady(path)
	}
	if s.ops.FinishesAtAccept() {
		return nil
	}
	l.Deleting = true
	return t.Put(tx, path, r)
}
