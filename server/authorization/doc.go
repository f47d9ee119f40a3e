// Package authorization implements the authorization API (gen/authorization): role
// assignments at hierarchical scopes, the role definitions they refer to (the vendor's
// built-in catalog, package builtin, and custom roles), the caller's permissions and the
// deny assignments the platform makes (read-only; denyassignments.go), as ARM's RBAC
// service does for api-version 2022-04-01 and the other versions its REST specification
// defines (versions.go), under Vendor.Authorization.
//
// Where the real service is silent or we chose differently it is said next to the code.
// Notable choices:
//   - names in a scope follow ARM's rules (a GUID subscription id, ARM's resource group
//     name rule, no control characters or invalid UTF-8 anywhere), with ARM's codes
//     InvalidSubscriptionId and InvalidResourceGroup, so that an accepted scope round-trips
//     through the id a response carries; rules and sources in scope.go;
//   - the scope hierarchy: the tenant root "/" above all, management groups above the
//     subscriptions the seed file puts in them (hierarchy.go), path prefixes below a
//     subscription; management groups keep their real provider, Microsoft.Management;
//   - a directory of principals and group members (directory.go), from the seed file and
//     the admin API: principal types come from it, assignedTo() and permission checks
//     follow groups, and StrictPrincipals refuses principals it does not know;
//   - what a principal may do at a scope is worked out in one place (permissions.go), for
//     permission checks and the permissions operation alike;
//   - bootstrap owners (from flags or the seed file) hold Owner everywhere without an
//     assignment being stored, so they never show up in lists;
//   - JWT signatures are not checked, as in every local emulator; so a claim counts only
//     when plausible (an oid that is a GUID, printable name claims), else as if absent.
package authorization
