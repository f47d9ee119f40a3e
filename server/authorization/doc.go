// Package authorization implements the authorization API (gen/authorization): role
// assignments at hierarchical scopes and the read-only role definitions they refer to, as
// ARM's RBAC service does for api-version 2022-04-01, under Vendor.Authorization.
//
// Where the real service is silent or we chose differently it is said next to the code; the
// full list of rules is ../shared/design/authorization.md. Notable choices:
//   - the scope hierarchy is textual: a scope's ancestors are its path prefixes; management
//     groups are scopes of their own, not ancestors of subscriptions;
//   - bootstrap owners (from flags or the seed file) hold Owner everywhere without an
//     assignment being stored, so they never show up in lists;
//   - JWT signatures are not checked, as in every local emulator.
package authorization
