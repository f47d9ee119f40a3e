package reply_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	goccy "github.com/goccy/go-json"

	"github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/randfill"
	"github.com/understudy-dev/understudy/server/reply"
)

// responses are every generated JSON response type (TestEveryResponseIsListed keeps the list
// whole).
var responses = []any{
	// authorization
	authorization.ErrorJSONResponse{},
	authorization.RoleDefinitionsListAtTenant200JSONResponse{},
	authorization.RoleDefinitionsListAtTenantdefaultJSONResponse{},
	authorization.PermissionsListForScope200JSONResponse{},
	authorization.PermissionsListForScopedefaultJSONResponse{},
	authorization.RoleDefinitionsGetById200JSONResponse{},
	authorization.RoleDefinitionsGetByIddefaultJSONResponse{},
	authorization.RoleAssignmentsListForScope200JSONResponse{},
	authorization.RoleAssignmentsListForScopedefaultJSONResponse{},
	authorization.RoleAssignmentsDelete200JSONResponse{},
	authorization.RoleAssignmentsDeletedefaultJSONResponse{},
	authorization.RoleAssignmentsGet200JSONResponse{},
	authorization.RoleAssignmentsGetdefaultJSONResponse{},
	authorization.RoleAssignmentsCreate200JSONResponse{},
	authorization.RoleAssignmentsCreate201JSONResponse{},
	authorization.RoleAssignmentsCreatedefaultJSONResponse{},
	authorization.RoleDefinitionsList200JSONResponse{},
	authorization.RoleDefinitionsListdefaultJSONResponse{},
	authorization.RoleDefinitionsGet200JSONResponse{},
	authorization.RoleDefinitionsGetdefaultJSONResponse{},
	authorization.RoleDefinitionsCreateOrUpdate201JSONResponse{},
	authorization.RoleDefinitionsCreateOrUpdatedefaultJSONResponse{},
	authorization.RoleDefinitionsDelete200JSONResponse{},
	authorization.RoleDefinitionsDelete204Response{},
	authorization.RoleDefinitionsDeletedefaultJSONResponse{},
	// accounts
	accounts.BadRequestJSONResponse{},
	accounts.ConflictJSONResponse{},
	accounts.NotFoundJSONResponse{},
	accounts.TooManyRequestsJSONResponse{},
	accounts.UnauthorizedJSONResponse{},
	accounts.UnexpectedErrorJSONResponse{},
	accounts.CreateAccountLink200JSONResponse{},
	accounts.CreateAccountLink400JSONResponse{},
	accounts.CreateAccountLink401JSONResponse{},
	accounts.CreateAccountLink404JSONResponse{},
	accounts.CreateAccountLink409JSONResponse{},
	accounts.CreateAccountLink429JSONResponse{},
	accounts.CreateAccountLinkdefaultJSONResponse{},
	accounts.ListAccounts200JSONResponse{},
	accounts.ListAccounts400JSONResponse{},
	accounts.ListAccounts401JSONResponse{},
	accounts.ListAccountsdefaultJSONResponse{},
	accounts.CreateAccount200JSONResponse{},
	accounts.CreateAccount400JSONResponse{},
	accounts.CreateAccount401JSONResponse{},
	accounts.CreateAccount409JSONResponse{},
	accounts.CreateAccountdefaultJSONResponse{},
	accounts.RetrieveAccount200JSONResponse{},
	accounts.RetrieveAccount400JSONResponse{},
	accounts.RetrieveAccount401JSONResponse{},
	accounts.RetrieveAccount404JSONResponse{},
	accounts.RetrieveAccountdefaultJSONResponse{},
	accounts.UpdateAccount200JSONResponse{},
	accounts.UpdateAccount400JSONResponse{},
	accounts.UpdateAccount401JSONResponse{},
	accounts.UpdateAccount404JSONResponse{},
	accounts.UpdateAccount409JSONResponse{},
	accounts.UpdateAccount429JSONResponse{},
	accounts.UpdateAccountdefaultJSONResponse{},
	accounts.CloseAccount200JSONResponse{},
	accounts.CloseAccount400JSONResponse{},
	accounts.CloseAccount401JSONResponse{},
	accounts.CloseAccount404JSONResponse{},
	accounts.CloseAccount409JSONResponse{},
	accounts.CloseAccount429JSONResponse{},
	accounts.CloseAccountdefaultJSONResponse{},
	accounts.CreateAccountToken200JSONResponse{},
	accounts.CreateAccountToken400JSONResponse{},
	accounts.CreateAccountToken401JSONResponse{},
	accounts.CreateAccountToken409JSONResponse{},
	accounts.CreateAccountTokendefaultJSONResponse{},
	accounts.CreatePerson200JSONResponse{},
	accounts.CreatePerson400JSONResponse{},
	accounts.CreatePerson401JSONResponse{},
	accounts.CreatePerson404JSONResponse{},
	accounts.CreatePerson409JSONResponse{},
	accounts.CreatePerson429JSONResponse{},
	accounts.CreatePersonToken200JSONResponse{},
	accounts.CreatePersonToken400JSONResponse{},
	accounts.CreatePersonToken401JSONResponse{},
	accounts.CreatePersonToken404JSONResponse{},
	accounts.CreatePersonToken409JSONResponse{},
	accounts.CreatePersonTokendefaultJSONResponse{},
	accounts.CreatePersondefaultJSONResponse{},
	accounts.DeletePerson200JSONResponse{},
	accounts.DeletePerson400JSONResponse{},
	accounts.DeletePerson401JSONResponse{},
	accounts.DeletePerson404JSONResponse{},
	accounts.DeletePerson429JSONResponse{},
	accounts.DeletePersondefaultJSONResponse{},
	accounts.ListPersons200JSONResponse{},
	accounts.ListPersons400JSONResponse{},
	accounts.ListPersons401JSONResponse{},
	accounts.ListPersons404JSONResponse{},
	accounts.ListPersonsdefaultJSONResponse{},
	accounts.RetrieveAccountToken200JSONResponse{},
	accounts.RetrieveAccountToken400JSONResponse{},
	accounts.RetrieveAccountToken401JSONResponse{},
	accounts.RetrieveAccountToken404JSONResponse{},
	accounts.RetrieveAccountTokendefaultJSONResponse{},
	accounts.RetrievePerson200JSONResponse{},
	accounts.RetrievePerson400JSONResponse{},
	accounts.RetrievePerson401JSONResponse{},
	accounts.RetrievePerson404JSONResponse{},
	accounts.RetrievePersonToken200JSONResponse{},
	accounts.RetrievePersonToken400JSONResponse{},
	accounts.RetrievePersonToken401JSONResponse{},
	accounts.RetrievePersonToken404JSONResponse{},
	accounts.RetrievePersonTokendefaultJSONResponse{},
	accounts.RetrievePersondefaultJSONResponse{},
	accounts.UpdatePerson200JSONResponse{},
	accounts.UpdatePerson400JSONResponse{},
	accounts.UpdatePerson401JSONResponse{},
	accounts.UpdatePerson404JSONResponse{},
	accounts.UpdatePerson409JSONResponse{},
	accounts.UpdatePerson429JSONResponse{},
	accounts.UpdatePersondefaultJSONResponse{},
	accounts.ListEventDestinations200JSONResponse{},
	accounts.ListEventDestinations400JSONResponse{},
	accounts.ListEventDestinations401JSONResponse{},
	accounts.ListEventDestinationsdefaultJSONResponse{},
	accounts.CreateEventDestination200JSONResponse{},
	accounts.CreateEventDestination400JSONResponse{},
	accounts.CreateEventDestination401JSONResponse{},
	accounts.CreateEventDestination409JSONResponse{},
	accounts.CreateEventDestinationdefaultJSONResponse{},
	accounts.DeleteEventDestination200JSONResponse{},
	accounts.DeleteEventDestination400JSONResponse{},
	accounts.DeleteEventDestination401JSONResponse{},
	accounts.DeleteEventDestination404JSONResponse{},
	accounts.DeleteEventDestinationdefaultJSONResponse{},
	accounts.RetrieveEventDestination200JSONResponse{},
	accounts.RetrieveEventDestination400JSONResponse{},
	accounts.RetrieveEventDestination401JSONResponse{},
	accounts.RetrieveEventDestination404JSONResponse{},
	accounts.RetrieveEventDestinationdefaultJSONResponse{},
	accounts.UpdateEventDestination200JSONResponse{},
	accounts.UpdateEventDestination400JSONResponse{},
	accounts.UpdateEventDestination401JSONResponse{},
	accounts.UpdateEventDestination404JSONResponse{},
	accounts.UpdateEventDestination409JSONResponse{},
	accounts.UpdateEventDestinationdefaultJSONResponse{},
	accounts.DisableEventDestination200JSONResponse{},
	accounts.DisableEventDestination400JSONResponse{},
	accounts.DisableEventDestination401JSONResponse{},
	accounts.DisableEventDestination404JSONResponse{},
	accounts.DisableEventDestination409JSONResponse{},
	accounts.DisableEventDestinationdefaultJSONResponse{},
	accounts.EnableEventDestination200JSONResponse{},
	accounts.EnableEventDestination400JSONResponse{},
	accounts.EnableEventDestination401JSONResponse{},
	accounts.EnableEventDestination404JSONResponse{},
	accounts.EnableEventDestination409JSONResponse{},
	accounts.EnableEventDestinationdefaultJSONResponse{},
	accounts.PingEventDestination200JSONResponse{},
	accounts.PingEventDestination400JSONResponse{},
	accounts.PingEventDestination401JSONResponse{},
	accounts.PingEventDestination404JSONResponse{},
	accounts.PingEventDestination409JSONResponse{},
	accounts.PingEventDestinationdefaultJSONResponse{},
	accounts.ListEvents200JSONResponse{},
	accounts.ListEvents400JSONResponse{},
	accounts.ListEvents401JSONResponse{},
	accounts.ListEventsdefaultJSONResponse{},
	accounts.RetrieveEvent200JSONResponse{},
	accounts.RetrieveEvent400JSONResponse{},
	accounts.RetrieveEvent401JSONResponse{},
	accounts.RetrieveEvent404JSONResponse{},
	accounts.RetrieveEventdefaultJSONResponse{},
	// compute
	compute.BadRequestJSONResponse{},
	compute.BadRequestOrInUseJSONResponse{},
	compute.ConflictJSONResponse{},
	compute.EtagMismatchJSONResponse{},
	compute.NotFoundJSONResponse{},
	compute.PreconditionFailedJSONResponse{},
	compute.UnauthorizedJSONResponse{},
	compute.UnexpectedErrorJSONResponse{},
	compute.GlobalForwardingRulesList200JSONResponse{},
	compute.GlobalForwardingRulesList400JSONResponse{},
	compute.GlobalForwardingRulesList401JSONResponse{},
	compute.GlobalForwardingRulesListdefaultJSONResponse{},
	compute.GlobalForwardingRulesInsert200JSONResponse{},
	compute.GlobalForwardingRulesInsert400JSONResponse{},
	compute.GlobalForwardingRulesInsert401JSONResponse{},
	compute.GlobalForwardingRulesInsert409JSONResponse{},
	compute.GlobalForwardingRulesInsertdefaultJSONResponse{},
	compute.GlobalForwardingRulesDelete200JSONResponse{},
	compute.GlobalForwardingRulesDelete400JSONResponse{},
	compute.GlobalForwardingRulesDelete401JSONResponse{},
	compute.GlobalForwardingRulesDelete404JSONResponse{},
	compute.GlobalForwardingRulesDeletedefaultJSONResponse{},
	compute.GlobalForwardingRulesGet200JSONResponse{},
	compute.GlobalForwardingRulesGet400JSONResponse{},
	compute.GlobalForwardingRulesGet401JSONResponse{},
	compute.GlobalForwardingRulesGet404JSONResponse{},
	compute.GlobalForwardingRulesGetdefaultJSONResponse{},
	compute.GlobalForwardingRulesSetLabels200JSONResponse{},
	compute.GlobalForwardingRulesSetLabels400JSONResponse{},
	compute.GlobalForwardingRulesSetLabels401JSONResponse{},
	compute.GlobalForwardingRulesSetLabels404JSONResponse{},
	compute.GlobalForwardingRulesSetLabels412JSONResponse{},
	compute.GlobalForwardingRulesSetLabelsdefaultJSONResponse{},
	compute.InterconnectAttachmentGroupsList200JSONResponse{},
	compute.InterconnectAttachmentGroupsList400JSONResponse{},
	compute.InterconnectAttachmentGroupsList401JSONResponse{},
	compute.InterconnectAttachmentGroupsListdefaultJSONResponse{},
	compute.InterconnectAttachmentGroupsInsert200JSONResponse{},
	compute.InterconnectAttachmentGroupsInsert400JSONResponse{},
	compute.InterconnectAttachmentGroupsInsert401JSONResponse{},
	compute.InterconnectAttachmentGroupsInsert409JSONResponse{},
	compute.InterconnectAttachmentGroupsInsertdefaultJSONResponse{},
	compute.InterconnectAttachmentGroupsDelete200JSONResponse{},
	compute.InterconnectAttachmentGroupsDelete400JSONResponse{},
	compute.InterconnectAttachmentGroupsDelete401JSONResponse{},
	compute.InterconnectAttachmentGroupsDelete404JSONResponse{},
	compute.InterconnectAttachmentGroupsDeletedefaultJSONResponse{},
	compute.InterconnectAttachmentGroupsGet200JSONResponse{},
	compute.InterconnectAttachmentGroupsGet400JSONResponse{},
	compute.InterconnectAttachmentGroupsGet401JSONResponse{},
	compute.InterconnectAttachmentGroupsGet404JSONResponse{},
	compute.InterconnectAttachmentGroupsGetdefaultJSONResponse{},
	compute.InterconnectAttachmentGroupsPatch200JSONResponse{},
	compute.InterconnectAttachmentGroupsPatch400JSONResponse{},
	compute.InterconnectAttachmentGroupsPatch401JSONResponse{},
	compute.InterconnectAttachmentGroupsPatch404JSONResponse{},
	compute.InterconnectAttachmentGroupsPatch412JSONResponse{},
	compute.InterconnectAttachmentGroupsPatchdefaultJSONResponse{},
	compute.InterconnectAttachmentGroupsGetOperationalStatus200JSONResponse{},
	compute.InterconnectAttachmentGroupsGetOperationalStatus400JSONResponse{},
	compute.InterconnectAttachmentGroupsGetOperationalStatus401JSONResponse{},
	compute.InterconnectAttachmentGroupsGetOperationalStatus404JSONResponse{},
	compute.InterconnectAttachmentGroupsGetOperationalStatusdefaultJSONResponse{},
	compute.InterconnectLocationsList200JSONResponse{},
	compute.InterconnectLocationsList400JSONResponse{},
	compute.InterconnectLocationsList401JSONResponse{},
	compute.InterconnectLocationsListdefaultJSONResponse{},
	compute.InterconnectLocationsGet200JSONResponse{},
	compute.InterconnectLocationsGet400JSONResponse{},
	compute.InterconnectLocationsGet401JSONResponse{},
	compute.InterconnectLocationsGet404JSONResponse{},
	compute.InterconnectLocationsGetdefaultJSONResponse{},
	compute.InterconnectsList200JSONResponse{},
	compute.InterconnectsList400JSONResponse{},
	compute.InterconnectsList401JSONResponse{},
	compute.InterconnectsListdefaultJSONResponse{},
	compute.InterconnectsInsert200JSONResponse{},
	compute.InterconnectsInsert400JSONResponse{},
	compute.InterconnectsInsert401JSONResponse{},
	compute.InterconnectsInsert404JSONResponse{},
	compute.InterconnectsInsert409JSONResponse{},
	compute.InterconnectsInsertdefaultJSONResponse{},
	compute.PolicyConflictJSONResponse{},
	compute.GlobalForwardingRulesPatch200JSONResponse{},
	compute.GlobalForwardingRulesPatch400JSONResponse{},
	compute.GlobalForwardingRulesPatch401JSONResponse{},
	compute.GlobalForwardingRulesPatch404JSONResponse{},
	compute.GlobalForwardingRulesPatch412JSONResponse{},
	compute.GlobalForwardingRulesPatchdefaultJSONResponse{},
	compute.GlobalForwardingRulesSetTarget200JSONResponse{},
	compute.GlobalForwardingRulesSetTarget400JSONResponse{},
	compute.GlobalForwardingRulesSetTarget401JSONResponse{},
	compute.GlobalForwardingRulesSetTarget404JSONResponse{},
	compute.GlobalForwardingRulesSetTargetdefaultJSONResponse{},
	compute.InterconnectAttachmentGroupsGetIamPolicy200JSONResponse{},
	compute.InterconnectAttachmentGroupsGetIamPolicy400JSONResponse{},
	compute.InterconnectAttachmentGroupsGetIamPolicy401JSONResponse{},
	compute.InterconnectAttachmentGroupsGetIamPolicy404JSONResponse{},
	compute.InterconnectAttachmentGroupsGetIamPolicydefaultJSONResponse{},
	compute.InterconnectAttachmentGroupsSetIamPolicy200JSONResponse{},
	compute.InterconnectAttachmentGroupsSetIamPolicy400JSONResponse{},
	compute.InterconnectAttachmentGroupsSetIamPolicy401JSONResponse{},
	compute.InterconnectAttachmentGroupsSetIamPolicy404JSONResponse{},
	compute.InterconnectAttachmentGroupsSetIamPolicy409JSONResponse{},
	compute.InterconnectAttachmentGroupsSetIamPolicydefaultJSONResponse{},
	compute.InterconnectAttachmentGroupsTestIamPermissions200JSONResponse{},
	compute.InterconnectAttachmentGroupsTestIamPermissions400JSONResponse{},
	compute.InterconnectAttachmentGroupsTestIamPermissions401JSONResponse{},
	compute.InterconnectAttachmentGroupsTestIamPermissions404JSONResponse{},
	compute.InterconnectAttachmentGroupsTestIamPermissionsdefaultJSONResponse{},
	compute.InterconnectGroupsList200JSONResponse{},
	compute.InterconnectGroupsList400JSONResponse{},
	compute.InterconnectGroupsList401JSONResponse{},
	compute.InterconnectGroupsListdefaultJSONResponse{},
	compute.InterconnectGroupsInsert200JSONResponse{},
	compute.InterconnectGroupsInsert400JSONResponse{},
	compute.InterconnectGroupsInsert401JSONResponse{},
	compute.InterconnectGroupsInsert409JSONResponse{},
	compute.InterconnectGroupsInsertdefaultJSONResponse{},
	compute.InterconnectGroupsDelete200JSONResponse{},
	compute.InterconnectGroupsDelete400JSONResponse{},
	compute.InterconnectGroupsDelete401JSONResponse{},
	compute.InterconnectGroupsDelete404JSONResponse{},
	compute.InterconnectGroupsDeletedefaultJSONResponse{},
	compute.InterconnectGroupsGet200JSONResponse{},
	compute.InterconnectGroupsGet400JSONResponse{},
	compute.InterconnectGroupsGet401JSONResponse{},
	compute.InterconnectGroupsGet404JSONResponse{},
	compute.InterconnectGroupsGetdefaultJSONResponse{},
	compute.InterconnectGroupsPatch200JSONResponse{},
	compute.InterconnectGroupsPatch400JSONResponse{},
	compute.InterconnectGroupsPatch401JSONResponse{},
	compute.InterconnectGroupsPatch404JSONResponse{},
	compute.InterconnectGroupsPatch412JSONResponse{},
	compute.InterconnectGroupsPatchdefaultJSONResponse{},
	compute.InterconnectGroupsCreateMembers200JSONResponse{},
	compute.InterconnectGroupsCreateMembers400JSONResponse{},
	compute.InterconnectGroupsCreateMembers401JSONResponse{},
	compute.InterconnectGroupsCreateMembers404JSONResponse{},
	compute.InterconnectGroupsCreateMembers409JSONResponse{},
	compute.InterconnectGroupsCreateMembersdefaultJSONResponse{},
	compute.InterconnectGroupsGetOperationalStatus200JSONResponse{},
	compute.InterconnectGroupsGetOperationalStatus400JSONResponse{},
	compute.InterconnectGroupsGetOperationalStatus401JSONResponse{},
	compute.InterconnectGroupsGetOperationalStatus404JSONResponse{},
	compute.InterconnectGroupsGetOperationalStatusdefaultJSONResponse{},
	compute.InterconnectGroupsGetIamPolicy200JSONResponse{},
	compute.InterconnectGroupsGetIamPolicy400JSONResponse{},
	compute.InterconnectGroupsGetIamPolicy401JSONResponse{},
	compute.InterconnectGroupsGetIamPolicy404JSONResponse{},
	compute.InterconnectGroupsGetIamPolicydefaultJSONResponse{},
	compute.InterconnectGroupsSetIamPolicy200JSONResponse{},
	compute.InterconnectGroupsSetIamPolicy400JSONResponse{},
	compute.InterconnectGroupsSetIamPolicy401JSONResponse{},
	compute.InterconnectGroupsSetIamPolicy404JSONResponse{},
	compute.InterconnectGroupsSetIamPolicy409JSONResponse{},
	compute.InterconnectGroupsSetIamPolicydefaultJSONResponse{},
	compute.InterconnectGroupsTestIamPermissions200JSONResponse{},
	compute.InterconnectGroupsTestIamPermissions400JSONResponse{},
	compute.InterconnectGroupsTestIamPermissions401JSONResponse{},
	compute.InterconnectGroupsTestIamPermissions404JSONResponse{},
	compute.InterconnectGroupsTestIamPermissionsdefaultJSONResponse{},
	compute.InterconnectsPatch200JSONResponse{},
	compute.InterconnectsPatch400JSONResponse{},
	compute.InterconnectsPatch401JSONResponse{},
	compute.InterconnectsPatch404JSONResponse{},
	compute.InterconnectsPatchdefaultJSONResponse{},
	compute.InterconnectsGetDiagnostics200JSONResponse{},
	compute.InterconnectsGetDiagnostics400JSONResponse{},
	compute.InterconnectsGetDiagnostics401JSONResponse{},
	compute.InterconnectsGetDiagnostics404JSONResponse{},
	compute.InterconnectsGetDiagnosticsdefaultJSONResponse{},
	compute.InterconnectsGetMacsecConfig200JSONResponse{},
	compute.InterconnectsGetMacsecConfig400JSONResponse{},
	compute.InterconnectsGetMacsecConfig401JSONResponse{},
	compute.InterconnectsGetMacsecConfig404JSONResponse{},
	compute.InterconnectsGetMacsecConfigdefaultJSONResponse{},
	compute.InterconnectsSetName200JSONResponse{},
	compute.InterconnectsSetName400JSONResponse{},
	compute.InterconnectsSetName401JSONResponse{},
	compute.InterconnectsSetName404JSONResponse{},
	compute.InterconnectsSetName409JSONResponse{},
	compute.InterconnectsSetNamedefaultJSONResponse{},
	compute.InterconnectsSetLabels200JSONResponse{},
	compute.InterconnectsSetLabels400JSONResponse{},
	compute.InterconnectsSetLabels401JSONResponse{},
	compute.InterconnectsSetLabels404JSONResponse{},
	compute.InterconnectsSetLabels412JSONResponse{},
	compute.InterconnectsSetLabelsdefaultJSONResponse{},
	compute.InterconnectAttachmentsPatch200JSONResponse{},
	compute.InterconnectAttachmentsPatch400JSONResponse{},
	compute.InterconnectAttachmentsPatch401JSONResponse{},
	compute.InterconnectAttachmentsPatch404JSONResponse{},
	compute.InterconnectAttachmentsPatchdefaultJSONResponse{},
	compute.InterconnectAttachmentsSetLabels200JSONResponse{},
	compute.InterconnectAttachmentsSetLabels400JSONResponse{},
	compute.InterconnectAttachmentsSetLabels401JSONResponse{},
	compute.InterconnectAttachmentsSetLabels404JSONResponse{},
	compute.InterconnectAttachmentsSetLabels412JSONResponse{},
	compute.InterconnectAttachmentsSetLabelsdefaultJSONResponse{},
	compute.InterconnectsDelete200JSONResponse{},
	compute.InterconnectsDelete400JSONResponse{},
	compute.InterconnectsDelete401JSONResponse{},
	compute.InterconnectsDelete404JSONResponse{},
	compute.InterconnectsDeletedefaultJSONResponse{},
	compute.InterconnectsGet200JSONResponse{},
	compute.InterconnectsGet400JSONResponse{},
	compute.InterconnectsGet401JSONResponse{},
	compute.InterconnectsGet404JSONResponse{},
	compute.InterconnectsGetdefaultJSONResponse{},
	compute.GlobalOperationsList200JSONResponse{},
	compute.GlobalOperationsList400JSONResponse{},
	compute.GlobalOperationsList401JSONResponse{},
	compute.GlobalOperationsListdefaultJSONResponse{},
	compute.GlobalOperationsDelete400JSONResponse{},
	compute.GlobalOperationsDelete401JSONResponse{},
	compute.GlobalOperationsDelete404JSONResponse{},
	compute.GlobalOperationsDeletedefaultJSONResponse{},
	compute.GlobalOperationsGet200JSONResponse{},
	compute.GlobalOperationsGet400JSONResponse{},
	compute.GlobalOperationsGet401JSONResponse{},
	compute.GlobalOperationsGet404JSONResponse{},
	compute.GlobalOperationsGetdefaultJSONResponse{},
	compute.GlobalOperationsWait200JSONResponse{},
	compute.GlobalOperationsWait400JSONResponse{},
	compute.GlobalOperationsWait401JSONResponse{},
	compute.GlobalOperationsWait404JSONResponse{},
	compute.GlobalOperationsWaitdefaultJSONResponse{},
	compute.InterconnectAttachmentsAggregatedList200JSONResponse{},
	compute.InterconnectAttachmentsAggregatedList400JSONResponse{},
	compute.InterconnectAttachmentsAggregatedList401JSONResponse{},
	compute.InterconnectAttachmentsAggregatedListdefaultJSONResponse{},
	compute.GlobalOperationsAggregatedList200JSONResponse{},
	compute.GlobalOperationsAggregatedList400JSONResponse{},
	compute.GlobalOperationsAggregatedList401JSONResponse{},
	compute.GlobalOperationsAggregatedListdefaultJSONResponse{},
	compute.InterconnectAttachmentsList200JSONResponse{},
	compute.InterconnectAttachmentsList400JSONResponse{},
	compute.InterconnectAttachmentsList401JSONResponse{},
	compute.InterconnectAttachmentsListdefaultJSONResponse{},
	compute.InterconnectAttachmentsInsert200JSONResponse{},
	compute.InterconnectAttachmentsInsert400JSONResponse{},
	compute.InterconnectAttachmentsInsert401JSONResponse{},
	compute.InterconnectAttachmentsInsert404JSONResponse{},
	compute.InterconnectAttachmentsInsert409JSONResponse{},
	compute.InterconnectAttachmentsInsertdefaultJSONResponse{},
	compute.InterconnectAttachmentsDelete200JSONResponse{},
	compute.InterconnectAttachmentsDelete400JSONResponse{},
	compute.InterconnectAttachmentsDelete401JSONResponse{},
	compute.InterconnectAttachmentsDelete404JSONResponse{},
	compute.InterconnectAttachmentsDeletedefaultJSONResponse{},
	compute.InterconnectAttachmentsGet200JSONResponse{},
	compute.InterconnectAttachmentsGet400JSONResponse{},
	compute.InterconnectAttachmentsGet401JSONResponse{},
	compute.InterconnectAttachmentsGet404JSONResponse{},
	compute.InterconnectAttachmentsGetdefaultJSONResponse{},
	compute.RegionOperationsList200JSONResponse{},
	compute.RegionOperationsList400JSONResponse{},
	compute.RegionOperationsList401JSONResponse{},
	compute.RegionOperationsListdefaultJSONResponse{},
	compute.RegionOperationsDelete400JSONResponse{},
	compute.RegionOperationsDelete401JSONResponse{},
	compute.RegionOperationsDelete404JSONResponse{},
	compute.RegionOperationsDeletedefaultJSONResponse{},
	compute.RegionOperationsGet200JSONResponse{},
	compute.RegionOperationsGet400JSONResponse{},
	compute.RegionOperationsGet401JSONResponse{},
	compute.RegionOperationsGet404JSONResponse{},
	compute.RegionOperationsGetdefaultJSONResponse{},
	compute.RegionOperationsWait200JSONResponse{},
	compute.RegionOperationsWait400JSONResponse{},
	compute.RegionOperationsWait401JSONResponse{},
	compute.RegionOperationsWait404JSONResponse{},
	compute.RegionOperationsWaitdefaultJSONResponse{},
	// admin
	admin.ErrorJSONResponse{},
	admin.GetClock200JSONResponse{},
	admin.GetClockdefaultJSONResponse{},
	admin.AdvanceClock200JSONResponse{},
	admin.AdvanceClockdefaultJSONResponse{},
	admin.ClearFaultsdefaultJSONResponse{},
	admin.ListFaults200JSONResponse{},
	admin.ListFaultsdefaultJSONResponse{},
	admin.CreateFault201JSONResponse{},
	admin.CreateFaultdefaultJSONResponse{},
	admin.DeleteFaultdefaultJSONResponse{},
	admin.GetHealth200JSONResponse{},
	admin.GetHealthdefaultJSONResponse{},
	admin.GetMetricsdefaultJSONResponse{},
	admin.GetStatedefaultJSONResponse{},
	admin.ListPrincipals200JSONResponse{},
	admin.ListPrincipalsdefaultJSONResponse{},
	admin.PutPrincipal200JSONResponse{},
	admin.PutPrincipal201JSONResponse{},
	admin.PutPrincipaldefaultJSONResponse{},
	admin.DeletePrincipaldefaultJSONResponse{},
	admin.GetAPISpecdefaultJSONResponse{},
	admin.ClearRequestsdefaultJSONResponse{},
	admin.ListRequests200JSONResponse{},
	admin.ListRequestsdefaultJSONResponse{},
	admin.SetInterconnectCircuit200JSONResponse{},
	admin.SetInterconnectCircuitdefaultJSONResponse{},
	admin.SetAttachmentCircuit200JSONResponse{},
	admin.SetAttachmentCircuitdefaultJSONResponse{},
	admin.Reset200JSONResponse{},
	admin.ResetdefaultJSONResponse{},
}

