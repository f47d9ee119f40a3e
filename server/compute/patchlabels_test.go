package compute_test

import (
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
	for _, path := range []string{"global/interconnects/ic-lf", "regions/us-east4/interconnectAttachments/att-lf"} {
		_, fp, _ := w.labels(path)
		w.accepted("PATCH", path, `{"labels":{"env":"prod"},"labelFingerprint":"`+fp+`"}`)
		labels, fp, _ := w.labels(path)

		status, b := w.raw("PATCH", path, `{"labels":{"env":"dev"},"description":"lost"}`)
		e := wantGoogleError(t, status, b, 412, "conditionNotMet")
		if e.Message != "Labels fingerprint either invalid or resource labels have changed" {
			t.Errorf("%s without a fingerprint: %q", path, e.Message)
		}
		if got, gotFP, desc := w.labels(path); !maps.Equal(got, labels) || gotFP != fp || desc != "" {
			t.Errorf("%s: the refused patch changed it: %v %s %q", path, got, gotFP, desc)
		}
		status, b = w.raw("PATCH", path, `{"labels":{"env":"dev"},"labelFingerprint":"42WmSpB8rSM="}`)
		wantGoogleError(t, status, b, 412, "conditionNotMet")

		w.accepted("PATCH", path, `{"labels":{"env":"prod"},"description":"same labels"}`)
		w.accepted("PATCH", path, `{"labels":{},"description":"no labels sent"}`)
		if got, gotFP, desc := w.labels(path); !maps.Equal(got, labels) || gotFP != fp || desc != "no labels sent" {
			t.Errorf("%s after patches that change no label: %v %s %q", path, got, gotFP, desc)
		}
	}
}
