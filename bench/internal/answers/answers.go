// Package answers holds the constant JSON bodies the benchmark's stand-in servers answer
// with (the bare Echo baseline and the Echo+kin ceiling): shaped and sized like
// understudy's answers to the benchmarked operations (~0.5-1 KiB).
package answers

import "net/http"

// PutBody looks like a created role assignment (understudy's is ~1000 bytes).
const PutBody = `{"id":"/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg1/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747","name":"b0f43c54-e787-4862-89b1-a653fa9cf747","properties":{"createdBy":"00000000-0000-0000-0000-00000000c0de","createdOn":"2026-11-21T06:27:42.237993523Z","principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","principalType":"User","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7","scope":"/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg1","updatedBy":"00000000-0000-0000-0000-00000000c0de","updatedOn":"2026-11-21T06:27:42.237993523Z"},"systemData":{"createdAt":"2026-11-21T06:27:42.237993523Z","createdBy":"00000000-0000-0000-0000-00000000c0de","createdByType":"User","lastModifiedAt":"2026-11-21T06:27:42.237993523Z","lastModifiedBy":"00000000-0000-0000-0000-00000000c0de","lastModifiedByType":"User"},"type":"Vendor.Authorization/roleAssignments"}`

// PostBody looks like a DONE compute operation (understudy's are ~680-750 bytes; its
// account links ~540).
const PostBody = `{"clientOperationId":"713a15c8-45a9-4da0-803f-6358dcf3f034","creationTimestamp":"2026-11-21T06:27:42.247+00:00","endTime":"2026-11-21T06:27:42.247+00:00","id":"7613205445397677564","insertTime":"2026-11-21T06:27:42.247+00:00","kind":"compute#operation","name":"operation-1795242462247-a5a3779ff424e-5002b1e4-dc366c12","operationType":"insert","progress":100,"selfLink":"http://127.0.0.1:18080/compute/v1/projects/bench-project-1/global/operations/operation-1795242462247-a5a3779ff424e-5002b1e4-dc366c12","startTime":"2026-11-21T06:27:42.247+00:00","status":"DONE","targetId":"7014320945853055445","targetLink":"http://127.0.0.1:18080/compute/v1/projects/bench-project-1/global/forwardingRules/fr-web","user":"user@understudy.local"}`

// GetBody looks like a forwarding rule (understudy's is ~540 bytes); its labelFingerprint
// lets the harness drive the same GET+setLabels chain against the baseline.
const GetBody = `{"IPAddress":"34.87.173.133","IPProtocol":"TCP","creationTimestamp":"2026-11-21T06:27:42.247+00:00","fingerprint":"nhlfO741nYk=","id":"7014320945853055445","ipVersion":"IPV4","kind":"compute#forwardingRule","labelFingerprint":"42WmSpB8rSM=","labels":{},"loadBalancingScheme":"EXTERNAL","name":"fr-web","portRange":"443-443","selfLink":"http://127.0.0.1:18080/compute/v1/projects/bench-project-1/global/forwardingRules/fr-web"}`

// For is the status and body answered to a request with method: a created role assignment
// to a PUT, a forwarding rule to a GET, a DONE operation to anything else.
func For(method string) (int, string) {
	switch method {
	case http.MethodPut:
		return http.StatusCreated, PutBody
	case http.MethodGet:
		return http.StatusOK, GetBody
	}
	return http.StatusOK, PostBody
}
