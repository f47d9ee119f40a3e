package wirebytes

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"
)

// TestBothAlphabets: every form the protobuf JSON mapping accepts reads as the same bytes,
// and the bytes are written back in standard padded base64.
func TestBothAlphabets(t *testing.T) {
	want := []byte{0xfb, 0xff, 0xbf, 0x01, 0x02} // holds + and / in standard base64
	std := base64.StdEncoding.EncodeToString(want)
	for _, s := range []string{std, base64.RawStdEncoding.EncodeToString(want),
		base64.URLEncoding.EncodeToString(want), base64.RawURLEncoding.EncodeToString(want)} {
		var b Bytes
		if err := json.Unmarshal([]byte(`"`+s+`"`), &b); err != nil || !bytes.Equal(b, want) {
			t.Errorf("%q: %x %v, want %x", s, []byte(b), err, want)
		}
		out, err := json.Marshal(b)
		if err != nil || string(out) != `"`+std+`"` {
			t.Errorf("%q written back as %s %v, want %q", s, out, err, std)
		}
	}
	for _, bad := range []string{`"a"`, `"a==="`, `"@@@@"`, `1`} {
		var b Bytes
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("%s read as %x", bad, []byte(b))
		}
	}
	b := Bytes(want)
	if err := json.Unmarshal([]byte(`null`), &b); err != nil || !bytes.Equal(b, want) {
		t.Errorf("null changed %x to %x (%v)", want, []byte(b), err)
	}
}
