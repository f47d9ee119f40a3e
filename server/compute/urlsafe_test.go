package compute_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
)

// urlSafe is b as the Google Cloud CLI writes a bytes member back: URL-safe base64 (here
// also without its padding, which the protobuf JSON mapping allows too).
func urlSafe(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// TestURLSafeFingerprints: a bytes member is read in either base64 alphabet, padded or
// not, as the protobuf JSON mapping reads it, and a fingerprint is compared as the bytes it
// encodes: the CLI's setLabels and patch with a fingerprint holding '+' or '/' (sent as '-'
// or '_') succeed, and a stale one is still 412.
func TestURLSafeFingerprints(t *testing.T) {
	srv, _ := apiServer(t, operations.Mode{})
	c := apiClient(t, srv, "dev@example.com")
	apiInsert(t, c, "fr-b64", nil, map[string]string{"env": "prod"})

	setLabels := func(labels, fingerprint string) *gen.GlobalForwardingRulesSetLabelsResponse {
		t.Helper()
		resp, err := c.GlobalForwardingRulesSetLabelsWithBodyWithResponse(apiCtx, apiProject, "fr-b64", nil, "application/json",
			strings.NewReader(`{"labels":`+labels+`,"labelFingerprint":"`+fingerprint+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// Relabel until the fingerprint's standard form holds '+' or '/' (about 3 in 10 do).
	var fp []byte
	for i := 0; ; i++ {
		fp = apiGetRule(t, c, "fr-b64").JSON200.LabelFingerprint
		if std := base64.StdEncoding.EncodeToString(fp); strings.ContainsAny(std, "+/") {
			break
		} else if i == 100 {
			t.Fatal("no fingerprint with '+' or '/' in 100 label changes")
		} else if r := setLabels(fmt.Sprintf(`{"n":"%d"}`, i), std); r.StatusCode() != 200 {
			t.Fatalf("setLabels: %d %s", r.StatusCode(), r.Body)
		}
	}
	if r := setLabels(`{"env":"cli"}`, urlSafe(fp)); r.StatusCode() != 200 {
		t.Fatalf("setLabels with the URL-safe fingerprint %s: %d %s", urlSafe(fp), r.StatusCode(), r.Body)
	}
	if got := apiGetRule(t, c, "fr-b64").JSON200; (*got.Labels)["env"] != "cli" {
		t.Errorf("labels after setLabels: %v", *got.Labels)
	}
	r := setLabels(`{"env":"stale"}`, urlSafe(fp))
	wantGoogleError(t, r.StatusCode(), r.Body, 412, "conditionNotMet")
	r = setLabels(`{"env":"bad"}`, "a*b=")
	wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid")

	// An interconnect's labels through patch, as `gcloud compute interconnects update
	// --update-labels` sends them.
	ins, err := c.InterconnectsInsertWithResponse(apiCtx, apiProject, nil, gen.Interconnect{Name: "ic-b64",
		Location:           "https://www.googleapis.com/compute/v1/projects/" + apiProject + "/global/interconnectLocations/iad-zone1-1",
		LinkType:           gen.InterconnectLinkTypeLINKTYPEETHERNET10GLR,
		InterconnectType:   gen.InterconnectInterconnectTypeDEDICATED,
		RequestedLinkCount: 1})
	if err != nil || ins.StatusCode() != 200 {
		t.Fatalf("insert interconnect: %v %s", err, ins.Body)
	}
	for i := 0; ; i++ {
		got, err := c.InterconnectsGetWithResponse(apiCtx, apiProject, "ic-b64", nil)
		if err != nil || got.JSON200 == nil {
			t.Fatalf("get interconnect: %v", err)
		}
		fp = got.JSON200.LabelFingerprint
		std := base64.StdEncoding.EncodeToString(fp)
		sent := std
		if strings.ContainsAny(std, "+/") {
			sent = urlSafe(fp)
		} else if i == 100 {
			t.Fatal("no fingerprint with '+' or '/' in 100 label changes")
		}
		p, err := c.InterconnectsPatchWithBodyWithResponse(apiCtx, apiProject, "ic-b64", nil, "application/json",
			strings.NewReader(fmt.Sprintf(`{"labels":{"n":"%d"},"labelFingerprint":"%s"}`, i, sent)))
		if err != nil || p.StatusCode() != 200 {
			t.Fatalf("patch with fingerprint %s: %v %d %s", sent, err, p.StatusCode(), p.Body)
		}
		if sent != std {
			break
		}
	}
}
