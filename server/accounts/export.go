package accounts

import (
	"slices"
	"sort"
	"strings"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// State is the accounts API's state as seed entries: what Export writes and Seed loads.
type State struct {
	Accounts        []SeedAccount
	Persons         []SeedPerson
	Destinations    []SeedDestination
	Links           []SeedLink
	IdempotencyKeys []SeedIdempotencyKey
}

// Export is the API's state as seed entries: every account and person (in creation
// order), every event destination (with its signing secret), every link and every remembered Idempotency-Key, each with what a seed cannot derive (ids,
// tokens, times, sequences). Loaded back, the accounts read and list as they did, the links
// open as they did and the keys replay what they made. Left out, as state of requests in
// flight rather than of the API: the browser session a link's first visit opened (its form
// cannot be submitted after a replay; the link is consumed), keys whose request had not
// been answered, and keys past their window, which no retry would find anyway; account and
// person tokens and the keys that made them (a token lives minutes and is used once);
// events and the deliveries waiting for them (history and work in flight, not resources a
// request reads back as it made them), and the keys that made or changed destinations.
func (s *Server) Export(tx *store.Tx) State {
	var out State
	var accounts []Account
	s.tables.Accounts.Each(tx, func(_ string, a Account) bool {
		accounts = append(accounts, a)
		return true
	})
	sort.Slice(accounts, func(i, j int) bool {
		if accounts[i].Seq != accounts[j].Seq {
			return accounts[i].Seq < accounts[j].Seq
		}
		return accounts[i].ID() < accounts[j].ID()
	})
	for _, a := range accounts {
		sa := SeedAccount{Onboarded: a.Onboarded, OnboardedConfigurations: a.OnboardedConfigurations, Concurrency: a.Concurrency,
			Sequence: a.Seq, Body: a.tree()}
		if a.Platform != DefaultPlatformID {
			sa.Platform = a.Platform
		}
		out.Accounts = append(out.Accounts, sa)
	}

	var persons []Person
	s.tables.Persons.Each(tx, func(_ string, p Person) bool {
		persons = append(persons, p)
		return true
	})
	sort.Slice(persons, func(i, j int) bool { return persons[i].Seq < persons[j].Seq })
	for _, p := range persons {
		out.Persons = append(out.Persons, SeedPerson{Sequence: p.Seq, Body: treeOf(p.Object)})
	}

	var dests []EventDestination
	s.tables.Destinations.Each(tx, func(_ string, d EventDestination) bool {
		dests = append(dests, d)
		return true
	})
	sort.Slice(dests, func(i, j int) bool { return dests[i].Seq < dests[j].Seq })
	for _, d := range dests {
		sd := SeedDestination{Sequence: d.Seq, Body: treeOf(d.Object)}
		if d.Platform != DefaultPlatformID {
			sd.Platform = d.Platform
		}
		out.Destinations = append(out.Destinations, sd)
	}

	var links []AccountLink
	s.tables.Links.Each(tx, func(_ string, l AccountLink) bool {
		links = append(links, l)
		return true
	})
	sort.Slice(links, func(i, j int) bool {
		if links[i].Object.Created != links[j].Object.Created {
			return links[i].Object.Created < links[j].Object.Created
		}
		return links[i].Token < links[j].Token
	})
	for _, l := range links {
		body := treeOf(l.Object)
		delete(body, "url") // the request's host's: built again from the token
		out.Links = append(out.Links, SeedLink{Token: l.Token, Consumed: l.Consumed, Body: body})
	}

	now := s.now()
	var keys []Idempotency
	s.tables.Idempotency.Each(tx, func(_ string, k Idempotency) bool {
		if !k.InFlight && now.Before(k.Expires) {
			keys = append(keys, k)
		}
		return true
	})
	sort.Slice(keys, func(i, j int) bool { return keys[i].Key < keys[j].Key })
	for _, k := range keys {
		platform, livemode, key, ok := s.splitIdempotencyKey(k.Key)
		if !ok {
			continue // of a platform the seed no longer declares: no request could use it
		}
		if !slices.Contains(idempotentOperations, k.Operation) {
			continue // made a token, which is not exported
		}
		sk := SeedIdempotencyKey{Operation: k.Operation, Key: key, RequestHash: k.RequestHash, Ref: k.Ref, ExpiresAt: timefmt.Exact(k.Expires)}
		if platform != DefaultPlatformID {
			sk.Platform = platform
		}
		if livemode {
			sk.Mode = "live"
		}
		out.IdempotencyKeys = append(out.IdempotencyKeys, sk)
	}
	return out
}

// splitIdempotencyKey reads an Idempotency record's key, platform|mode|key. A platform's
// id may hold a '|', so the longest declared platform that fits is the one.
func (s *Server) splitIdempotencyKey(pk string) (platform string, livemode bool, key string, ok bool) {
	for id := range s.platforms {
		for _, mode := range []string{"test", "live"} {
			rest, found := strings.CutPrefix(pk, id+"|"+mode+"|")
			if !found || len(id) <= len(platform) {
				continue
			}
			platform, livemode, key, ok = id, mode == "live", rest, true
		}
	}
	return platform, livemode, key, ok
}
