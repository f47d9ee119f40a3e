package compute_test

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/understudy-dev/understudy/internal/operations"
)

// TestPatchEmptyLabels: a patch's "labels": {} without a labelFingerprint changes no label.
// Google's Node client (@google-cloud/compute over REST) writes the proto3 JSON of the
// resource, in which a map is always present: every patch it sends has "labels": {}, on a
// resource with labels or without. A rule's patch is not refused for it, an interconnect's
// or an attachment's keeps its labels; with the labelFingerprint, the empty labels are still
// what `gcloud beta compute interconnects update --clear-labels` sends to clear them.
func TestPatchEmptyLabels(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	want := map[string]string{"env": "prod"}

	w.accepted("POST", "global/forwardingRules", `{"name":"fr-l","portRange":"80","labels":{"env":"prod"}}`)
	w.accepted("PATCH", "global/forwardingRules/fr-l", `{"labels":{},"networkTier":"PREMIUM"}`)
	if got, _, _ := w.labels("global/forwardingRules/fr-l"); !maps.Equal(got, want) {
		t.Errorf("rule labels after a patch with empty labels: %v", got)
	}
	status, b := w.raw("PATCH", "global/forwardingRules/fr-l", `{"labels":{"env":"dev"}}`)
	wantGoogleError(t, status, b, 400, "invalid") // labels change through setLabels only

	w.interconnect("ic-l", "iad-zone1-1")
	_, fp, _ := w.labels("global/interconnects/ic-l")
	w.accepted("POST", "global/interconnects/ic-l/setLabels", `{"labels":{"env":"prod"},"labelFingerprint":"`+fp+`"}`)
	w.accepted("PATCH", "global/interconnects/ic-l", `{"labels":{},"description":"patched"}`)
	got, fp, _ := w.labels("global/interconnects/ic-l")
	if !maps.Equal(got, want) {
		t.Errorf("interconnect labels after a patch with empty labels: %v", got)
	}

	w.attachment("us-east4", "att-l", "ic-l", true)
	_, afp, _ := w.labels("regions/us-east4/interconnectAttachments/att-l")
	w.accepted("POST", "regions/us-east4/interconnectAttachments/att-l/setLabels", `{"labels":{"env":"prod"},"labelFingerprint":"`+afp+`"}`)
	w.accepted("PATCH", "regions/us-east4/interconnectAttachments/att-l", `{"labels":{},"mtu":1500}`)
	if got, _, _ := w.labels("regions/us-east4/interconnectAttachments/att-l"); !maps.Equal(got, want) {
		t.Errorf("attachment labels after a patch with empty labels: %v", got)
	}

	// With the fingerprint, empty labels clear them (gcloud --clear-labels).
	w.accepted("PATCH", "global/interconnects/ic-l", `{"labels":{},"labelFingerprint":"`+fp+`"}`)
	if got, _, _ := w.labels("global/interconnects/ic-l"); len(got) != 0 {
		t.Errorf("interconnect labels after clearing with the fingerprint: %v", got)
	}
}

// TestPatchFingerprintWithoutLabels: a patch with a labelFingerprint and no labels member
// clears the labels, as one with "labels": {} does: in proto3 JSON an absent map and an
// empty one are the same message. Google's GAPIC Go client (cloud.google.com/go/compute)
// leaves an empty map out of the body, so what it sends to clear labels through a patch is
// the fingerprint alone; a stale one is 412, as with the labels.
func TestPatchFingerprintWithoutLabels(t *testing.T) {
	w := newWorld(t, operations.Mode{})

	w.interconnect("ic-f", "iad-zone1-1")
	w.attachment("us-east4", "att-f", "ic-f", true)
	for _, path := range []string{"global/interconnects/ic-f", "regions/us-east4/interconnectAttachments/att-f"} {
		_, stale, _ := w.labels(path)
		w.accepted("POST", path+"/setLabels", `{"labels":{"env":"prod"},"labelFingerprint":"`+stale+`"}`)
		_, fp, _ := w.labels(path)
		// Without the fingerprint the labels stay; a stale one is 412; the current one clears.
		w.accepted("PATCH", path, `{"description":"kept"}`)
		if got, _, _ := w.labels(path); got["env"] != "prod" {
			t.Errorf("%s: labels after a patch without them: %v", path, got)
		}
		status, b := w.raw("PATCH", path, `{"labelFingerprint":"`+stale+`"}`)
		wantGoogleError(t, status, b, 412, "conditionNotMet")
		w.accepted("PATCH", path, `{"description":"cleared","labelFingerprint":"`+fp+`"}`)
		if got, next, _ := w.labels(path); len(got) != 0 || next == fp {
			t.Errorf("%s: after a patch with the fingerprint alone: labels %v, fingerprint %s (was %s)", path, got, next, fp)
		}
	}
}

// labels reads the labels and labelFingerprint of the resource at path (and its
// description, which some patches change beside them).
func (w *world) labels(path string) (labels map[string]string, fingerprint, description string) {
	w.t.Helper()
	status, b := w.raw("GET", path, "")
	if status != 200 {
		w.t.Fatalf("get %s: %d %s", path, status, b)
	}
	var r struct {
		Labels           map[string]string `json:"labels"`
		LabelFingerprint string            `json:"labelFingerprint"`
		Description      string            `json:"description"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		w.t.Fatal(err)
	}
	return r.Labels, r.LabelFingerprint, r.Description
}

// accepted sends body to path with method and fails the test unless the answer is 200.
func (w *world) accepted(method, path, body string) {
	w.t.Helper()
	if status, b := w.raw(method, path, body); status != 200 {
		w.t.Fatalf("%s %s %s: %d %s", method, path, body, status, b)
	}
}
