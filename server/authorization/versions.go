package authorization

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/authorization"
)

// APIVersion is the version the seed specifies and this API's shapes are written for; older
// versions answer with less (shapeAssignment, shapeRole).
const APIVersion = "2022-04-01"

// apiVersions are the api-versions the vendor's REST specification defines for each
// resource type, from 2015-07-01 through 2024-07-01-preview, oldest first: what ARM serves,
// and so what clients send (a widely used infrastructure tool reads role definitions with
// 2022-05-01-preview). Each answers with its own shape (shapeAssignment, shapeRole,
// permissionOf, shapeDeny).
var apiVersions = map[string][]string{
	"roleAssignments": {"2015-07-01", "2017-10-01-preview", "2018-01-01-preview", "2018-09-01-preview",
		"2020-03-01-preview", "2020-04-01-preview", "2020-08-01-preview", "2020-10-01-preview", "2022-04-01", "2022-05-01-preview"},
	"roleDefinitions": {"2015-07-01", "2017-10-01-preview", "2018-01-01-preview", "2022-04-01", "2022-05-01-preview"},
	"permissions":     {"2015-07-01", "2018-01-01-preview", "2022-04-01", "2022-05-01-preview"},
	"denyAssignments": {"2018-07-01-preview", "2022-04-01", "2024-07-01-preview"},
}

// latestVersion is the newest api-version of kind: the shape with every member (a deny
// assignment's denyAssignmentEffect only there).
func latestVersion(kind string) string {
	vs := apiVersions[kind]
	return vs[len(vs)-1]
}

// versionedStatuses reads from the spec, per operationId, the statuses that only some
// api-versions answer: a response's x-api-versions lists them (a role-assignment PUT that
// updates answers 200 only in the versions whose REST specification defines 200; the
// others define 201 alone, and their SDKs raise on anything else). A status without it is
// answered in every version.
func versionedStatuses(doc *openapi3.T) (map[string]map[int][]string, error) {
	out := map[string]map[int][]string{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for code, r := range op.Responses.Map() {
				raw, ok := r.Value.Extensions["x-api-versions"]
				if !ok {
					continue
				}
				status, err := strconv.Atoi(code)
				list, isList := raw.([]any)
				if err != nil || !isList {
					return nil, fmt.Errorf("authorization: %s's response %s: x-api-versions must be a list of the versions of a status", op.OperationID, code)
				}
				versions := make([]string, len(list))
				for i, v := range list {
					if versions[i], ok = v.(string); !ok || !slices.Contains(apiVersions["roleAssignments"], versions[i]) && !slices.Contains(apiVersions["roleDefinitions"], versions[i]) {
						return nil, fmt.Errorf("authorization: %s's response %s: x-api-versions names %v, not an api-version served", op.OperationID, code, v)
					}
				}
				if out[op.OperationID] == nil {
					out[op.OperationID] = map[int][]string{}
				}
				out[op.OperationID][status] = versions
			}
		}
	}
	return out, nil
}

// answers reports whether the request's api-version answers status to operation opID, as
// the spec says (versionedStatuses).
func (s *Server) answers(ctx context.Context, opID string, status int) bool {
	p, err := s.parsed()
	if err != nil {
		return true // the request's validation failed on it first
	}
	versions, some := p.statuses[opID][status]
	return !some || slices.Contains(versions, apiVersion(ctx))
}

// checkAPIVersion answers ARM's errors for a missing or unsupported api-version before
// anything else about the request is looked at, as ARM does, and keeps the version for the
// handlers' shapes.
func checkAPIVersion(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		v := c.QueryParam("api-version")
		if v == "" {
			return errMissingAPIVersion()
		}
		// The resource type is the word after the last provider segment (the scope before it
		// may hold any word); the routes spell it canonically (RewritePath).
		kind := "roleAssignments"
		path := c.Request().URL.Path
		if i := lastIndexFold(path, providerSegment); i >= 0 {
			if word, _, _ := strings.Cut(path[i+len(providerSegment):], "/"); apiVersions[word] != nil {
				kind = word
			}
		}
		supported := apiVersions[kind]
		// ARM compares api-versions without regard to case.
		i := slices.IndexFunc(supported, func(s string) bool { return strings.EqualFold(s, v) })
		if i < 0 {
			return errUnsupportedAPIVersion(v, kind, supported)
		}
		req := c.Request()
		if info, _ := req.Context().Value(requestKey{}).(*requestInfo); info != nil {
			info.version = supported[i] // this request's own, made by authenticate
		} else {
			c.SetRequest(req.WithContext(context.WithValue(req.Context(), requestKey{}, &requestInfo{version: supported[i]})))
		}
		return next(c)
	}
}

// apiVersion is the request's api-version; APIVersion outside a request.
func apiVersion(ctx context.Context) string {
	if info, _ := ctx.Value(requestKey{}).(*requestInfo); info != nil && info.version != "" {
		return info.version
	}
	return APIVersion
}

// since reports whether version v is the given date's or later: api-versions start with
// the date they were published, and a preview comes before the stable version of its day
// in no version list here, so the date decides.
func since(v, date string) bool { return v[:10] >= date }

// shapeAssignment trims a role assignment to what version v returns: principalType arrived
// in 2018-09-01-preview; description, condition, conditionVersion, the delegated identity
// and the created/updated members in 2020-03-01-preview; systemData in 2022-04-01.
func shapeAssignment(v string, a gen.RoleAssignment) gen.RoleAssignment {
	p := &a.Properties
	if !since(v, "2018-09-01") {
		p.PrincipalType = nil
	}
	if !since(v, "2020-03-01") {
		p.Description, p.Condition, p.ConditionVersion, p.DelegatedManagedIdentityResourceId = nil, nil, nil, nil
		p.CreatedOn, p.UpdatedOn, p.CreatedBy, p.UpdatedBy = nil, nil, nil, nil
	}
	if !since(v, "2022-04-01") {
		a.SystemData = nil
	}
	return a
}

// shapeRole trims a role definition to what version v returns: dataActions and
// notDataActions arrived in 2018-01-01-preview. The created/updated members are in every
// version: only 2022-05-01-preview's REST specification defines them, but ARM sends them to
// all (the vendor's documents show them in 2015-07-01 and 2022-04-01 reads).
func shapeRole(v string, r gen.RoleDefinition) gen.RoleDefinition {
	p := r.Properties
	if !since(v, "2018-01-01") {
		for i := range p.Permissions {
			p.Permissions[i].DataActions, p.Permissions[i].NotDataActions = nil, nil
		}
	}
	return r
}

// shapeDeny trims a deny assignment to what version v returns: condition and
// conditionVersion (the assignment's and each permission's) arrived in 2022-04-01,
// denyAssignmentEffect in 2024-07-01-preview. The created/updated members are in every
// version: 2018-07-01-preview's REST specification does not define them, but ARM sends them
// there (azure-powershell's issue 16410 shows a 2018-07-01-preview list carrying them).
func shapeDeny(v string, d gen.DenyAssignment) gen.DenyAssignment {
	p := &d.Properties
	if !since(v, "2022-04-01") {
		p.Condition, p.ConditionVersion = nil, nil
		p.Permissions = slices.Clone(p.Permissions)
		for i := range p.Permissions {
			p.Permissions[i].Condition, p.Permissions[i].ConditionVersion = nil, nil
		}
	}
	if !since(v, "2024-07-01") {
		p.DenyAssignmentEffect = nil
	}
	return d
}
