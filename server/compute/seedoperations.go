package compute

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store/compat"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// SeedOperation is a finished operation of a project, as a state export records it: an
// entry of compute.projects.<project>.operations, in the Operation resource's own words
// (its times exact, in RFC 3339). It is read back by its name or id, listed, and found by
// a retry with its requestId (clientOperationId) until its retention runs out, which is
// counted from endTime. Only DONE operations can be seeded.
type SeedOperation struct {
	// Region is the region of a regional operation; empty for a global one.
	Region string `yaml:"region,omitempty"`
	Name   string `yaml:"name"`
	ID     string `yaml:"id"`
	// Sequence is the operation's place in the order of acceptance, which lists and their
	// page tokens carry (0: after every operation the seed numbers).
	Sequence      uint64 `yaml:"sequence,omitempty"`
	OperationType string `yaml:"operationType"`
	// TargetLink is the target's path under /compute/v1/ (projects/...): it is shown as a
	// URL of the server that serves it.
	TargetLink          string `yaml:"targetLink,omitempty"`
	TargetID            string `yaml:"targetId,omitempty"`
	User                string `yaml:"user,omitempty"`
	ClientOperationID   string `yaml:"clientOperationId,omitempty"`
	Description         string `yaml:"description,omitempty"`
	Status              string `yaml:"status"`
	InsertTime          string `yaml:"insertTime"`
	StartTime           string `yaml:"startTime,omitempty"`
	EndTime             string `yaml:"endTime"`
	HTTPErrorStatusCode int    `yaml:"httpErrorStatusCode,omitempty"`
	HTTPErrorMessage    string `yaml:"httpErrorMessage,omitempty"`
	// Error is how the operation failed, when it did.
	Error *SeedOperationError `yaml:"error,omitempty"`
}

// SeedOperationError is a failed operation's error.
type SeedOperationError struct {
	Errors []SeedOperationErrorItem `yaml:"errors"`
}

// SeedOperationErrorItem is one of a failed operation's errors.
type SeedOperationErrorItem struct {
	Code     string `yaml:"code"`
	Message  string `yaml:"message,omitempty"`
	Location string `yaml:"location,omitempty"`
	// ErrorDetails are as the Operation resource shows them (errorInfo, quotaInfo, ...).
	ErrorDetails []map[string]any `yaml:"errorDetails,omitempty"`
}

// seedOperation loads a recorded operation of project. On error it names the member at
// fault.
func (s *Server) seedOperation(tx *store.Tx, project string, so SeedOperation) (string, error) {
	scope := globalScope(project)
	if so.Region != "" {
		if _, err := runSeedCheck("regionOperations.list", "GET", project, so.Region, nil); err != nil {
			return "region", err
		}
		scope = regionScope(project, so.Region)
	}
	switch {
	case so.Name == "":
		return "name", errors.New("required: the operation's name")
	case !seedDigits.MatchString(so.ID):
		return "id", fmt.Errorf("want the operation's id as a string of digits (quoted, as an export writes it), got %q", so.ID)
	case so.OperationType == "":
		return "operationType", errors.New("required: what the operation did (insert, delete, setLabels, patch)")
	case so.TargetLink != "" && !strings.HasPrefix(so.TargetLink, "projects/"):
		return "targetLink", fmt.Errorf("%q: want the target's path under /compute/v1/, projects/...", so.TargetLink)
	}
	op := operations.Operation{Scope: scope, Project: project, Name: so.Name, ID: so.ID, Seq: so.Sequence,
		OperationType: so.OperationType, TargetLink: so.TargetLink, TargetID: so.TargetID, User: so.User,
		ClientOperationID: strings.ToLower(so.ClientOperationID), Description: so.Description, Status: so.Status}
	for _, t := range []struct {
		field, value string
		to           *time.Time
	}{{"insertTime", so.InsertTime, &op.InsertTime}, {"startTime", so.StartTime, &op.StartTime}, {"endTime", so.EndTime, &op.EndTime}} {
		if t.value == "" && t.field == "startTime" {
			continue
		}
		v, err := timefmt.Parse(t.value)
		if err != nil {
			return t.field, err
		}
		*t.to = v
	}
	if op.StartTime.IsZero() {
		op.StartTime = op.InsertTime
	}
	op.DueTime = op.EndTime
	if so.Error != nil || so.HTTPErrorStatusCode != 0 {
		f := &operations.Failure{HTTPStatus: so.HTTPErrorStatusCode, HTTPMessage: so.HTTPErrorMessage}
		if so.Error != nil {
			for _, e := range so.Error.Errors {
				f.Errors = append(f.Errors, operations.ErrorItem{Code: e.Code, Message: e.Message, Location: e.Location, Details: e.ErrorDetails})
			}
		}
		op.Failure = f
	}
	if err := s.ops.Load(tx, op); err != nil {
		field, msg, _ := strings.Cut(err.Error(), ": ")
		if field == "requestId" {
			field = "clientOperationId"
		}
		return field, errors.New(msg)
	}
	return "", nil
}
