package authorization

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/server/httperr"
	"github.com/understudy-dev/understudy/server/validate"
)

// Error is an error in ARM's envelope: {"error":{"code","message","target","details"}}.
type Error struct {
	Status  int
	Code    string
	Message string
	Target  string
	Details []*Error
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func newError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) wire() gen.ErrorDetail {
	d := gen.ErrorDetail{Code: e.Code, Message: e.Message}
	if e.Target != "" {
		d.Target = &e.Target
	}
	for _, sub := range e.Details {
		d.Details = append(d.Details, sub.wire())
	}
	return d
}

// WriteError renders any error met while serving this API in its envelope. Errors that are
// not the API's own (validation, routing, binding, body limit) are translated; anything
// unexpected is a logged 500 that says nothing about internals.
func WriteError(c echo.Context, err error, log *slog.Logger) {
	e := toError(c, err)
	httperr.LogUnexpected(c, e.Status, err, log)
	if c.Response().Committed {
		return
	}
	_ = httperr.WriteJSON(c, e.Status, gen.ErrorResponse{Error: e.wire()})
}

func toError(c echo.Context, err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	cause := httperr.Classify(err)
	switch cause.Kind {
	case httperr.Invalid:
		return fromValidation(cause.Validation)
	case httperr.TooLarge:
		return newError(cause.Status, "RequestEntityTooLarge", "The request body is larger than the limit of the server.")
	case httperr.UnsupportedMediaType:
		if reason := cause.Charset(); reason != "" {
			return newError(cause.Status, "UnsupportedMediaType", "The content media type '%s' is not supported: %s.", c.Request().Header.Get(echo.HeaderContentType), reason)
		}
		return newError(cause.Status, "UnsupportedMediaType", "The content media type '%s' is not supported. Only 'application/json' is supported.", c.Request().Header.Get(echo.HeaderContentType))
	case httperr.NotFound:
		return newError(cause.Status, "NotFound", "No HTTP resource was found that matches the request URI '%s'.", c.Request().URL.Path)
	case httperr.MethodNotAllowed:
		return newError(cause.Status, "MethodNotAllowed", "The requested resource does not support http method '%s'.", c.Request().Method)
	case httperr.Faulted:
		return newError(cause.Status, cause.Code, "%s", cause.Message)
	case httperr.BadRequest:
		return newError(cause.Status, "BadRequest", "%s", cause.Message)
	case httperr.Conflict:
		return newError(cause.Status, "Conflict", "The request conflicts with another one made at the same time. Please retry the request.")
	case httperr.Unavailable:
		return newError(cause.Status, "ServiceUnavailable", "The service is temporarily unavailable. Please retry the request after %d seconds.", cause.RetryAfter)
	}
	return newError(http.StatusInternalServerError, "InternalServerError", "The server encountered an internal error. Please retry the request.")
}

