package compute

import (
	"sort"
	"strings"

	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store/compat"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// Advance finishes the operations that are due and forgets the expired ones, as a request
// to the API does before it reads: an export made after it shows what a read would.
func (s *Server) Advance() error { return s.ops.Advance() }

// Export is every project's state as seed entries (see SeedProject), by project: its
// resources in name order, each with its id, creation time and change counts, and its
// finished operations in acceptance order. Loaded back, every resource and operation reads
// and lists as it did. What reads do not show is left out: a resource whose insert is
// still running, and the running operations themselves, whose effect has not happened (a
// resource whose delete is running is exported, as it still reads).
func (s *Server) Export(tx *store.Tx) []SeedProject {
	projects := map[string]*SeedProject{}
	project := func(p string) *SeedProject {
		if projects[p] == nil {
			projects[p] = &SeedProject{Project: p}
		}
		return projects[p]
	}
	for _, ic := range sortedBy(tx, s.tables.Interconnects, Interconnect.Key) {
		if !ic.Pending {
			project(ic.Project).Interconnects = append(project(ic.Project).Interconnects, interconnectEntry(ic))
		}
	}
	for _, a := range sortedBy(tx, s.tables.Attachments, InterconnectAttachment.Key) {
		if !a.Pending {
			project(a.Project).Attachments = append(project(a.Project).Attachments, attachmentEntry(a))
		}
	}
	for _, r := range sortedBy(tx, s.tables.ForwardingRules, ForwardingRule.Key) {
		if !r.Pending {
			project(r.Project).ForwardingRules = append(project(r.Project).ForwardingRules, ruleEntry(r))
		}
	}
	for _, g := range sortedBy(tx, s.tables.Groups, AttachmentGroup.Key) {
		if !g.Pending {
			e := groupEntry(g)
			s.policyMember(tx, e, policyKey(g.Project, "interconnectAttachmentGroups", g.ID))
			project(g.Project).Groups = append(project(g.Project).Groups, e)
		}
	}
	for _, g := range sortedBy(tx, s.tables.InterconnectGroups, InterconnectGroup.Key) {
		if !g.Pending {
			e := s.icGroupEntry(tx, g)
			s.policyMember(tx, e, policyKey(g.Project, "interconnectGroups", g.ID))
			project(g.Project).InterconnectGroups = append(project(g.Project).InterconnectGroups, e)
		}
	}
	for _, op := range s.ops.Finished(tx) {
		project(op.Project).Operations = append(project(op.Project).Operations, operationEntry(op))
	}
	out := make([]SeedProject, 0, len(projects))
	for _, p := range projects {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Project < out[j].Project })
	return out
}

