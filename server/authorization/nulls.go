package authorization

import (
	"bytes"
	"context"

	"github.com/understudy-dev/understudy/server/validate"
)

// dropNulls is the body validation judges (validate.Options.Rewrite): data with the members
// whose value is JSON null removed from its objects, because ARM reads a null member as an
// absent one ("description": null is no description), while the spec's schemas, like most,
// do not allow null. Null array elements stay, and are refused by validation as ARM refuses
// them. A body without the word null, or not JSON, passes untouched (nil): validation
// reports what is wrong with it.
func dropNulls(ctx context.Context, _ string, data []byte) (context.Context, []byte) {
	if !bytes.Contains(data, []byte("null")) {
		return ctx, nil
	}
	return ctx, validate.WithoutNulls(data)
}
