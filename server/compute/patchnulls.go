package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/understudy-dev/understudy/server/validate"
)

// resourcePatches are the patch methods whose body is the resource itself, a JSON merge
// patch (RFC 7396; the discovery document says so), in which a member given as null is the
// member removed. The group patches declare their nullable members in the spec instead.
var resourcePatches = []string{"globalForwardingRules.patch", "interconnects.patch", "interconnectAttachments.patch"}

// replacedWhole are, by patch method, the object members the patch replaces with the value
// sent rather than merging it in (interconnects_change.go). Inside them a member given as
// null is a member not set, as proto3 JSON reads null: `gcloud alpha compute interconnects
// application-awareness delete` sends "bandwidthPercentagePolicy": null and
// "strictPriorityPolicy": null inside applicationAwareInterconnect.
var replacedWhole = map[string][]string{"interconnects.patch": {"macsec", "applicationAwareInterconnect"}}

// nullsKey carries, in a patch request's context, the members its body gave as null.
type nullsKey struct{}

// patchNulls takes the top-level members a merge patch gives as null out of its body
// before validation (validate.Options.Rewrite; the resource's schema, like the real one,
// has no nullable members) and keeps their names in ctx for the handler (nullMembers),
// which removes them from the resource: the Google Cloud CLI sends them ('forwarding-rules
// update --clear-external-managed-backend-bucket-migration-state', and 'forwarding-rules
// import' of an unchanged export, "allowGlobalAccess": null). Other operations' bodies,
// and a body that is not one JSON object, pass as they are (nil), for validation to judge.
func patchNulls(ctx context.Context, op string, data []byte) (context.Context, []byte) {
	if !slices.Contains(resourcePatches, op) || !bytes.Contains(data, []byte("null")) {
		return ctx, nil
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil {
		return ctx, nil
	}
	var nulls []string
	rewritten := false
	for name, v := range members {
		if string(v) == "null" {
			nulls = append(nulls, name)
			delete(members, name)
			continue
		}
		if slices.Contains(replacedWhole[op], name) && bytes.Contains(v, []byte("null")) {
			if unset := validate.WithoutNulls(v); unset != nil {
				members[name], rewritten = unset, true
			}
		}
	}
	if len(nulls) == 0 && !rewritten {
		return ctx, nil
	}
	out, err := json.Marshal(members)
	if err != nil {
		return ctx, nil
	}
	if len(nulls) == 0 {
		return ctx, out
	}
	slices.Sort(nulls)
	return context.WithValue(ctx, nullsKey{}, nulls), out
}

// nullMembers are the members the patch request's body gave as null, sorted (patchNulls).
func nullMembers(ctx context.Context) []string {
	nulls, _ := ctx.Value(nullsKey{}).([]string)
	return nulls
}

// withNulls is sent, a patch body's members, with the members it gave as null added as
// null: what a merge patch removes, judged with what it sets.
func withNulls(sent map[string]json.RawMessage, nulls []string) map[string]json.RawMessage {
	for _, k := range nulls {
		sent[k] = json.RawMessage("null")
	}
	return sent
}

// removeMembers is v without the members names (by their wire names), through its JSON.
func removeMembers[T any](v T, names []string) (T, error) {
	if len(names) == 0 {
		return v, nil
	}
	m, err := jsonMembers(v)
	if err != nil {
		return v, err
	}
	for _, k := range names {
		delete(m, k)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return v, err
	}
	var out T
	err = json.Unmarshal(raw, &out)
	return out, err
}
