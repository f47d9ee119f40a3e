package compute

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
)

// InterconnectsGetDiagnostics reports an interconnect's links, derived from its state: the
// values the real service measures (optical power, MAC addresses, LACP ids) are plausible
// ones fixed per interconnect, and every link is up exactly when the interconnect is
// operational (admin-enabled, circuit not set down).
func (s *Server) InterconnectsGetDiagnostics(ctx context.Context, req gen.InterconnectsGetDiagnosticsRequestObject) (gen.InterconnectsGetDiagnosticsResponseObject, error) {
	var out gen.InterconnectDiagnostics
	err := s.db.View(ctx, func(tx *store.Tx) error {
		rec, err := s.readableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return err
		}
		out = s.diagnostics(tx, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsGetDiagnostics200JSONResponse(gen.InterconnectsGetDiagnosticsResponseBody{Result: &out}), nil
}

// diagnostics is the InterconnectDiagnostics of the interconnect of rec.
func (s *Server) diagnostics(tx *store.Tx, rec InterconnectRecord) gen.InterconnectDiagnostics {
	ic := rec.Interconnect
	up := deref(ic.AdminEnabled) && !rec.CircuitDown
	seed := sha256.Sum256([]byte("diagnostics|" + projectOf(*ic.SelfLink) + "|" + *ic.Id))
	mac := func(i byte) string {
		return fmt.Sprintf("00:1a:%02x:%02x:%02x:%02x", seed[0], seed[1], seed[2], seed[3]+i)
	}
	bundle, lacp, link := gen.InterconnectDiagnosticsBundleOperationalStatus("BUNDLE_OPERATIONAL_STATUS_DOWN"), gen.InterconnectDiagnosticsLinkLACPStatusState("DETACHED"), gen.InterconnectDiagnosticsLinkStatusOperationalStatus("LINK_OPERATIONAL_STATUS_DOWN")
	rx, tx2 := float32(-40), float32(-40)
	power := gen.InterconnectDiagnosticsLinkOpticalPowerState("LOW_ALARM")
	if up {
		bundle, lacp, link = "BUNDLE_OPERATIONAL_STATUS_UP", "ACTIVE", "LINK_OPERATIONAL_STATUS_UP"
		rx, tx2, power = -2.5, -1.8, "OK"
	}
	out := gen.InterconnectDiagnostics{
		MacAddress: ptr(mac(0)), BundleOperationalStatus: &bundle,
		BundleAggregationType: ptr(gen.InterconnectDiagnosticsBundleAggregationType("BUNDLE_AGGREGATION_TYPE_LACP")),
		ArpCaches:             []gen.InterconnectDiagnosticsARPEntry{}, Links: []gen.InterconnectDiagnosticsLinkStatus{},
	}
	if up {
		// The customer's routers, one per attachment, as the bundle's ARP cache knows them.
		for i, a := range s.attachmentsOn(tx, *ic.SelfLink) {
			if !a.Pending && carries(a.Attachment) && !a.CircuitDown {
				out.ArpCaches = append(out.ArpCaches, gen.InterconnectDiagnosticsARPEntry{
					IpAddress: ptr(fmt.Sprintf("169.254.%d.%d", deref(a.Attachment.VlanTag8021q)%256, 2)), MacAddress: ptr(mac(byte(16 + i)))})
			}
		}
	}
	circuits := ic.CircuitInfos
	for i := range circuits {
		out.Links = append(out.Links, gen.InterconnectDiagnosticsLinkStatus{
			// The circuits of circuitInfos, under the same ids.
			CircuitId: circuits[i].GoogleCircuitId, GoogleDemarc: circuits[i].GoogleDemarcId,
			LacpStatus: &gen.InterconnectDiagnosticsLinkLACPStatus{State: &lacp,
				GoogleSystemId: ptr(mac(byte(i + 1))), NeighborSystemId: ptr(fmt.Sprintf("00:1b:%02x:%02x:%02x:%02x", seed[8], seed[9], seed[10], i+1))},
			OperationalStatus:        &link,
			ReceivingOpticalPower:    &gen.InterconnectDiagnosticsLinkOpticalPower{State: &power, Value: &rx},
			TransmittingOpticalPower: &gen.InterconnectDiagnosticsLinkOpticalPower{State: &power, Value: &tx2},
			ArpCaches:                []gen.InterconnectDiagnosticsARPEntry{},
		})
	}
	return out
}

// InterconnectsGetMacsecConfig reports an interconnect's MACsec keys. No interconnect here
// has MACsec configured, so the list is empty; the etag identifies the interconnect's
// current configuration.
func (s *Server) InterconnectsGetMacsecConfig(ctx context.Context, req gen.InterconnectsGetMacsecConfigRequestObject) (gen.InterconnectsGetMacsecConfigResponseObject, error) {
	var etag string
	var keys []gen.InterconnectMacsecConfigPreSharedKey
	err := s.db.View(ctx, func(tx *store.Tx) error {
		rec, err := s.readableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return err
		}
		h := sha256.New()
		h.Write([]byte("macsec|"))
		writeState(h, rec.Interconnect, rec.CircuitDown)
		etag = base64.StdEncoding.EncodeToString(h.Sum(nil)[:8])
		keys = macsecKeys(rec.Interconnect)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsGetMacsecConfig200JSONResponse(gen.InterconnectsGetMacsecConfigResponseBody{
		Etag: &etag, Result: &gen.InterconnectMacsecConfig{PreSharedKeys: keys}}), nil
}

// macsecKeys are the keys of the interconnect's MACsec configuration as getMacsecConfig
// reports them: each pre-shared key configured (name, startTime) with the CAK and CKN
// Google generates for it, made up here and stable for the interconnect and key.
func macsecKeys(ic gen.Interconnect) []gen.InterconnectMacsecConfigPreSharedKey {
	keys := []gen.InterconnectMacsecConfigPreSharedKey{}
	if ic.Macsec == nil {
		return keys
	}
	for _, k := range ic.Macsec.PreSharedKeys {
		cak := sha256.Sum256([]byte("macsec-cak|" + *ic.Id + "|" + deref(k.Name)))
		ckn := sha256.Sum256([]byte("macsec-ckn|" + *ic.Id + "|" + deref(k.Name)))
		keys = append(keys, gen.InterconnectMacsecConfigPreSharedKey{Name: k.Name, StartTime: k.StartTime,
			Cak: ptr(hex.EncodeToString(cak[:16])), Ckn: ptr(hex.EncodeToString(ckn[:]))})
	}
	return keys
}
