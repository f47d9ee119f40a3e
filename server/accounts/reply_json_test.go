package accounts

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/understudy-dev/understudy/internal/jsonout/jsonouttest"
)

// TestAppendLinkMatchesEncodingJSON: for random values of linkWire (every member, nil and
// empty slices and pointers included), appendLink writes what encoding/json writes.
func TestAppendLinkMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for i := range 20000 {
		var l linkWire
		jsonouttest.Fill(rng, reflect.ValueOf(&l).Elem())
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(&l); err != nil {
			t.Fatal(err)
		}
		if got := appendLink(nil, &l); !bytes.Equal(append(got, '\n'), want.Bytes()) {
			t.Fatalf("value %d:\n got %s\nwant %s", i, got, want.Bytes())
		}
	}
}
