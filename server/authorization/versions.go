package authorization

import (
	"context"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/authorization"
)

// APIVersion is the version the seed specifies and this API's shapes are written for; older
// versions answer with less (shapeAssignment, shapeRole).
const APIVersion = "2022-04-01"

// The api-versions the vendor's REST specification defines for each resource type, from
// 2015-07-01 through 2022-05-01-preview, oldest first: what ARM serves, and so what clients
// send (a widely used infrastructure tool reads role definitions with 2022-05-01-preview).
var (
	assignmentVersions = []string{"2015-07-01", "2017-10-01-preview", "2018-01-01-preview", "2018-09-01-preview",
		"2020-03-01-preview", "2020-04-01-preview", "2020-08-01-preview", "2020-10-01-preview", "2022-04-01", "2022-05-01-preview"}
	definitionVersions = []string{"2015-07-01", "2017-10-01-preview", "2018-01-01-preview", "2022-04-01", "2022-05-01-preview"}
)

// versionKey carries the request's api-version (a string) in its context.
type versionKey struct{}

// checkAPIVersion answers ARM's errors for a missing or unsupported api-version before
// anything else about the request is looked at, as ARM does, and keeps the version for the
// handlers' shapes.
func checkAPIVersion(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		v := c.QueryParam("api-version")
		if v == "" {
			return errMissingAPIVersion()
		}
		kind, supported := "roleAssignments", assignmentVersions
		if strings.Contains(strings.ToLower(c.Request().URL.Path), "/roledefinitions") {
			kind, supported = "roleDefinitions", definitionVersions
		}
		// ARM compares api-versions without regard to case.
		i := slices.IndexFunc(supported, func(s string) bool { return strings.EqualFold(s, v) })
		if i < 0 {
			return errUnsupportedAPIVersion(v, kind, supported)
		}
		req := c.Request()
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), versionKey{}, supported[i])))
		return next(c)
	}
}

// apiVersion is the request's api-version; APIVersion outside a request.
func apiVersion(ctx context.Context) string {
	if v, ok := ctx.Value(versionKey{}).(string); ok {
		return v
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
// notDataActions arrived in 2018-01-01-preview; the created/updated members exist in
// 2022-05-01-preview only.
func shapeRole(v string, r gen.RoleDefinition) gen.RoleDefinition {
	p := r.Properties
	if !since(v, "2018-01-01") {
		for i := range p.Permissions {
			p.Permissions[i].DataActions, p.Permissions[i].NotDataActions = nil, nil
		}
	}
	if !since(v, "2022-05-01") {
		p.CreatedOn, p.UpdatedOn, p.CreatedBy, p.UpdatedBy = nil, nil, nil, nil
	}
	return r
}
