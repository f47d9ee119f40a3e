package authorization

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/validate"
)

// SeedAssignment is a role assignment that exists at start and again after every reset, as
// the seed file gives it and the state export writes it: an Assignment's JSON, that is the
// object a GET returns (name, and properties with the scope, the PUT's members and the
// computed ones) without what a read derives (id, type, systemData: ignored when given),
// plus createdByType and updatedByType. The computed members an entry gives (createdOn,
// createdBy, updatedOn, updatedBy and their types) are taken, as an export writes them; the
// others are made as a PUT by the seed would make them (at the start or reset, by
// understudy-seed, an Application). The properties' members may also be written beside name
// without "properties" around them (the form earlier seed files have).
type SeedAssignment map[string]any

// seedCaller is who created the seeded assignments.
var seedCaller = Caller{PrincipalID: "understudy-seed", Name: "understudy-seed", Type: "Application"}

// The lists of the seed file's authorization section, as SeedError names them (and
// SeedRoles).
const (
	SeedAssignments      = "roleAssignments"
	SeedManagementGroups = "managementGroups"
	SeedDirectory        = "directory"
)

// SeedError is a seed entry that breaks a rule of the API.
type SeedError struct {
	// Collection is the list the entry is in (one of the Seed* lists), Index its place in the
	// Config's list.
	Collection string
	Index      int
	// Field is the member at fault, dotted as the entry spells it (properties.description,
	// or description in the form without properties); "" for the whole entry.
	Field string
	Err   error
}

func (e *SeedError) Error() string {
	where := fmt.Sprintf("authorization.%s[%d]", e.Collection, e.Index)
	if e.Field != "" {
		where += "." + e.Field
	}
	return where + ": " + e.Err.Error()
}

func (e *SeedError) Unwrap() error { return e.Err }

// Seed loads the directory and custom roles of seed (its RoleDefinitions, Directory,
// Assignments and DenyAssignments; its settings are the server's own), then the
// assignments, into tx through the same checks and rules as PUTs, then the deny
// assignments (putDeny).
func (s *Server) Seed(tx *store.Tx, seed Config) error {
	if err := s.seedDirectory(tx, seed.Directory); err != nil {
		return err
	}
	if err := s.seedRoles(tx, seed.RoleDefinitions); err != nil {
		return err
	}
	for i, entry := range seed.Assignments {
		if field, err := s.seedAssignment(tx, entry); err != nil {
			return &SeedError{Collection: SeedAssignments, Index: i, Field: field, Err: err}
		}
	}
	for i, entry := range seed.DenyAssignments {
		if field, err := s.seedDeny(tx, entry); err != nil {
			return &SeedError{Collection: SeedDenyAssignments, Index: i, Field: field, Err: err}
		}
	}
	return nil
}

// outsideProperties reports whether k is a member of an Assignment outside its properties:
// an entry without "properties" has every other member in them.
func outsideProperties(k string) bool {
	switch k {
	case "id", "name", "type", "properties", "systemData", "createdByType", "updatedByType":
		return true
	}
	return false
}

// seedAssignment creates the assignment entry gives through apply, as a PUT would, and
// returns the member at fault with the error.
func (s *Server) seedAssignment(tx *store.Tx, entry SeedAssignment) (string, error) {
	flat := entry["properties"] == nil
	where := func(field string) string {
		if flat {
			return strings.TrimPrefix(field, "properties.")
		}
		return field
	}
	if flat {
		props := map[string]any{}
		nested := SeedAssignment{"properties": props}
		for k, v := range entry {
			if outsideProperties(k) {
				nested[k] = v
			} else {
				props[k] = v
			}
		}
		entry = nested
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		return "", err
	}
	var a Assignment
	if field, err := decodeStrict(raw, &a); err != nil {
		return where(field), err
	}
	if sd := a.SystemData; sd != nil {
		// A GET's systemData, given back: the identity types are kept beside the object.
		a.CreatedByType = cmp.Or(a.CreatedByType, string(deref(sd.CreatedByType)))
		a.UpdatedByType = cmp.Or(a.UpdatedByType, string(deref(sd.LastModifiedByType)))
	}
	for _, t := range []*time.Time{a.Properties.CreatedOn, a.Properties.UpdatedOn} {
		if t != nil {
			*t = t.UTC()
		}
	}
	name := deref(a.Name)
	if _, ok := parseGUID(name); !ok {
		return "name", errInvalidAssignmentName(name)
	}
	if a.Properties.Scope == nil {
		return where("properties.scope"), errors.New("required: where the assignment is (/ for the tenant root)")
	}
	scope, serr := parseScope(*a.Properties.Scope)
	if serr != nil {
		return where("properties.scope"), serr
	}
	body, err := json.Marshal(gen.RoleAssignmentCreateParameters{Properties: a.Properties})
	if err != nil {
		return "", err
	}
	if field, err := s.checkSeedBody(scope, name, body); err != nil {
		return where(field), err
	}
	want, err := propertiesFromRequest(a.Properties)
	if err == nil {
		_, _, err = s.apply(tx, scope, name, want, seedCaller, &a)
	}
	var ae *Error
	if !errors.As(err, &ae) {
		return "", err
	}
	if len(ae.Details) > 0 {
		err = fmt.Errorf("%w (%s)", ae, ae.Details[0].Message)
	}
	switch ae.Code {
	case "RoleAssignmentExists", "RoleAssignmentUpdateNotPermitted":
		return "name", err
	case "RoleAssignmentLimitExceeded":
		return where("properties.scope"), err
	}
	return where(ae.Target), err
}

