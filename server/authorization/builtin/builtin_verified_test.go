package builtin

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

// verifiedFingerprint is the first 16 hex digits of the SHA-256 of a role's four lists, each
// sorted, every entry written as "list:entry\n" in the order actions, notActions, dataActions,
// notDataActions; so a dropped, added or altered line changes it while order does not.
func verifiedFingerprint(r Role) string {
	h := sha256.New()
	for _, l := range []struct {
		name  string
		items []string
	}{{"actions", r.Actions}, {"notActions", r.NotActions}, {"dataActions", r.DataActions}, {"notDataActions", r.NotDataActions}} {
		items := slices.Clone(l.items)
		slices.Sort(items)
		for _, it := range items {
			h.Write([]byte(l.name + ":" + it + "\n"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// TestCatalogVerifiedAgainstDump pins the roles whose lists were compared entry by entry with
// philomath213/azure-roles-analyzer's AzureBuiltinRoles.json at 498d677 (the second source in
// permissions.json's header): 127 of the 391 copied from it, spread over the whole file and
// including the longest lists, and 35 of the 107 copied from the docs pages whose lists the
// dump repeats exactly. List lengths, assignable scopes and the fingerprint were computed from
// the dump's text, not from permissions.json, so a later hand edit that drops or alters a line
// fails here.
func TestCatalogVerifiedAgainstDump(t *testing.T) {
	byID := map[string]Role{}
	for _, r := range Roles() {
		byID[r.ID] = r
	}
	tests := []struct {
		id, name                           string
		actions, notActions, data, notData int
		scopes, fingerprint                string
	}{
		{"a8889054-8d42-49c9-bc1c-52486c10e7cd", "Reservations Administrator", 7, 0, 0, 0, "/providers/Microsoft.Capacity", "8c01968d6b72fbf6"},
		{"11076f67-66f6-4be0-8f6b-f0609fd05cc9", "Azure Batch Account Reader", 2, 0, 1, 0, "/", "7ab9e51c5075b9d4"},
		{"85a2d0d9-2eba-4c9c-b355-11c2cc0788ab", "Compute Gallery Artifacts Publisher", 11, 1, 0, 0, "/", "22822f23a8af98a8"},
		{"980cf6f7-edec-4fd1-8e9e-28f70b1d5258", "Compute Limit Operator", 10, 0, 0, 0, "/", "c9146ec39682803b"},
		{"86240b0e-9422-4c43-887b-b61143f32ba8", "Desktop Virtualization Application Group Contributor", 8, 0, 0, 0, "/", "bb4c5462a4de3c79"},
		{"082f0a83-3be5-4ba1-904c-961cca79b387", "Desktop Virtualization Contributor", 6, 0, 0, 0, "/", "c271eaa7ec96f9eb"},
		{"e307426c-f9b6-4e81-87de-d99efb3c32bc", "Desktop Virtualization Host Pool Contributor", 6, 0, 0, 0, "/", "00518ecf16763670"},
		{"49a72310-ab8d-41df-bbb0-79b649203868", "Desktop Virtualization Reader", 6, 0, 0, 0, "/", "b5fff7443e952180"},
		{"ea4bfff8-7fb4-485a-aadd-d4129a0ffaa6", "Desktop Virtualization User Session Operator", 8, 0, 0, 0, "/", "bbef8eae9fecd9ed"},
		{"a959dbd1-f747-45e3-8ba6-dd80f235f97c", "Desktop Virtualization Virtual Machine Contributor", 59, 0, 0, 0, "/", "6611384117f15583"},
		{"b50d9833-a0cb-478e-945f-707fcc997c13", "Disk Restore Operator", 6, 0, 0, 0, "/", "21ce01c1026c21f1"},
		{"7efff54f-a5b4-42b5-a1c5-5411624893ce", "Disk Snapshot Contributor", 12, 0, 0, 0, "/", "5212192d325a0e0c"},
		{"1c0163c0-47e6-4577-8991-ea5c82e286e4", "Virtual Machine Administrator Login", 7, 0, 4, 0, "/", "da3fbfe0b5a541fb"},
		{"7eabc9a4-85f7-4f71-b8ab-75daaccc1033", "Windows 365 Network User", 4, 0, 0, 0, "/", "9ebed82cddf3f7fc"},
		{"871e35f6-b5c1-49cc-a043-bde969a0f2cd", "CDN Endpoint Reader", 9, 0, 0, 0, "/", "567919110b1f7c9c"},
		{"ec156ff8-a8d1-4d15-830c-5b80698ca432", "CDN Profile Contributor", 8, 0, 0, 0, "/", "029497a341f6f9d6"},
		{"befefa01-2a29-4197-83a8-272ff33ce314", "DNS Zone Contributor", 7, 0, 0, 0, "/", "55fe129ac0059fe6"},
		{"4d97b98b-1d4f-4787-a291-c67834d212e7", "Network Contributor", 7, 0, 0, 0, "/", "0fde4194e9e4c9aa"},
		{"4f8fab4f-1852-4a58-a46a-8eaf358af14a", "Avere Contributor", 20, 0, 3, 0, "/", "98e1b7d6e3f6d6a7"},
		{"5e467623-bb1f-42f4-a55d-6e525e11384b", "Backup Contributor", 89, 0, 0, 0, "/", "5f3e2280ba30186a"},
		{"00c29273-979b-4161-815c-10b084fb9324", "Backup Operator", 103, 0, 0, 0, "/", "b7750a9655fdce0f"},
		{"a795c7a0-d4a2-40c1-ae25-d81f01202912", "Backup Reader", 63, 0, 0, 0, "/", "e1ad657f931d915f"},
		{"86e8f5dc-a6e9-4c67-9d15-de283e8eac25", "Classic Storage Account Contributor", 7, 0, 0, 0, "/", "31ecdffc6b7fa377"},
		{"985d6b00-f706-48f5-a6fe-d0ca12fb668d", "Classic Storage Account Key Operator Service Role", 2, 0, 0, 0, "/", "f0bf202ca08be82e"},
		{"028f4ed7-e2a9-465e-a8f4-9c0ffdfdc027", "Data Box Reader", 10, 0, 0, 0, "/", "6fc1363927ef0794"},
		{"80dcbedb-47ef-405d-95bd-188a1b4ac406", "Elastic SAN Owner", 6, 0, 0, 0, "/", "541a04dd51face70"},
		{"a8281131-f312-4f34-8d98-ae12be9f0d23", "Elastic SAN Volume Group Owner", 4, 0, 0, 0, "/", "878cd92b889d64ab"},
		{"81a9662b-bebf-436f-a333-f67b29880f12", "Storage Account Key Operator Service Role", 2, 0, 0, 0, "/", "eea2c4679395326f"},
		{"4bad4d9e-2a13-4888-94bb-c8432f6f3040", "Storage Actions Blob Data Operator", 6, 0, 8, 0, "/", "f93d0fb3248d4f03"},
		{"bd8acdb0-202c-4493-a7fe-ef98eefbfbc4", "Storage Actions Contributor", 10, 0, 0, 0, "/", "438505cfbbc188e5"},
		{"db58b8e5-c6ad-4a2a-8342-4190687cbf4a", "Storage Blob Delegator", 1, 0, 0, 0, "/", "5203a0a99bb0c842"},
		{"35c49d44-ccc1-4b18-8267-cfb3bacdd396", "Storage DataShare Contributor", 13, 0, 1, 0, "/", "676146321c41144f"},
		{"b8eda974-7b85-4f76-af95-65846b26df6d", "Storage File Data Privileged Reader", 0, 0, 2, 0, "/", "2f5683d5aa5dc8d4"},
		{"a7264617-510b-434b-a828-9731dc254ea7", "Storage File Data SMB Share Elevated Contributor", 0, 0, 4, 0, "/", "780a97476eacb43f"},
		{"5d9bac3f-34b2-432f-bde5-78aa8e73ce6b", "Storage File Data SMB Take Ownership", 0, 0, 1, 0, "/", "92fcaef1441c957e"},
		{"8a0f0c08-91a1-4084-bc3d-661d67233fed", "Storage Queue Data Message Processor", 0, 0, 2, 0, "/", "3b0f65b0675f87e3"},
		{"7ee386e9-84f0-448e-80a6-f185f6533131", "Storage Queue Delegator", 1, 0, 0, 0, "/", "749959ab0536dafb"},
		{"80558df3-64f9-4c0f-b32d-e5094b036b0b", "Azure Spring Apps Connect Role", 0, 0, 1, 0, "/", "e297a484c3986a37"},
		{"a99b0159-1064-4c22-a57b-c9b3caa1c054", "Azure Spring Apps Remote Debugging Role", 0, 0, 1, 0, "/", "a0e260c36b29ebb1"},
		{"b5537268-8956-4941-a8f0-646150406f0c", "Azure Spring Cloud Data Reader", 0, 0, 1, 0, "/", "80a1d5ce690366a0"},
		{"04165923-9d83-45d5-8227-78b77b0a687e", "SignalR AccessKey Reader", 5, 0, 0, 0, "/", "cff84ce7a1e9a35c"},
		{"fd53cd77-2268-407a-8f46-7e7863d0f521", "SignalR REST API Owner", 0, 0, 5, 0, "/", "3cfb818789a05c2d"},
		{"7e4f1700-ea5a-4f59-8f37-079cfe29dce3", "SignalR Service Owner", 0, 0, 1, 0, "/", "166da20e658c8513"},
		{"12cf5a90-567b-43ae-8102-96cf46c7d9b4", "Web PubSub Service Owner", 0, 0, 1, 0, "/", "f32bd763f2e34b96"},
		{"7f951dda-4ed3-4680-a7ca-43fe172d538d", "AcrPull", 1, 0, 0, 0, "/", "2cf7b5b8d1b84e53"},
		{"8311e382-0749-4cb8-b61a-304f252e45ec", "AcrPush", 2, 0, 0, 0, "/", "35ed9ed2f40371a5"},
		{"00493d72-78f6-4148-b6c5-d3ce8e4799dd", "Azure Arc Enabled Kubernetes Cluster User Role", 9, 0, 0, 0, "/", "63e16ab10bcfea3b"},
		{"8393591c-06b9-48a2-a542-1bd6b377f6a2", "Azure Arc Kubernetes Cluster Admin", 7, 0, 1, 0, "/", "b9eaa228d32a409d"},
		{"5b999177-9696-4545-85c7-50de3797e5a1", "Azure Arc Kubernetes Writer", 7, 0, 30, 0, "/", "ead8026b40fa34df"},
		{"5d977122-f97e-4b4d-a52f-6b43003ddb4d", "Azure Container Instances Contributor Role", 5, 0, 0, 0, "/", "d6fb332a28318533"},
		{"08d4c71a-cc63-4ce4-a9c8-5dd251b4d619", "Azure Container Storage Operator", 18, 0, 0, 0, "/", "c07fba65744735b6"},
		{"850c5848-fc51-4a9a-8823-f220370626e3", "Azure Kubernetes Fleet Manager Hub Cluster User Role", 2, 0, 0, 0, "/", "9f6eebb3375dae82"},
		{"5af6afb3-c06c-4fa4-8848-71a8aee05683", "Azure Kubernetes Fleet Manager RBAC Writer", 6, 0, 51, 0, "/", "9e3132495a47eaee"},
		{"4abbcc35-e782-43d8-92c5-2d3f1bd2253f", "Azure Kubernetes Service Cluster User Role", 2, 0, 0, 0, "/", "2f51ea54bfc3faa4"},
		{"ed7f3fbd-7b88-4dd4-9017-9adb7ce333f8", "Azure Kubernetes Service Contributor Role", 9, 0, 0, 0, "/", "4c7ba54fb53567e7"},
		{"3498e952-d568-435e-9b2c-8d77e338d7f7", "Azure Kubernetes Service RBAC Admin", 5, 0, 1, 4, "/", "18034dcde02599c5"},
		{"7f6c6a51-bcf8-42ba-9220-52d62157d7db", "Azure Kubernetes Service RBAC Reader", 4, 0, 31, 0, "/", "8e84d3c0f38fe506"},
		{"a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb", "Azure Kubernetes Service RBAC Writer", 4, 0, 35, 0, "/", "7e692a7fa841ebdb"},
		{"0336e1d3-7a87-462b-b6db-342b63f7802c", "Azure Red Hat OpenShift Cluster Ingress Operator", 6, 0, 0, 0, "/", "9701eacc05cd62c2"},
		{"5b7237c5-45e1-49d6-bc18-a1f62f400748", "Azure Red Hat OpenShift Disk Storage Operator", 16, 0, 0, 0, "/", "f1b1b7b6106ab139"},
		{"ef318e2a-8334-4a05-9e4a-295a196c6a6e", "Azure Red Hat OpenShift Federated Credential", 4, 0, 0, 0, "/", "73adc059b9792abc"},
		{"0358943c-7e01-48ba-8889-02cc51d78637", "Azure Red Hat OpenShift Machine API Operator", 35, 0, 0, 0, "/", "1efde0b2690214ef"},
		{"be7a6435-15ae-4171-8f30-4a343eff9e8f", "Azure Red Hat OpenShift Network Operator", 7, 0, 0, 0, "/", "baef633486439312"},
		{"358470bc-b998-42bd-ab17-a7e34c199c0f", "Container Apps Contributor", 14, 0, 0, 0, "/", "cb7136c8604d1dc7"},
		{"4e3d2b60-56ae-4dc6-a233-09c8e5a82e68", "Container Apps Jobs Contributor", 16, 0, 0, 0, "/", "c81507267955e63e"},
		{"edd66693-d32a-450b-997d-0158c03976b0", "Container Apps Jobs Reader", 3, 0, 0, 0, "/", "ff8701304530876e"},
		{"f094fb07-0703-4400-ad6a-e16dd8000e14", "Container Registry Credential Set Administrator", 4, 0, 0, 0, "/", "729fbf215bb554a1"},
		{"34e09817-6cbe-4d01-b1a2-e0eac5743d41", "Kubernetes Cluster - Azure Arc Onboarding", 13, 0, 0, 0, "/", "ef3af1d69382693a"},
		{"85cb6faf-e071-4c9b-8136-154b5a04f717", "Kubernetes Extension Contributor", 9, 0, 0, 0, "/", "7acc2bb99ee7ce10"},
		{"83f80186-3729-438c-ad2d-39e94d718838", "Service Fabric Managed Cluster Contributor", 10, 0, 0, 0, "/", "eaae782ea793b9e8"},
		{"db7b14f2-5adf-42da-9f96-f2ee17bab5cb", "CosmosBackupOperator", 2, 0, 0, 0, "/", "18b049fecc1f03b7"},
		{"5bd9cd88-fe45-4216-938b-f97437e15450", "DocumentDB Account Contributor", 8, 0, 0, 0, "/", "cf0af8aa46c1476b"},
		{"e0f68234-74aa-48ed-b826-c38b57376e17", "Redis Cache Contributor", 8, 0, 0, 0, "/", "a92a34117bc8d936"},
		{"056cd41c-7e88-42e1-933e-88ba6a50c9c3", "SQL Security Manager", 73, 0, 0, 0, "/", "ca7b9ef491fe5e00"},
		{"5dffeca3-4936-4216-b2bc-10343a5abb25", "Schema Registry Contributor", 1, 0, 1, 0, "/", "42ef578e922c60d6"},
		{"e47c6f54-e4a2-4754-9501-8e0985b135e1", "Foundry Account Owner", 20, 0, 0, 0, "/", "829f87bfc7bf5998"},
		{"b556d68e-0be0-4f35-a333-ad7ee1ce17ea", "Azure AI Enterprise Network Connection Approver", 89, 0, 0, 0, "/", "c859c6215a7833b0"},
		{"eadc314b-1a2d-4efa-be10-5d325db5065e", "Foundry Project Manager", 9, 0, 1, 0, "/", "33851b209ad55065"},
		{"e503ece1-11d0-4e8e-8e2c-7a6c3bf38815", "AzureML Compute Operator", 2, 0, 0, 0, "/", "5524b6a832725e5d"},
		{"5c4089e1-6d96-4d2f-b296-c1bc7137275f", "Cognitive Services Custom Vision Deployment", 1, 0, 7, 1, "/", "cd66574a95cd572c"},
		{"88424f51-ebe7-446f-bc41-7fa16989e96c", "Cognitive Services Custom Vision Labeler", 1, 0, 6, 1, "/", "24bc23f1191793bc"},
		{"b59867f0-fa02-499b-be73-45a86b5b3e1c", "Cognitive Services Data Reader", 0, 0, 1, 0, "/", "ae8f1e45325f1f25"},
		{"9894cab4-e18a-44aa-828b-cb588cd6f2d7", "Cognitive Services Face Recognizer", 0, 0, 12, 0, "/", "54691307a2f6a9c0"},
		{"f07febfe-79bc-46b1-8b37-790e26e6e498", "Cognitive Services Language Owner", 4, 0, 4, 1, "/", "0df10b3fcac9516e"},
		{"f2310ca1-dc64-4889-bb49-c8e0fa3d47a8", "Cognitive Services Language Writer", 3, 0, 4, 7, "/", "dd24323589203dc7"},
		{"cb43c632-a144-4ec5-977c-e80c4affc34a", "Cognitive Services Metrics Advisor Administrator", 1, 0, 1, 0, "/", "21289ddfee6110b7"},
		{"5e0bd9bd-7b93-4f28-af87-19fc36ad61bd", "Cognitive Services OpenAI User", 3, 0, 16, 1, "/", "82d3578867361cf1"},
		{"a97b65f3-24c7-4388-baec-2e87135dc908", "Cognitive Services User", 13, 0, 1, 0, "/", "ef759b0cd9bffd30"},
		{"f1082fec-a70f-419f-9230-885d2550fb38", "Healthcare Agent Admin", 0, 0, 19, 0, "/", "3ff9d95d948d76e9"},
		{"eb5a76d5-50e7-4c33-a449-070e7c9c4cf2", "Healthcare Agent Reader", 0, 0, 17, 0, "/", "4fbe0c2914915475"},
		{"1407120a-92aa-4202-b7e9-c0e197c71c8f", "Search Index Data Reader", 0, 0, 1, 0, "/", "cafe39da7dc3de6e"},
		{"7ca78c08-252a-4471-8644-bb5ff32d4ba0", "Search Service Contributor", 7, 0, 0, 0, "/", "a17bd09ce86d587e"},
		{"09267e11-2e06-40b5-8fe4-68cea20794c9", "Azure Device Registry Credentials Contributor", 2, 0, 0, 0, "/", "ee1dd4a039eb38a8"},
		{"5bc02df6-6cd5-43fe-ad3d-4c93cf56cc16", "Azure IoT Operations Administrator", 13, 0, 0, 0, "/", "ca40e2b413a2a95d"},
		{"7b7c71ed-33fa-4ed2-a91a-e56d5da260b5", "Azure IoT Operations Onboarding", 10, 0, 0, 0, "/", "d182000253b7b17b"},
		{"10745317-c249-44a1-a5ce-3a4353c0bbd8", "Device Provisioning Service Data Reader", 0, 0, 1, 0, "/", "cbebadcb73e7fb1e"},
		{"02ca0879-e8e4-47a5-a61e-5c618b76e64a", "Device Update Administrator", 5, 0, 6, 0, "/", "24788545cafb0ade"},
		{"0378884a-3af5-44ab-8323-f5b22f9f3c98", "Device Update Content Administrator", 5, 0, 3, 0, "/", "7407f3f456f35dcf"},
		{"e4237640-0e3d-4a46-8fda-70bc94856432", "Device Update Deployments Administrator", 5, 0, 4, 0, "/", "fec823ba01f65428"},
		{"49e2f5d2-7741-4835-8efa-19e1fe35e47f", "Device Update Deployments Reader", 5, 0, 2, 0, "/", "284efc8013afbc3c"},
		{"e9dba6fb-3d52-4cf0-bce3-f06ce71b9e0f", "Device Update Reader", 5, 0, 2, 0, "/", "284efc8013afbc3c"},
		{"4fc6c259-987e-4a07-842e-c321cc9d413f", "IoT Hub Data Contributor", 0, 0, 1, 0, "/", "aad7ea268a8cada9"},
		{"4ea46cd5-c1b2-4a8e-910b-273211f9ce47", "IoT Hub Registry Contributor", 0, 0, 1, 0, "/", "32f551298fd620fb"},
		{"494bdba2-168f-4f31-a0a1-191d2f7c028c", "IoT Hub Twin Contributor", 0, 0, 1, 0, "/", "0e1cdad409d32cc6"},
		{"e022efe7-f5ba-4159-bbe4-b44f577e9b61", "API Management Service Operator Role", 15, 1, 0, 0, "/", "5f7381f0bc8e9ace"},
		{"fe86443c-f201-4fc4-9d2a-ac61149fbda0", "App Configuration Contributor", 5, 1, 0, 0, "/", "6f7008979fb41549"},
		{"ede9aaa3-4627-494e-be13-4aa7c256148d", "Azure API Center Compliance Manager", 3, 0, 0, 0, "/", "190611c397ce1a20"},
		{"090c5cfd-751d-490a-894a-3ce6f1109419", "Azure Service Bus Data Owner", 1, 0, 1, 0, "/", "0fb1382c6153dbb4"},
		{"4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0", "Azure Service Bus Data Receiver", 3, 0, 1, 0, "/", "0b6003d5bcbcb1ba"},
		{"5e3c6656-6cfa-4708-81fe-0de47ac73342", "BizTalk Contributor", 7, 0, 0, 0, "/", "e2b8edde5186b4be"},
		{"80d0d6b0-f522-40a4-8886-a5a11720c375", "Durable Task Worker", 0, 0, 1, 0, "/", "4bff940241d24e67"},
		{"4b0f2fd7-60b4-4eca-896f-4435034f8bf5", "EventGrid TopicSpaces Subscriber", 5, 0, 1, 0, "/", "b58ce83bcf4809b0"},
		{"804db8d3-32c7-4ad4-a975-3f6f90d5f5f5", "FHIR Data Bulk Operator", 0, 0, 16, 0, "/", "e92793ba02d619e3"},
		{"5a1fc7df-4bf1-4951-a576-89034ee01acd", "FHIR Data Contributor", 0, 0, 2, 2, "/", "784eb27b903e2025"},
		{"4c8d0bbc-75d3-4935-991f-5f3c56d81508", "FHIR Data Reader", 0, 0, 2, 0, "/", "803574a9567f74c5"},
		{"4ba50f17-9666-485c-a643-ff00808643f0", "FHIR SMART User", 0, 0, 8, 0, "/", "04637f91e840b998"},
		{"03a6d094-3444-4b3d-88af-7477090a9e5e", "Intelligent Systems Account Contributor", 7, 0, 0, 0, "/", "f0b346408ccbe099"},
		{"87a39d53-fc1b-424a-814c-f7e04687dc9e", "Logic App Contributor", 21, 0, 0, 0, "/", "4f50d10a21e504ad"},
		{"4accf36b-2c05-432f-91c8-5c532dff4c73", "Logic Apps Standard Reader (Preview)", 7, 0, 0, 0, "/", "e2dd0486eeee3695"},
		{"82200a5b-e217-47a5-b665-6d8765ee745b", "Services Hub Operator", 9, 0, 0, 0, "/", "8d37d3d64bc3cf0b"},
		{"eeaeda52-9324-47f6-8069-5d5bade478b2", "Domain Services Contributor", 69, 0, 0, 0, "/", "f57aeb69761075da"},
		{"361898ef-9ed1-48c2-849c-a832951106bb", "Domain Services Reader", 28, 0, 0, 0, "/", "b455ee586afd65bb"},
		{"e40ec5ca-96e0-45a2-b4ff-59039f2c2b59", "Managed Identity Contributor", 12, 0, 0, 0, "/", "b4cbdc3c6ceb7212"},
		{"f1a07417-d97a-45cb-824c-7a7467783830", "Managed Identity Operator", 7, 0, 0, 0, "/", "5610911693dd4863"},
		{"fd1bd22b-8476-40bc-a0bc-69b95687b9f3", "Attestation Reader", 2, 0, 0, 0, "/", "46e3e0ae0dfc0446"},
		{"00482a5a-887f-4fb3-b363-3b7fe8e74483", "Key Vault Administrator", 10, 0, 1, 0, "/", "c57e6329744db23e"},
		{"db79e9a7-68ee-4b58-9aeb-b90e7c24fcba", "Key Vault Certificate User", 0, 0, 4, 0, "/", "cb86c464679dce91"},
		{"14b46e9e-c2b7-41b4-b07b-48a6ebf60603", "Key Vault Crypto Officer", 10, 0, 2, 0, "/", "eb0c08b9eb1deec9"},
		{"e147488a-f6f5-4113-8e2d-b22465e65bf6", "Key Vault Crypto Service Encryption User", 3, 0, 3, 0, "/", "1ac4bd9b2c56c4eb"},
		{"08bbd89e-9f13-488c-ac41-acfcb10c90ab", "Key Vault Crypto Service Release User", 0, 0, 1, 0, "/", "f0a25cf668a96f15"},
		{"12338af0-0e69-4776-bea7-57ae8d297424", "Key Vault Crypto User", 0, 0, 9, 0, "/", "0413902ceb627351"},
		{"b86a8fe4-44ce-4948-aee5-eccb2c155cd7", "Key Vault Secrets Officer", 10, 0, 1, 0, "/", "42b1d2f4ac56f507"},
		{"e3d13bf0-dd5a-482e-ba6b-9b8433878d10", "Security Manager (Legacy)", 10, 0, 0, 0, "/", "4e959369b77feee9"},
		{"7c2e40b7-25eb-482a-82cb-78ba06cb46d5", "Chaos Studio Experiment Contributor", 5, 0, 0, 0, "/", "37313e577116125d"},
		{"eb960402-bf75-4cc3-8d68-35b34f960f72", "Deployment Environments Reader", 4, 2, 3, 0, "/", "442fd56fe6df8366"},
		{"4c6569b6-f23e-4295-9b90-bd4cc4ff3292", "DevCenter Owner", 6, 0, 0, 0, "/", "d82b80f43d6598c1"},
		{"5daaa2af-1fe8-407c-9122-bba179798270", "Lab Contributor", 27, 0, 1, 0, "/", "4274309fb53e9bae"},
		{"1cfa4eac-9a23-481c-a793-bfb6958e836b", "Azure Migrate Execute Expert", 45, 6, 0, 0, "/", "b5b22c7cf663ae42"},
		{"fd8ea4d5-6509-4db0-bada-356ab233b4fa", "Azure Migrate Owner", 68, 0, 0, 0, "/", "e41ff66fbe66d696"},
		{"5d5dddae-e124-4753-972d-aae60b37deb4", "Migrate Arc Discovery Reader - Preview", 8, 0, 0, 0, "/", "c925fbf61916c1aa"},
		{"08954f03-6346-4c2e-81c0-ec3a5cfae23b", "Application Insights Snapshot Debugger", 7, 0, 0, 0, "/", "ce713c0ff33d7f36"},
		{"5c2d7e57-b7c2-4d8a-be4f-82afa42c6e95", "Azure Managed Grafana Workspace Contributor", 32, 0, 0, 0, "/", "d61ea5cd2dfa1922"},
		{"150f5e0c-0603-4f03-8c7f-cf70034c4e90", "Data Purger", 4, 0, 0, 0, "/", "cd827234e142e119"},
		{"a79a5197-3a5c-4973-a920-486035ffd60f", "Grafana Editor", 0, 0, 1, 0, "/", "45048e308803a892"},
		{"7b0c7e81-271f-4c71-90bf-e30bdfdbc2f7", "Azure Center for SAP solutions administrator", 57, 0, 1, 0, "/", "23d57e86d0451b88"},
		{"05352d14-a920-4328-a0de-4cbe7430e26b", "Azure Center for SAP solutions reader", 43, 0, 0, 0, "/", "f7c3f89b678713fc"},
		{"4dae6930-7baf-46f5-909e-0383bc931c46", "Azure Customer Lockbox Approver for Subscription", 6, 0, 0, 0, "/", "3258fc929034e546"},
		{"350f8d15-c687-4448-8ae1-157740a3936d", "Hierarchy Settings Administrator", 2, 0, 0, 0, "/", "4cc7d5dc99f4d7b0"},
		{"5d58bcaf-24a5-4b20-bdb6-eed9f69fbe4c", "Management Group Contributor", 7, 0, 0, 0, "/", "6bb152f68519132d"},
		{"5d28c62d-5b37-4476-8438-e587778df237", "New Relic APM Account Contributor", 7, 0, 0, 0, "/", "705109d0aaab4c17"},
		{"36243c78-bf99-498c-9df9-86d9f8d28608", "Resource Policy Contributor", 9, 0, 0, 0, "/", "d9eced8bfad1156f"},
		{"4e50c84c-c78e-4e37-b47e-e60ffea0a775", "Service Group Administrator", 3, 2, 0, 0, "/providers/Microsoft.Management/serviceGroups", "32116910f38bae68"},
		{"494ae006-db33-4328-bf46-533a6560a3ca", "Site Recovery Operator", 59, 0, 0, 0, "/", "99204ad17cacd89c"},
		{"dbaa88c4-0c30-4179-9fb3-46319faa6149", "Site Recovery Reader", 32, 0, 0, 0, "/", "4dad2a14af3d8b28"},
		{"4a9ae827-6dc8-4573-8ac7-8239d42aa03f", "Tag Contributor", 8, 0, 0, 0, "/", "b6712e2c7486d12f"},
		{"1c9b6475-caf0-4164-b5a1-2142a7116f4b", "Template Spec Contributor", 4, 0, 0, 0, "/", "242b47c59424251f"},
		{"a92dfd61-77f9-4aec-a531-19858b406c87", "Azure Arc ScVmm Administrator role", 57, 0, 0, 0, "/", "ec8d3934784006d0"},
		{"7b1f81f9-4196-4058-8aae-762e593270df", "Azure Resource Bridge Deployment Role", 36, 0, 0, 0, "/", "e62dde6efd3a4216"},
		{"bda0d508-adf1-4af0-9c28-88919fc3ae06", "Azure Stack HCI Administrator", 103, 0, 0, 0, "/", "e1e867b7ee4de012"},
		{"865ae368-6a45-4bd1-8fbf-0d5151f56fc1", "Azure Stack HCI Device Management Role", 38, 0, 0, 0, "/", "3885c399e698c2e8"},
		{"874d1c73-6003-4e60-a13a-cb31ea190a85", "Azure Stack HCI VM Contributor", 75, 0, 0, 0, "/", "150f4439574befa7"},
		{"4b3fe76c-f777-4d24-a2d7-b027b0f7b273", "Azure Stack HCI VM Reader", 42, 0, 0, 0, "/", "5d56d1c400430735"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := byID[tt.id]
			if !ok || r.Name != tt.name || !r.Defined {
				t.Fatalf("role %s: got %+v", tt.id, r)
			}
			if len(r.Actions) != tt.actions || len(r.NotActions) != tt.notActions || len(r.DataActions) != tt.data || len(r.NotDataActions) != tt.notData {
				t.Errorf("counts: actions %d, notActions %d, dataActions %d, notDataActions %d; the dump has %d, %d, %d, %d",
					len(r.Actions), len(r.NotActions), len(r.DataActions), len(r.NotDataActions), tt.actions, tt.notActions, tt.data, tt.notData)
			}
			if got := strings.Join(r.AssignableScopes, ","); got != tt.scopes {
				t.Errorf("assignable scopes %s, the dump has %s", got, tt.scopes)
			}
			if got := verifiedFingerprint(r); got != tt.fingerprint {
				t.Errorf("lists fingerprint %s, the dump's is %s: an entry differs", got, tt.fingerprint)
			}
		})
	}
}

// TestCatalogDocsPageWhereDumpDiffers pins the three docs-sourced roles whose docs page (the
// source permissions.json names for them) lists fewer entries than the dump, a newer copy:
// each keeps the page's lists, as permissions.json's header says. The dump adds
// Microsoft.Insights/diagnosticSettings/*/read, Microsoft.insights/logs/read and
// Microsoft.insights/logs/ApiManagementGatewayLogs/read to API Management Workspace Reader,
// Microsoft.ApiCenter/deletedServices/* to Azure API Center Service Contributor, and the
// notDataAction Microsoft.AppConfiguration/configurationStores/useSasAuth/action to App
// Configuration Data Owner.
func TestCatalogDocsPageWhereDumpDiffers(t *testing.T) {
	byID := map[string]Role{}
	for _, r := range Roles() {
		byID[r.ID] = r
	}
	tests := []struct {
		id, name                           string
		actions, notActions, data, notData int
		absent                             string
	}{
		{"ef1c2c96-4a77-49e8-b9a4-6179fe1d2fd2", "API Management Workspace Reader", 2, 0, 0, 0, "Microsoft.insights/logs/read"},
		{"dd24193f-ef65-44e5-8a7e-6fa6e03f7713", "Azure API Center Service Contributor", 6, 1, 0, 0, "Microsoft.ApiCenter/deletedServices/*"},
		{"5ae67dd6-50cb-40e7-96ff-dc2bfa4b606b", "App Configuration Data Owner", 0, 0, 4, 0, "Microsoft.AppConfiguration/configurationStores/useSasAuth/action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := byID[tt.id]
			if !ok || r.Name != tt.name || !r.Defined {
				t.Fatalf("role %s: got %+v", tt.id, r)
			}
			if len(r.Actions) != tt.actions || len(r.NotActions) != tt.notActions || len(r.DataActions) != tt.data || len(r.NotDataActions) != tt.notData {
				t.Errorf("counts: actions %d, notActions %d, dataActions %d, notDataActions %d", len(r.Actions), len(r.NotActions), len(r.DataActions), len(r.NotDataActions))
			}
			if slices.Contains(slices.Concat(r.Actions, r.NotActions, r.DataActions, r.NotDataActions), tt.absent) {
				t.Errorf("%s is the dump's, not the docs page's", tt.absent)
			}
		})
	}
}
