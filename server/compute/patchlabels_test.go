package compute_test

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/understudy-dev/understudy/internal/operations"
)

// TestPatchLabelsNeedFingerprint: labels a patch of an interconnect or attachment changes
// take an up-to-date labelFingerprint, as the discovery document says of labelFingerprint
// ("otherwise the request will fail with error 412 conditionNotMet"); without one the patch
// is refused as setLabels refuses a stale one, and changes nothing. They were applied. Labels
// equal to the resource's need none, and "labels": {} without one sends no labels (Google's
// Node client puts it in every patch). The Google Cloud CLI sends the fingerprint it read
// with every labels update.
func TestPatchLabelsNeedFingerprint(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	w.interconnect("ic-lf", "iad-zone1-1")
	w.attachment("us-east4", "att-lf", "ic-lf", true)
	read := func(path string) (map[string]string, string, string) {
		t.Helper()
		_, b := w.raw("GET", path, "")
		var r struct {
			Labels           map[string]string `json:"labels"`
			LabelFingerprint string            `json:"labelFingerprint"`
			Description      string            `json:"description"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		return r.Labels, r.LabelFingerprint, r.Description
	}
	for _, path := range []string{"global/interconnects/ic-lf", "regions/us-east4/interconnectAttachments/att-lf"} {
		ok := func(body string) {
			t.Helper()
			if status, b := w.raw("PATCH", path, body); status != 200 {
				t.Fatalf("%s %s: %d %s", path, body, status, b)
			}
		}
		_, fp, _ := read(path)
		ok(`{"labels":{"env":"prod"},"labelFingerprint":"` + fp + `"}`)
		labels, fp, _ := read(path)

		status, b := w.raw("PATCH", path, `{"labels":{"env":"dev"},"description":"lost"}`)
		e := wantGoogleError(t, status, b, 412, "conditionNotMet")
		if e.Message != "Labels fingerprint either invalid or resource labels have changed" {
			t.Errorf("%s without a fingerprint: %q", path, e.Message)
		}
		if got, gotFP, desc := read(path); !maps.Equal(got, labels) || gotFP != fp || desc != "" {
			t.Errorf("%s: the refused patch changed it: %v %s %q", path, got, gotFP, desc)
		}
		status, b = w.raw("PATCH", path, `{"labels":{"env":"dev"},"labelFingerprint":"42WmSpB8rSM="}`)
		wantGoogleError(t, status, b, 412, "conditionNotMet")

		ok(`{"labels":{"env":"prod"},"description":"same labels"}`)
		ok(`{"labels":{},"description":"no labels sent"}`)
		if got, gotFP, desc := read(path); !maps.Equal(got, labels) || gotFP != fp || desc != "no labels sent" {
			t.Errorf("%s after patches that change no label: %v %s %q", path, got, gotFP, desc)
		}
	}
}