// decodeStrict decodes a seed entry's JSON into out, refusing members out does not have,
// and returns the member at fault with the error.
func decodeStrict(raw []byte, out any) (string, error) {
	err := jsonv2.Unmarshal(raw, out, jsonv2.RejectUnknownMembers(true))
	var se *jsonv2.SemanticError
	if !errors.As(err, &se) {
		return "", err
	}
	field := strings.Join(tokens(se), ".")
	switch {
	case errors.Is(se.Err, jsonv2.ErrUnknownName):
		return field, errors.New("unknown field")
	case se.GoType == reflect.TypeFor[time.Time]():
		var pe *time.ParseError
		if errors.As(se.Err, &pe) {
			return field, fmt.Errorf("%q is not an RFC 3339 time such as 2026-11-21T10:00:00.123Z", pe.Value)
		}
		return field, errors.New("not an RFC 3339 time such as 2026-11-21T10:00:00.123Z")
	case se.GoType != nil:
		return field, fmt.Errorf("want a %s, got %s", kindOf(se.GoType), jsonKind(se.JSONKind))
	}
	return field, err
}

func tokens(se *jsonv2.SemanticError) []string {
	var out []string
	for t := range se.JSONPointer.Tokens() {
		out = append(out, t)
	}
	return out
}

// jsonKind says what a JSON value is, for "got X".
func jsonKind(k jsontext.Kind) string {
	switch k {
	case '"':
		return "a string"
	case '[':
		return "a list"
	case '{':
		return "a mapping"
	case 't', 'f':
		return "a boolean"
	case '0':
		return "a number"
	}
	return "null"
}

// kindOf says what JSON a Go type takes, for "want X".
func kindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "mapping"
	}
	return "number"
}

// checkSeedBody checks a seeded assignment's PUT body against the spec, as the PUT that
// would create it is checked, and returns the member at fault with the error.
func (s *Server) checkSeedBody(scope Scope, name string, body []byte) (string, error) {
	v, err := s.seedValidator()
	if err != nil {
		return "", err
	}
	req, err := http.NewRequest(http.MethodPut, "/?api-version="+APIVersion, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	err = v.CheckRequest("RoleAssignments_Create", req, map[string]string{"scope": cmp.Or(scope.Path, "/"), "roleAssignmentName": name})
	var ve *validate.Error
	if errors.As(err, &ve) && ve.In == "body" {
		return ve.Name, errors.New(ve.Reason)
	}
	return "", err
}

// ExportDirectory is the directory as seed entries, in id order: the seed's principals and
// those the admin API added, with each group's direct members.
func (s *Server) ExportDirectory(tx *store.Tx) []DirectoryEntry {
	return s.exportDirectory(tx)
}

// Export is every role assignment as seed entries (its object, whole), in name order:
// loaded back, each is the assignment it was, history included.
func (s *Server) Export(tx *store.Tx) ([]SeedAssignment, error) {
	var out []SeedAssignment
	var err error
	s.tables.Assignments.Each(tx, func(pk string, a Assignment) bool {
		var entry map[string]any
		entry, err = seedEntry(a.full(pk))
		out = append(out, entry)
		return err == nil
	})
	return out, err
}

// seedEntry is an object as a seed entry: its JSON's members.
func seedEntry(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var entry map[string]any
	err = json.Unmarshal(raw, &entry)
	return entry, err
}
