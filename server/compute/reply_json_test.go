package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/jsonout/jsonouttest"
	"github.com/understudy-dev/understudy/internal/store"
)

// TestAppendOperationMatchesEncodingJSON: for random values of gen.Operation (every member,
// the rare ones cleared half of the time so that the hand-written path runs),
// appendOperation writes what encoding/json writes, or declines.
func TestAppendOperationMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	written := 0
	for i := range 20000 {
		var op gen.Operation
		jsonouttest.Fill(rng, reflect.ValueOf(&op).Elem())
		if i%2 == 0 {
			op.GetVersionOperationMetadata, op.InstancesBulkInsertOperationMetadata = nil, nil
			op.SetCommonInstanceMetadataOperationMetadata, op.Warnings = nil, nil
			if op.Error != nil {
				for j := range op.Error.Errors {
					op.Error.Errors[j].ErrorDetails = nil
				}
			}
		}
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(&op); err != nil {
			t.Fatal(err)
		}
		got, ok := appendOperation(nil, &op)
		if !ok {
			continue
		}
		written++
		if !bytes.Equal(append(got, '\n'), want.Bytes()) {
			t.Fatalf("value %d:\n got %s\nwant %s", i, got, want.Bytes())
		}
	}
	if written < 5000 {
		t.Fatalf("appendOperation wrote only %d of 20000 values", written)
	}
}

// TestOperationRepliesAreHandWritten: the operations the handlers answer (with or without
// a failure) take appendOperation's path, not encoding/json's.
func TestOperationRepliesAreHandWritten(t *testing.T) {
	now := time.Now()
	s := &Server{cfg: Config{PublicURL: "http://h"}}
	for _, op := range []store.Operation{
		{ID: "1", Name: "operation-1", Scope: "projects/p/global", Project: "p", OperationType: "insert", Status: "PENDING", InsertTime: now},
		{ID: "2", Name: "operation-2", Scope: "projects/p/regions/r", Project: "p", Status: "DONE", InsertTime: now, StartTime: now, EndTime: now,
			Failure: &store.OperationFailure{HTTPStatus: 400, Errors: []store.OperationError{{Code: "X", Message: "m"}}}},
	} {
		if _, ok := appendOperation(nil, &s.wireOperation(context.Background(), op).Operation); !ok {
			t.Errorf("operation %+v is left to encoding/json", op)
		}
	}
}