// TestEveryResponseIsListed: responses names every JSON response type the generator wrote,
// so that one an API adds is tested too.
func TestEveryResponseIsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, r := range responses {
		listed[reflect.TypeOf(r).String()] = true
	}
	files, err := filepath.Glob("../../gen/*/*.gen.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated files: %v", err)
	}
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				name := s.(*ast.TypeSpec).Name.Name
				if strings.HasSuffix(name, "JSONResponse") && !listed[f.Name.Name+"."+name] {
					t.Errorf("%s.%s is not in responses", f.Name.Name, name)
				}
			}
		}
	}
}

// TestWriteIsVisit: for random values of every JSON response type, Write writes exactly
// what the type's generated Visit method writes (status, headers, body), or leaves it to
// that method.
func TestWriteIsVisit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	written := 0
	for _, r := range responses {
		rt := reflect.TypeOf(r)
		visit, ok := visitOf(rt)
		if !ok {
			// A response of a components section, wrapped by each operation's own type.
			if ok, _ := reply.Write(httptest.NewRecorder(), r); ok {
				t.Errorf("%v, which has no Visit method, was written", rt)
			}
			continue
		}
		for range 60 {
			v := reflect.New(rt).Elem()
			randfill.Fill(rng, v)
			if code := v.FieldByName("StatusCode"); code.IsValid() && rt.Kind() == reflect.Struct {
				code.SetInt(400 + rng.Int64N(200)) // a default response's, which must be a status
			}
			want := httptest.NewRecorder()
			wantErr := visit.Func.Call([]reflect.Value{v, reflect.ValueOf(http.ResponseWriter(want))})[0].Interface()
			got := httptest.NewRecorder()
			ok, err := reply.Write(got, v.Interface())
			if !ok {
				continue
			}
			written++
			if err != nil || wantErr != nil {
				t.Fatalf("%v: Write wrote (error %v) what Visit failed to write (%v)", rt, err, wantErr)
			}
			if got.Code != want.Code || !reflect.DeepEqual(got.Header(), want.Header()) || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
				t.Fatalf("%v:\n got %d %v %s\nwant %d %v %s", rt, got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
			}
		}
	}
	t.Logf("%d responses written", written)
	if written == 0 {
		t.Fatal("Write wrote nothing")
	}
}

