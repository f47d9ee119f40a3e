package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/validate"
)

// resourcePatches are the patch methods whose body is the resource itself, a JSON merge
// patch (RFC 7396; the discovery document says so), in which a member given as null is the
// member removed. The group patches declare their nullable members in the spec instead.
var resourcePatches = []string{"globalForwardingRules.patch", "interconnects.patch", "interconnectAttachments.patch"}

// nullsKey carries, in a patch request's context, the members its body gave as null.
type nullsKey struct{}

// patchNulls takes the top-level members a merge patch gives as null out of its body
// before validation (the resource's schema, like the real one, has no nullable members)
// and keeps their names for the handler (nullMembers), which removes them from the
// resource: the Google Cloud CLI sends them ('forwarding-rules update
// --clear-external-managed-backend-bucket-migration-state', and 'forwarding-rules import'
// of an unchanged export, "allowGlobalAccess": null). A body that is not one JSON object
// passes as it is, for validation to judge.
func patchNulls(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Body == nil || req.Body == http.NoBody {
			return next(c)
		}
		data, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			req.Body = validate.FailedBody(data, err)
			return next(c)
		}
		req.Body = validate.Body(data)
		if !bytes.Contains(data, []byte("null")) {
			return next(c)
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(data, &members) != nil {
			return next(c)
		}
		var nulls []string
		for name, v := range members {
			if string(v) == "null" {
				nulls = append(nulls, name)
				delete(members, name)
			}
		}
		if len(nulls) == 0 {
			return next(c)
		}
		slices.Sort(nulls)
		data, err = json.Marshal(members)
		if err != nil {
			return err
		}
		req.Body, req.ContentLength = validate.Body(data), int64(len(data))
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), nullsKey{}, nulls)))
		return next(c)
	}
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