func fromValidation(ve *validate.Error) *Error {
	if ve.In == "body" {
		e := newError(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: %s", ve.Error())
		e.Target = ve.Name
		return e
	}
	e := newError(http.StatusBadRequest, "InvalidParameter", "The value of the %s parameter '%s' is not valid: %s.", ve.In, ve.Name, ve.Reason)
	e.Target = ve.Name
	return e
}

// The API's own errors, with ARM's codes and messages.

func errMissingAPIVersion() *Error {
	return newError(http.StatusBadRequest, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
}

func errUnsupportedAPIVersion(version, resourceType string, supported []string) *Error {
	return newError(http.StatusBadRequest, "NoRegisteredProviderFound",
		"No registered resource provider found for location 'global' and API version '%s' for type '%s'. The supported api-versions are '%s'. The supported locations are ''.",
		shown(version), resourceType, strings.Join(supported, ", "))
}

func errInvalidAssignmentName(name string) *Error {
	return newError(http.StatusBadRequest, "InvalidRoleAssignmentId", "The role assignment ID '%s' is not valid. The role assignment ID must be a GUID.", name)
}

func errInvalidPrincipalID(id string) *Error {
	e := newError(http.StatusBadRequest, "InvalidPrincipalId", "The Principal ID '%s' is not valid. Principal ID must be a GUID.", id)
	e.Target = "properties.principalId"
	return e
}

// errInvalidRoleDefinitionID names what follows the id's last roleDefinitions segment (all
// of it when it has none), as ARM does: "The role definition ID
// '072dd7ad-7dc5-fe96-411f-a4a223b5d3cf|' is not valid." (terraform-provider-azurerm#8547).
func errInvalidRoleDefinitionID(id string) *Error {
	if i := strings.LastIndex(strings.ToLower(id), "/roledefinitions/"); i >= 0 {
		id = id[i+len("/roledefinitions/"):]
	}
	e := newError(http.StatusBadRequest, "InvalidRoleDefinitionId", "The role definition ID '%s' is not valid.", id)
	e.Target = "properties.roleDefinitionId"
	return e
}

func errRoleDefinitionDoesNotExist(status int, guid string) *Error {
	return newError(status, "RoleDefinitionDoesNotExist", "The specified role definition with ID '%s' does not exist.", guid)
}

// Custom role definitions' errors. RoleDefinitionWithSameNameExists and
// RoleDefinitionHasAssignments are ARM's codes and words; the others are understudy's,
// in ARM's manner, where the vendor documents none.

func errInvalidRoleDefinitionGUID(id string) *Error {
	return newError(http.StatusBadRequest, "InvalidRoleDefinitionId", "The role definition ID '%s' is not valid. The role definition ID must be a GUID.", shown(id))
}

func errRoleNameMissing() *Error {
	e := newError(http.StatusBadRequest, "RoleDefinitionNameNullOrEmpty", "The role definition name cannot be null or empty.")
	e.Target = "properties.roleName"
	return e
}

func errRoleNameExists() *Error {
	e := newError(http.StatusConflict, "RoleDefinitionWithSameNameExists", "A role definition cannot be updated with a name that already exists.")
	e.Target = "properties.roleName"
	return e
}

func errAssignableScopesMissing() *Error {
	e := newError(http.StatusBadRequest, "InvalidAssignableScopes", "The role definition must have at least one assignable scope.")
	e.Target = "properties.assignableScopes"
	return e
}

func errInvalidAssignableScope(scope string) *Error {
	e := newError(http.StatusBadRequest, "InvalidAssignableScope", "The assignable scope '%s' is not a scope. Use '/', /subscriptions/{id}, a resource group, a resource or /providers/Microsoft.Management/managementGroups/{id}.", shown(scope))
	e.Target = "properties.assignableScopes"
	return e
}

// errRootAssignableScope: ARM refuses "/" as a custom role's assignable scope (its custom
// role limits); these words are ours, as ARM's are not on record.
func errRootAssignableScope() *Error {
	e := newError(http.StatusBadRequest, "InvalidAssignableScope", "The assignable scope '/' is not allowed for a custom role definition. Use management groups, subscriptions, resource groups or resources.")
	e.Target = "properties.assignableScopes"
	return e
}

// errTwoManagementGroups: a custom role has at most one management group among its
// assignable scopes (ARM's custom role limits); these words are ours, as ARM's are not on
// record.
func errTwoManagementGroups(a, b string) *Error {
	e := newError(http.StatusBadRequest, "InvalidAssignableScopes", "A custom role definition can have only one management group in its assignable scopes; this one has '%s' and '%s'.", shown(a), shown(b))
	e.Target = "properties.assignableScopes"
	return e
}

// errMultipleWildcards is ARM's answer to an action string with more than one wildcard, in
// its words, for actions and notActions (code InvalidActionOrNotAction) [observed:
// MicrosoftDocs/azure-docs#74428]. For the data lists ARM's code is
// InvalidDataActionOrNotDataAction, as for its other refusals of a data action; the same
// words are given there, by analogy.
func errMultipleWildcards(code, action string) *Error {
	return newError(http.StatusBadRequest, code, "'%s' contains multiple wildcards. Only one is allowed.", shown(action))
}

func errBuiltInRoleReadOnly(guid string) *Error {
	return newError(http.StatusBadRequest, "BuiltInRoleDefinitionCannotBeModified", "The role definition '%s' is a built-in role. Built-in roles cannot be created, updated or deleted; create a custom role instead.", guid)
}

func errRoleDefinitionHasAssignments(guid string) *Error {
	return newError(http.StatusConflict, "RoleDefinitionHasAssignments", "There are existing role assignments referencing role '%s'. Remove them before deleting the role definition.", guid)
}

// errScopeHasAssignments: ARM's words. Its status is not documented: 409, as the other
// refusal of a role change that its assignments hold back (errRoleDefinitionHasAssignments).
func errScopeHasAssignments(scope string) *Error {
	return newError(http.StatusConflict, "RoleScopeBeingRemovedContainsAssignments", "Role assignments found under scope '%s' which is being removed. Removing this scope from the role will orphan these assignments. Delete these assignments before removing the scope.", scope)
}

func errInvalidCondition(detail string) *Error {
	e := newError(http.StatusBadRequest, "InvalidRoleAssignmentCondition", "The given role assignment condition is invalid.")
	e.Target = "properties.condition"
	if detail != "" {
		e.Details = []*Error{{Code: "InvalidCondition", Message: detail, Target: "properties.condition"}}
	}
	return e
}

func errUpdateNotPermitted() *Error {
	return newError(http.StatusBadRequest, "RoleAssignmentUpdateNotPermitted", "Tenant ID, application ID, principal ID, and scope are not allowed to be updated.")
}

// errDataActionsVersion: ARM assigns a role with data actions only through an api-version
// that has them (2018-01-01-preview on), in these words.
func errDataActionsVersion(version string) *Error {
	return newError(http.StatusBadRequest, "UnsupportedApiVersionForRoleDefinitionHasDataActions", "Assignments to roles with DataActions and NotDataActions are not supported on API version '%s'. The minimum required API version for this operations is '2018-01-01-preview'.", version)
}

// errCustomDataRoleAtManagementGroup is ARM's answer to an assignment at a management group
// of a custom role with dataActions, in its words [observed: netr0m/az-pim-cli#97].
func errCustomDataRoleAtManagementGroup() *Error {
	return newError(http.StatusBadRequest, "InvalidCreateRoleAssignmentRequest", "Role assignments to Management Groups can not be made to custom role definitions with DataActions")
}

func errAssignmentExists() *Error {
	return newError(http.StatusConflict, "RoleAssignmentExists", "The role assignment already exists.")
}

func errLimitExceeded(limit int) *Error {
	return newError(http.StatusBadRequest, "RoleAssignmentLimitExceeded", "No more role assignments can be created. The limit of %d role assignments per subscription has been reached.", limit)
}

func errAssignmentNotFound(name string) *Error {
	return newError(http.StatusNotFound, "RoleAssignmentNotFound", "The role assignment '%s' is not found.", name)
}

// errPrincipalNotFound is ARM's answer for a principal the directory does not know, in its
// words; ARM writes the ids without dashes [observed: Azure/avdaccelerator#76,
// Azure/HubAndSpokeResearchEnclave#50].
func errPrincipalNotFound(principal, tenant string) *Error {
	return newError(http.StatusBadRequest, "PrincipalNotFound",
		"Principal %s does not exist in the directory %s. Check that you have the correct principal ID. If you are creating this principal and then immediately assigning a role, this error might be related to a replication delay. In this case, set the role assignment principalType property to a value, such as ServicePrincipal, User, or Group.  See https://aka.ms/docs-principaltype",
		strings.ReplaceAll(principal, "-", ""), tenant)
}

// errUnmatchedPrincipalType is ARM's answer for a principalType other than the directory's,
// its spelling ("PrinciaplType") and spacing kept [observed: Azure/azure-dev#3581].
func errUnmatchedPrincipalType(principal, actual, sent string) *Error {
	e := newError(http.StatusBadRequest, "UnmatchedPrincipalType",
		"The PrincipalId '%s' has type '%s' , which is different from specified PrinciaplType '%s'.",
		strings.ReplaceAll(principal, "-", ""), actual, sent)
	e.Target = "properties.principalType"
	return e
}

func errUnsupportedFilter(filter string) *Error {
	return newError(http.StatusBadRequest, "UnsupportedQuery", "The filter '%s' is not supported. Supported filters are either 'atScope()' or 'principalId eq '{value}' or assignedTo('{value}')'.", filter)
}

// errRootListUnfiltered is ARM's answer to a role-assignment list at the tenant root without
// $filter (its message as azure-powershell's issue 20323 quotes it; the code is not on
// record, BadRequest is ours); what is "role assignments" or "deny assignments", whose list
// at the root needs a filter too (the vendor's article on listing them), in the same words.
func errRootListUnfiltered(what string) *Error {
	return newError(http.StatusBadRequest, "BadRequest", "The %s query at '/' scope is not allowed without any filters.", what)
}

// errUnsupportedDenyFilter is errUnsupportedFilter for the deny-assignment list, naming
// its filters (ARM's words for it are not on record).
func errUnsupportedDenyFilter(filter string) *Error {
	return newError(http.StatusBadRequest, "UnsupportedQuery", "The filter '%s' is not supported. Supported filters are 'atScope()', 'denyAssignmentName eq '{value}'', 'principalId eq '{value}'', 'gdprExportPrincipalId eq '{value}'' and 'assignedTo('{value}')', alone, or 'atScope() and assignedTo('{value}')'.", shown(filter))
}

// errDenyAssignmentNotFound: DenyAssignmentNotFound is ARM's code (what the vendor's own Go
// code checks a deny assignment GET for); the words are ours, as RoleAssignmentNotFound's.
func errDenyAssignmentNotFound(name string) *Error {
	return newError(http.StatusNotFound, "DenyAssignmentNotFound", "The deny assignment '%s' is not found.", shown(name))
}

func errUnsupportedRoleDefinitionFilter(filter string) *Error {
	return newError(http.StatusBadRequest, "UnsupportedQuery", "The filter '%s' is not supported. Supported filters are 'roleName eq '{value}'', 'type eq 'BuiltInRole'' or 'type eq 'CustomRole'', and 'atScopeAndBelow()'.", filter)
}

func errInvalidSkipToken() *Error {
	e := newError(http.StatusBadRequest, "InvalidSkipToken", "The $skipToken is not valid; use the nextLink of a previous page as it is.")
	e.Target = "$skipToken"
	return e
}

func errInvalidScope(scope string) *Error {
	return newError(http.StatusBadRequest, "InvalidScope", "The scope '/%s' is not valid. Use subscriptions/{id}, subscriptions/{id}/resourceGroups/{name}, a resource under a resource group, or providers/Microsoft.Management/managementGroups/{id}, the root /, with names of printable characters.", shown(strings.Trim(scope, "/")))
}

// errInvalidSubscriptionID is ARM's answer to a subscription id that is not a GUID.
func errInvalidSubscriptionID(id string) *Error {
	return newError(http.StatusBadRequest, "InvalidSubscriptionId", "The provided subscription identifier '%s' is malformed or invalid.", shown(id))
}

// errInvalidResourceGroup is ARM's answer to a resource group name that breaks its rules
// (scope.go): ARM's message for characters it does not allow, ours for the length and the
// final period, which ARM words otherwise.
func errInvalidResourceGroup(name string) *Error {
	var bad strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if !groupRune(r) { // nor is invalid UTF-8 (U+FFFD, no letter)
			bad.WriteString(name[i : i+size]) // the bytes as sent, for shown to escape
		}
		i += size
	}
	if bad.Len() > 0 {
		return newError(http.StatusBadRequest, "InvalidResourceGroup", "The provided resource group name '%s' has these invalid characters: '%s'. The name can only be a letter, digit, '-', '.', '(', ')' or '_'.", shown(name), shown(bad.String()))
	}
	return newError(http.StatusBadRequest, "InvalidResourceGroup", "The provided resource group name '%s' is not valid. The name must be 1 to %d characters long and cannot end with a period.", shown(name), maxGroupName)
}

// shown is s as error messages quote it: unchanged when it is valid UTF-8 without control
// characters, else with each byte that is neither %XX-escaped, as in a URL, so that a
// message never carries what the request should not have.
func shown(s string) string {
	if validNames([]string{s}) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unicode.IsControl(r) {
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func errAuthenticationMissing() *Error {
	return newError(http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.")
}

func errAuthenticationInvalid() *Error {
	return newError(http.StatusUnauthorized, "AuthenticationFailedInvalidHeader", "Authentication failed. The 'Authorization' header is provided in an invalid format.")
}

func errAuthorizationFailed(c Caller, action, scope string) *Error {
	return newError(http.StatusForbidden, "AuthorizationFailed",
		"The client '%s' with object id '%s' does not have authorization or an ABAC condition not fulfilled to perform action '%s' over scope '%s' or the scope is invalid. If access was recently granted, please refresh your credentials.",
		c.Name, c.PrincipalID, action, scope)
}