// sortedBy is every record of t, in the order of key.
func sortedBy[R any](tx *store.Tx, t *store.Table[R], key func(R) string) []R {
	var out []R
	t.Each(tx, func(_ string, r R) bool {
		out = append(out, r)
		return true
	})
	sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

// recordedMembers adds what takeRecorded reads back to entry.
func recordedMembers(entry map[string]any, id string, created string, generation string, n uint64) map[string]any {
	entry["id"], entry["creationTimestamp"] = id, created
	if n > 0 {
		entry[generation] = n
	}
	return entry
}

// described adds the members that are shown only when set.
func described(entry map[string]any, members map[string]string) {
	for k, v := range members {
		if v != "" {
			entry[k] = v
		}
	}
}

// flags adds the boolean members that are shown only when true.
func flags(entry map[string]any, members map[string]bool) {
	for k, v := range members {
		if v {
			entry[k] = v
		}
	}
}

// kept adds the members kept as the JSON the client sent (see opaque.go).
func kept(entry map[string]any, members map[string][]byte) {
	for k, v := range members {
		if len(v) > 0 {
			entry[k] = exportJSON(v)
		}
	}
}

// lists adds the list members that are shown only when not empty.
func lists(entry map[string]any, members map[string][]string) {
	for k, v := range members {
		if len(v) > 0 {
			entry[k] = v
		}
	}
}

func labelsMember(entry map[string]any, labels map[string]string) {
	if len(labels) > 0 {
		entry["labels"] = labels
	}
}

func ruleEntry(r ForwardingRule) map[string]any {
	e := map[string]any{"name": r.Name, "IPAddress": r.IPAddress, "IPProtocol": r.IPProtocol,
		"loadBalancingScheme": r.LoadBalancingScheme, "ipVersion": r.IPVersion, "networkTier": r.NetworkTier}
	described(e, map[string]string{"description": r.Description, "portRange": r.PortRange, "target": r.Target, "network": r.Network,
		"subnetwork": r.Subnetwork, "backendService": r.BackendService, "ipCollection": r.IPCollection,
		"externalManagedBackendBucketMigrationState": r.MigrationState})
	flags(e, map[string]bool{"allowPscGlobalAccess": r.AllowPscGlobalAccess, "noAutomateDnsZone": r.NoAutomateDNSZone})
	kept(e, map[string][]byte{"metadataFilters": r.MetadataFilters, "serviceDirectoryRegistrations": r.ServiceDirectoryRegistrations})
	if r.MigrationPercentage != nil {
		e["externalManagedBackendBucketMigrationTestingPercentage"] = *r.MigrationPercentage
	}
	labelsMember(e, r.Labels)
	counted(e, "generation", r.Generation)
	return recordedMembers(e, r.ID, timefmt.Exact(r.Created), "labelGeneration", r.LabelGeneration)
}

func interconnectEntry(ic Interconnect) map[string]any {
	e := map[string]any{"name": ic.Name, "location": ic.Location, "linkType": ic.LinkType, "requestedLinkCount": ic.RequestedLinkCount,
		"interconnectType": ic.InterconnectType, "adminEnabled": ic.AdminEnabled}
	described(e, map[string]string{"description": ic.Description, "customerName": ic.CustomerName, "nocContactEmail": ic.NocContactEmail,
		"remoteLocation": ic.RemoteLocation, "subzone": ic.Subzone})
	flags(e, map[string]bool{"macsecEnabled": ic.MacsecEnabled, "aaiEnabled": ic.AAIEnabled})
	kept(e, map[string][]byte{"macsec": ic.Macsec, "applicationAwareInterconnect": ic.ApplicationAwareInterconnect})
	lists(e, map[string][]string{"requestedFeatures": ic.RequestedFeatures})
	labelsMember(e, ic.Labels)
	counted(e, "labelGeneration", ic.LabelGeneration)
	if ic.CircuitDown {
		e["circuitDown"] = true
	}
	return recordedMembers(e, ic.ID, timefmt.Exact(ic.Created), "generation", ic.Generation)
}

func attachmentEntry(a InterconnectAttachment) map[string]any {
	e := map[string]any{"name": a.Name, "region": a.Region, "interconnect": a.Interconnect, "type": a.Type, "adminEnabled": a.AdminEnabled,
		"vlanTag8021q": a.VlanTag, "bandwidth": a.Bandwidth, "mtu": a.Mtu, "stackType": a.StackType, "encryption": a.Encryption}
	described(e, map[string]string{"description": a.Description, "router": a.Router,
		"candidateCloudRouterIpAddress": a.CandidateCloudRouterIP, "candidateCustomerRouterIpAddress": a.CandidateCustomerRouterIP,
		"candidateCloudRouterIpv6Address": a.CandidateCloudRouterIPv6, "candidateCustomerRouterIpv6Address": a.CandidateCustomerRouterIPv6,
		"cloudRouterIpv6InterfaceId": a.CloudRouterIPv6InterfaceID, "customerRouterIpv6InterfaceId": a.CustomerRouterIPv6InterfaceID,
		// Assigned, not asked for: the seed takes them back as they are (assignedAddresses).
		"cloudRouterIpAddress": a.CloudRouterIP, "customerRouterIpAddress": a.CustomerRouterIP,
		"cloudRouterIpv6Address": a.CloudRouterIPv6, "customerRouterIpv6Address": a.CustomerRouterIPv6})
	lists(e, map[string][]string{"candidateSubnets": a.CandidateSubnets, "candidateIpv6Subnets": a.CandidateIPv6Subnets,
		"ipsecInternalAddresses": a.IpsecInternalAddresses})
	labelsMember(e, a.Labels)
	counted(e, "labelGeneration", a.LabelGeneration)
	if a.CircuitDown {
		e["circuitDown"] = true
	}
	return recordedMembers(e, a.ID, timefmt.Exact(a.Created), "generation", a.Generation)
}

func groupEntry(g AttachmentGroup) map[string]any {
	e := map[string]any{"name": g.Name, "intent": map[string]any{"availabilitySla": g.Intent}}
	described(e, map[string]string{"description": g.Description, "interconnectGroup": g.InterconnectGroup})
	if len(g.Attachments) > 0 {
		held := map[string]any{}
		for k, key := range g.Attachments {
			parts := strings.SplitN(key, "|", 3) // project|region|name
			held[k] = parts[1] + "/" + parts[2]
		}
		e["attachments"] = held
	}
	return recordedMembers(e, g.ID, timefmt.Exact(g.Created), "generation", g.Generation)
}

// operationEntry is op as SeedOperation records it. A stored targetLink (a URL of the
// server that answered the change) is kept as its path under /compute/v1/, as a derived
// one is, so that a replay shows it as a URL of its own.
func operationEntry(op operations.Operation) SeedOperation {
	so := SeedOperation{Name: op.Name, ID: op.ID, Sequence: op.Seq, OperationType: op.OperationType, TargetID: op.TargetID,
		User: op.User, ClientOperationID: op.ClientOperationID, Description: op.Description, Status: op.Status,
		InsertTime: timefmt.Exact(op.InsertTime), StartTime: timefmt.Exact(op.StartTime), EndTime: timefmt.Exact(op.EndTime)}
	if _, region, ok := cutRegion(op.Scope); ok {
		so.Region = region
	}
	switch {
	case op.TargetLink != "":
		so.TargetLink = op.TargetLink
		if i := strings.Index(op.TargetLink, "/compute/v1/"); i >= 0 {
			so.TargetLink = op.TargetLink[i+len("/compute/v1/"):]
		}
	case targetCollections[op.Kind] != "":
		so.TargetLink = op.Scope + targetCollections[op.Kind] + op.Target[strings.LastIndexByte(op.Target, '|')+1:]
	}
	if f := op.Failure; f != nil {
		so.HTTPErrorStatusCode, so.HTTPErrorMessage = f.HTTPStatus, f.HTTPMessage
		so.Error = &SeedOperationError{}
		for _, e := range f.Errors {
			so.Error.Errors = append(so.Error.Errors, SeedOperationErrorItem{Code: e.Code, Message: e.Message, Location: e.Location, ErrorDetails: e.Details})
		}
	}
	return so
}
