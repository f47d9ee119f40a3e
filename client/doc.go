// Package client is the Go client of understudy's three APIs: a thin, hand-written layer over
// the generated clients (gen/authorization, gen/accounts, gen/compute) that adds what every
// caller would otherwise write by hand: credentials and the APIs' required headers, typed
// errors in each API's own envelope, and waiting for compute operations.
//
// Each constructor returns a type that embeds the generated ClientWithResponses, so every
// generated method is available on it. Wrap a call in the API's Check function to get a
// status of 400 or more as an error that errors.As understands (*ARMError, *AccountsError,
// *ComputeError); transport errors pass through unchanged.
//
// # Authorization
//
// Scopes go out with raw slashes, as ARM's clients send them; pass AuthorizationAPIVersion
// in each request's params.
//
//	c, err := client.NewAuthorization("http://127.0.0.1:8080", client.WithBearerToken(token))
//	resp, err := client.CheckARM(c.RoleAssignmentsCreateWithResponse(ctx,
//		"subscriptions/"+sub+"/resourceGroups/rg1", assignmentName,
//		&authorization.RoleAssignmentsCreateParams{ApiVersion: client.AuthorizationAPIVersion},
//		authorization.RoleAssignmentCreateParameters{Properties: authorization.RoleAssignmentProperties{
//			PrincipalId: principal, RoleDefinitionId: readerRoleID}}))
//	var armErr *client.ARMError
//	if errors.As(err, &armErr) && armErr.Code == "RoleAssignmentExists" { ... }
//
// # Accounts
//
// The secret key is sent as a bearer token, Service-Version is filled in when the params
// leave it empty (so nil params are fine), and every POST gets an Idempotency-Key unless it
// has one.
//
//	c, err := client.NewAccounts("http://127.0.0.1:8080", client.WithAPIKey("sk_test_..."))
//	acct, err := client.CheckAccounts(c.CreateAccountWithResponse(ctx, nil, accounts.CreateAccountRequest{
//		DisplayName: &name}))
//	var apiErr *client.AccountsError
//	if errors.As(err, &apiErr) {
//		log.Printf("%s/%s (request %s)", apiErr.Type, apiErr.Code, apiErr.RequestID)
//	}
//
// # Compute
//
// Mutations return an Operation; WaitOperation waits until it is DONE and reports a failed
// one as *OperationError.
//
//	c, err := client.NewCompute("http://127.0.0.1:8080", client.WithBearerToken(token))
//	insert, err := client.CheckCompute(c.GlobalForwardingRulesInsertWithResponse(ctx, project, nil,
//		compute.ForwardingRule{Name: "fr-web"}))
//	op, err := c.WaitOperation(ctx, project, *insert.JSON200)
//	var computeErr *client.ComputeError // e.g. 412 conditionNotMet from setLabels
package client
