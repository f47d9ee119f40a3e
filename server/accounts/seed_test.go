package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// storedObject is a's stored object, decoded.
func storedObject(t *testing.T, a Account) gen.V2CoreAccount {
	t.Helper()
	var o gen.V2CoreAccount
	if err := json.Unmarshal(a.Object, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

func seededServer(t *testing.T, cfg Config) (*Server, *store.DB, error) {
	t.Helper()
	db := store.New(store.NewMemory())
	s, err := New(cfg, db)
	if err != nil {
		t.Fatal(err)
	}
	return s, db, db.Replace(context.Background(), func(tx *store.Tx) error { return s.Seed(tx, cfg) })
}

func TestSeedAccounts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Platforms = []Platform{{ID: "acme", Keys: []string{"sk_test_acme1"}, AccountConcurrency: 2}}
	cfg.Accounts = []SeedAccount{
		{Platform: "acme", Concurrency: 5, Onboarded: true, Body: map[string]any{
			"id": "acct_1Own", "display_name": "Own", "contact_email": "a@example.com", "identity": map[string]any{"country": "US", "entity_type": "company"},
			"configuration": map[string]any{"recipient": map[string]any{"capabilities": map[string]any{"stripe_balance": map[string]any{"stripe_transfers": map[string]any{"requested": true}}}}},
		}},
		{Platform: "acme", Mode: "live", Body: map[string]any{"display_name": "Derived"}},
		{Body: map[string]any{"metadata": map[string]any{"k": "v"}}},
	}
	s, db, err := seededServer(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var all []Account
	read := func() {
		all = nil
		_ = db.View(context.Background(), func(tx *store.Tx) error {
			for _, id := range []string{"acct_1Own"} {
				a, ok := s.getAccount(tx, id)
				if !ok {
					t.Fatalf("%s not seeded", id)
				}
				all = append(all, a)
			}
			s.tables.Newest.Scan(tx, "acme|live|", "acme|live}", nil, func(_ store.Cursor, a Account) bool { all = append(all, withHead(a)); return true })
			s.tables.Newest.Scan(tx, DefaultPlatformID+"|test|", DefaultPlatformID+"|test}", nil, func(_ store.Cursor, a Account) bool { all = append(all, withHead(a)); return true })
			return nil
		})
	}
	read()
	if len(all) != 3 {
		t.Fatalf("seeded %d accounts, want 3: %+v", len(all), all)
	}
	own, derived, def := all[0], all[1], all[2]
	ownObj := storedObject(t, own)
	ownCfg, _ := ownObj.Configuration.Get()
	ownID, _ := ownObj.Identity.Get()
	if !own.Onboarded || deref(ownID.Country) != "US" || ownCfg.Recipient == nil || ownCfg.Recipient.Capabilities.StripeBalance.StripeTransfers == nil || own.Livemode() || own.Platform != "acme" {
		t.Errorf("own: %+v", own)
	}
	defObj := storedObject(t, def)
	if !derived.Livemode() || !seedID(derived.ID(), "acct_") || len(derived.ID()) != len("acct_")+16 || def.Platform != DefaultPlatformID || defObj.Metadata["k"] != "v" {
		t.Errorf("derived %+v, default %+v", derived, def)
	}

	// The account's own limit wins over its platform's, which wins over the server's.
	if got := s.limitFor(own, s.platforms["acme"]); got != 5 {
		t.Errorf("own limit: %d, want 5", got)
	}
	if got := s.limitFor(derived, s.platforms["acme"]); got != 2 {
		t.Errorf("platform limit: %d, want 2", got)
	}
	if got := s.limitFor(def, s.platforms[DefaultPlatformID]); got != 1 {
		t.Errorf("server limit: %d, want 1", got)
	}

	// Reset seeds the same accounts again, with the same ids.
	if err := db.Replace(context.Background(), func(tx *store.Tx) error { return s.Seed(tx, cfg) }); err != nil {
		t.Fatal(err)
	}
	before := derived.ID()
	read()
	if all[1].ID() != before {
		t.Errorf("derived id changed across reset: %s, then %s", before, all[1].ID())
	}
}

func TestSeedAccountErrors(t *testing.T) {
	tests := []struct {
		name      string
		account   SeedAccount
		field     string
		wantInErr string
	}{
		{"bad id", SeedAccount{Body: map[string]any{"id": "acct-1"}}, "id", "not an account id"},
		{"negative concurrency", SeedAccount{Concurrency: -1}, "concurrency", "positive"},
		{"metadata key too long", SeedAccount{Body: map[string]any{"metadata": map[string]any{strings.Repeat("k", 41): "v"}}}, "metadata." + strings.Repeat("k", 41), "at most 40"},
		{"wrong type in the body", SeedAccount{Body: map[string]any{"display_name": int64(5)}}, "display_name", "string"},
		{"enum", SeedAccount{Body: map[string]any{"dashboard": "partial"}}, "dashboard", "allowed values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Accounts = []SeedAccount{{}, tt.account}
			_, _, err := seededServer(t, cfg)
			var se *SeedError
			if !errors.As(err, &se) || se.Index != 1 || se.Field != tt.field || !strings.Contains(err.Error(), tt.wantInErr) {
				t.Fatalf("err = %v, want one at accounts[1].%s mentioning %q", err, tt.field, tt.wantInErr)
			}
		})
	}
}

// exportedAccount is an account's object entry as a state export writes it: the account
// seeded from a request entry, exported.
func exportedAccount(t *testing.T) SeedAccount {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Accounts = []SeedAccount{{Body: map[string]any{"display_name": "Object", "contact_email": "o@example.com",
		"identity":      map[string]any{"country": "fr", "entity_type": "individual", "individual": map[string]any{"given_name": "Ob"}},
		"configuration": map[string]any{"merchant": map[string]any{"mcc": "5734", "capabilities": map[string]any{"card_payments": map[string]any{"requested": true}}}}}}}
	s, db, err := seededServer(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var st State
	_ = db.View(context.Background(), func(tx *store.Tx) error {
		st = s.Export(tx)
		return nil
	})
	if len(st.Accounts) != 1 || st.Accounts[0].Body["object"] != accountObject {
		t.Fatalf("export: %+v", st.Accounts)
	}
	return st.Accounts[0]
}

// TestSeedAccountObject: an account's object, as an export writes it, seeds the same
// account; it is checked against the object's schema, and a member the object does not
// have is refused.
func TestSeedAccountObject(t *testing.T) {
	entry := exportedAccount(t)
	cfg := DefaultConfig()
	cfg.Accounts = []SeedAccount{entry}
	s, db, err := seededServer(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var again State
	_ = db.View(context.Background(), func(tx *store.Tx) error {
		again = s.Export(tx)
		return nil
	})
	if !reflect.DeepEqual(again.Accounts, []SeedAccount{entry}) {
		t.Errorf("seeded from its export, the account exports as\n%+v\nnot\n%+v", again.Accounts, entry)
	}

	for _, tt := range []struct {
		name      string
		change    func(body map[string]any)
		field     string
		wantInErr string
	}{
		{"unknown member", func(b map[string]any) { b["nickname"] = "x" }, "nickname", "unknown field"},
		{"unknown nested member", func(b map[string]any) { setPath(b, "identity.individual.nickname", "x") }, "identity.individual.nickname", "unknown field"},
		{"wrong type", func(b map[string]any) { b["closed"] = "no" }, "closed", "boolean"},
		{"enum", func(b map[string]any) { setPath(b, "identity.entity_type", "guild") }, "identity.entity_type", "allowed values"},
		{"required member", func(b map[string]any) { delete(b, "created") }, "created", "missing"},
		{"bad id", func(b map[string]any) { b["id"] = "acct-1" }, "id", "not an account id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad := entry
			bad.Body = cloneTree(entry.Body)
			tt.change(bad.Body)
			cfg := DefaultConfig()
			cfg.Accounts = []SeedAccount{{}, bad}
			_, _, err := seededServer(t, cfg)
			var se *SeedError
			if !errors.As(err, &se) || se.Index != 1 || se.Field != tt.field || !strings.Contains(err.Error(), tt.wantInErr) {
				t.Fatalf("err = %v, want one at accounts[1].%s mentioning %q", err, tt.field, tt.wantInErr)
			}
		})
	}
}

// TestSeedEntryJSON: a seed entry reads from JSON with its body's members beside the named
// ones, as a decoder that reads json tags gives them, and writes back the same way.
func TestSeedEntryJSON(t *testing.T) {
	raw := []byte(`{"platform":"acme","sequence":3,"onboarded_configurations":["recipient"],"display_name":"J","metadata":{"k":"v"}}`)
	var e SeedAccount
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	want := SeedAccount{Platform: "acme", Sequence: 3, OnboardedConfigurations: []string{"recipient"},
		Body: map[string]any{"display_name": "J", "metadata": map[string]any{"k": "v"}}}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("read %+v, want %+v", e, want)
	}
	out, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back, orig map[string]any
	_ = json.Unmarshal(out, &back)
	_ = json.Unmarshal(raw, &orig)
	if !reflect.DeepEqual(back, orig) {
		t.Errorf("written back as %s", out)
	}
	for _, entry := range []any{&SeedPerson{}, &SeedDestination{}, &SeedLink{}} {
		if err := json.Unmarshal([]byte(`{"sequence":1,"token":"t","x":1}`), entry); err != nil {
			t.Errorf("%T: %v", entry, err)
		}
	}
}

func TestSeedIDShape(t *testing.T) {
	long := strings.Repeat("a", 250)
	for _, c := range []struct {
		id, prefix string
		ok         bool
	}{
		{"acct_1", "acct_", true}, {"acct_" + long, "acct_", true}, {"acct_" + long + "b", "acct_", false},
		{"acct_", "acct_", false}, {"acct_a-b", "acct_", false}, {"acct_a_b", "acct_", false}, {"acct_é", "acct_", false},
		{"person_Z9", "person_", true}, {"acct_1", "person_", false}, {"whsec_x", "whsec_", true},
		{"ed_test_x", "ed_test_", true}, {"ed_test_x", "ed_", false}, {"ed_x", "ed_test_", false}, {"ed_x", "ed_", true},
	} {
		if got := seedID(c.id, c.prefix); got != c.ok {
			t.Errorf("seedID(%q, %q) = %v, want %v", c.id, c.prefix, got, c.ok)
		}
	}
}
