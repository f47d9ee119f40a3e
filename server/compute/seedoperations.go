package compute

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/go-json-experiment/json"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// seedOperation loads a finished operation of project, as a state export records it (an
// entry of compute.projects.<project>.operations): the Operation as a read returns it, its
// times in RFC 3339 and its targetLink the target's path under /compute/v1/, with its
// "sequence". Its region may be a name. It is read back by its name or id, listed, and found
// by a retry with its requestId (clientOperationId) until its retention runs out, which is
// counted from endTime. Only DONE operations can be seeded. On error it names the member at
// fault.
func (s *Server) seedOperation(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	seq, field, err := takeCount(body, "sequence")
	if err != nil {
		return field, err
	}
	scope := globalScope(project)
	if v, given := body["region"]; given {
		region, _ := v.(string)
		if strings.HasPrefix(region, "projects/") || strings.Contains(region, "://") {
			region = regionOf(region)
		}
		if _, err := s.runSeedCheck("regionOperations.list", "GET", project, region, nil); err != nil {
			return "region", err
		}
		scope = regionScope(project, region)
		delete(body, "region")
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	var op gen.Operation
	if err := json.Unmarshal(raw, &op, json.RejectUnknownMembers(true)); err != nil {
		var se *json.SemanticError
		if errors.As(err, &se) {
			field := strings.ReplaceAll(strings.TrimPrefix(string(se.JSONPointer), "/"), "/", ".")
			if errors.Is(err, json.ErrUnknownName) {
				return field, errors.New("unknown field")
			}
			return field, fmt.Errorf("want %s", se.GoType)
		}
		return "", err
	}
	name, id := deref(op.Name), deref(op.Id)
	switch {
	case name == "":
		return "name", errors.New("required: the operation's name")
	case !seedDigits.MatchString(id):
		return "id", fmt.Errorf("want the operation's id as a string of digits (quoted, as an export writes it), got %q", id)
	case deref(op.OperationType) == "":
		return "operationType", errors.New("required: what the operation did (insert, delete, setLabels, patch)")
	case deref(op.TargetLink) != "" && !strings.HasPrefix(*op.TargetLink, "projects/"):
		return "targetLink", fmt.Errorf("%q: want the target's path under /compute/v1/, projects/...", *op.TargetLink)
	}
	for _, t := range []struct {
		field string
		value **string
	}{{"insertTime", &op.InsertTime}, {"startTime", &op.StartTime}, {"endTime", &op.EndTime}} {
		if *t.value == nil && t.field == "startTime" {
			op.StartTime = op.InsertTime
			continue
		}
		at, err := timefmt.Parse(deref(*t.value))
		if err != nil {
			return t.field, err
		}
		*t.value = ptr(timestamp(at))
	}
	op.Kind, op.SelfLink, op.CreationTimestamp, op.Region = ptr(gen.OperationKindComputeOperation), ptr(scope+"/operations/"+name), op.InsertTime, nil
	if strings.Contains(scope, "/regions/") {
		op.Region = ptr(scope)
	}
	if op.ClientOperationId != nil {
		op.ClientOperationId = ptr(strings.ToLower(*op.ClientOperationId))
	}
	if err := s.ops.Load(tx, operations.Record{Op: op, Seq: seq}); err != nil {
		var le *operations.LoadError
		if errors.As(err, &le) {
			return le.Member, le.Err
		}
		return "", err
	}
	return "", nil
}