// TestHotRepliesAreWritten: the responses the hot operations return are written by Write.
func TestHotRepliesAreWritten(t *testing.T) {
	for _, r := range []any{
		compute.GlobalForwardingRulesInsert200JSONResponse{}, compute.GlobalForwardingRulesGet200JSONResponse{},
		compute.InterconnectAttachmentGroupsInsert200JSONResponse{}, authorization.RoleAssignmentsCreate201JSONResponse{},
		authorization.RoleAssignmentsListForScope200JSONResponse{}, accounts.CreateAccountLink200JSONResponse{},
		accounts.CreateAccount200JSONResponse{},
	} {
		if ok, err := reply.Write(httptest.NewRecorder(), r); !ok || err != nil {
			t.Errorf("%T was not written (%v)", r, err)
		}
	}
}

// TestSameAsEncodingJSON: goccy/go-json writes what encoding/json writes, for random values
// of every response type's body (and, through them, every type they hold).
func TestSameAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, r := range responses {
		rt := reflect.TypeOf(r)
		if f, ok := rt.FieldByName("Body"); ok && rt.Kind() == reflect.Struct {
			rt = f.Type
		}
		for range 200 {
			v := reflect.New(rt)
			randfill.Fill(rng, v.Elem())
			var want, got bytes.Buffer
			wantErr := json.NewEncoder(&want).Encode(v.Interface())
			gotErr := goccy.NewEncoder(&got).Encode(v.Interface())
			if (wantErr == nil) != (gotErr == nil) || wantErr == nil && !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%v:\n goccy %s (%v)\n  json %s (%v)", rt, got.Bytes(), gotErr, want.Bytes(), wantErr)
			}
		}
	}
}

func visitOf(rt reflect.Type) (reflect.Method, bool) {
	for i := range rt.NumMethod() {
		if m := rt.Method(i); strings.HasPrefix(m.Name, "Visit") {
			return m, true
		}
	}
	return reflect.Method{}, false
}
