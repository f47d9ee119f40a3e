package compute

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	"github.com/understudy-dev/understudy/internal/store"
)

// TestNewRuleKey: a new rule's key, id and ephemeral address read as the formats they
// replace, from the same random bytes in the same order (8 for the id, then 3 for the
// address, and none for an address given), and the rule holds them as one string.
func TestNewRuleKey(t *testing.T) {
	for i := range 200 {
		stream := make([]byte, 11)
		for k := range stream {
			stream[k] = byte(i*37 + k*i*91 + 5)
		}
		if i == 1 {
			stream = bytes.Repeat([]byte{0xff}, 11)
		}
		cfg := DefaultConfig()
		cfg.Random = bytes.NewReader(stream)
		s := New(cfg, store.New())
		given := i%3 == 0
		rule := store.ForwardingRule{Project: "my-project", Name: fmt.Sprintf("rule-%d", i)}
		if given {
			rule.IPAddress = "10.0.0.1"
		}
		key := s.newRuleKey(&rule)

		wantID := strconv.FormatUint(binary.BigEndian.Uint64(stream)>>1|1, 10)
		wantIP := fmt.Sprintf("34.%d.%d.%d", 64+stream[8]%64, stream[9], 1+stream[10]%254)
		if given {
			wantIP = "10.0.0.1"
		}
		want := store.ForwardingRule{Project: "my-project", Name: fmt.Sprintf("rule-%d", i), ID: wantID, IPAddress: wantIP}
		if key != want.Key() || !reflect.DeepEqual(rule, want) {
			t.Fatalf("newRuleKey = %q, %+v; want %q, %+v", key, rule, want.Key(), want)
		}
		at := func(off int) *byte { return (*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(key)), off)) }
		if unsafe.StringData(rule.Name) != at(len("my-project|")) || unsafe.StringData(rule.ID) != at(len(key)) ||
			!given && unsafe.StringData(rule.IPAddress) != at(len(key)+len(wantID)) {
			t.Fatal("the name, id and address are not pieces of the key's string")
		}
	}
}
