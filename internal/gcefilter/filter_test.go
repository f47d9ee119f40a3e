package gcefilter

import (
	"reflect"
	"strings"
	"testing"
)

// resource stands for a generated wire type: pointers, enums as strings, int64 ids as
// strings, a map of labels, nested and repeated members.
type resource struct {
	Name         string            `json:"name"`
	Id           *string           `json:"id,omitempty"`
	Description  *string           `json:"description,omitempty"`
	AdminEnabled *bool             `json:"adminEnabled,omitempty"`
	Mtu          *int32            `json:"mtu,omitempty"`
	Created      *string           `json:"creationTimestamp,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	Intent       *struct {
		Sla string `json:"availabilitySla,omitempty"`
	} `json:"intent,omitempty"`
	Ranges  []string `json:"candidateSubnets,omitempty"`
	Regions []struct {
		Region string `json:"region"`
	} `json:"regions,omitempty"`
	embedded
}

type embedded struct {
	Kind string `json:"kind"`
}

func ptr[T any](v T) *T { return &v }

func TestMatch(t *testing.T) {
	items := []resource{
		{Name: "a-prod", Id: ptr("900"), AdminEnabled: ptr(true), Mtu: ptr(int32(1440)), Created: ptr("2024-01-01T00:00:00.000+00:00"),
			Labels: map[string]string{"env": "prod", "team": "net"}, Ranges: []string{"169.254.0.0/29", "169.254.1.0/29"},
			Regions: []struct {
				Region string `json:"region"`
			}{{"us-east4"}, {"us-west2"}}, embedded: embedded{Kind: "compute#thing"}},
		{Name: "b-dev", Id: ptr("1000"), AdminEnabled: ptr(false), Mtu: ptr(int32(8896)), Created: ptr("2025-06-01T00:00:00.000+00:00"),
			Labels: map[string]string{"env": "dev"}, Description: ptr("the dev one"),
			Intent: &struct {
				Sla string `json:"availabilitySla,omitempty"`
			}{"PRODUCTION_CRITICAL"}, embedded: embedded{Kind: "compute#thing"}},
		{Name: "c-none", embedded: embedded{Kind: "compute#thing"}},
	}
	for _, tt := range []struct{ filter, want string }{
		{`labels.env = prod`, "a-prod"},
		{`labels.env != prod`, "b-dev,c-none"},
		{`labels.env:*`, "a-prod,b-dev"},
		{`labels:team`, "a-prod"},
		{`labels:*`, "a-prod,b-dev"},
		{`labels.env eq "p.*"`, "a-prod"},
		{`labels.env ne "p.*"`, "b-dev,c-none"},
		{`adminEnabled = true`, "a-prod"},
		{`adminEnabled = FALSE`, "b-dev,c-none"},
		{`mtu > 1500`, "b-dev"},
		{`mtu <= 1440`, "a-prod,c-none"},
		{`mtu = 1440.0`, "a-prod"},
		{`id > 950`, "b-dev"},
		{`id >= "900"`, "a-prod,b-dev"},
		{`creationTimestamp < "2025-01-01"`, "a-prod,c-none"},
		{`description = ""`, "a-prod,c-none"},
		{`description:dev`, "b-dev"},
		{`description:*`, "b-dev"},
		{`mtu:*`, "a-prod,b-dev"},
		{`adminEnabled:*`, "a-prod,b-dev"},
		{`adminEnabled:false`, "b-dev"},
		{`intent.availabilitySla = PRODUCTION_CRITICAL`, "b-dev"},
		{`candidateSubnets = "169.254.1.0/29"`, "a-prod"},
		{`candidateSubnets:"169.254.1.0/29"`, "a-prod"},
		{`regions.region = us-west2`, "a-prod"},
		{`kind = "compute#thing" name != c-none`, "a-prod,b-dev"},
		{`(labels.env = prod) OR (mtu > 8000)`, "a-prod,b-dev"},
		{`(name eq "[ab]-.*") (labels.env ne dev)`, "a-prod"},
		{`name = a-prod OR name = c-none AND mtu < 2000`, "a-prod,c-none"},
	} {
		t.Run(tt.filter, func(t *testing.T) {
			f, err := Parse(tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Check(reflect.TypeFor[resource]()); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				ok, err := f.MatchValue(it)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					got = append(got, it.Name)
				}
			}
			if g := strings.Join(got, ","); g != tt.want {
				t.Errorf("got %q, want %q", g, tt.want)
			}
		})
	}
}

func TestRefused(t *testing.T) {
	for _, tt := range []struct{ filter, mention string }{
		{`colour = red`, "unknown field 'colour'"},
		{`intent.colour = red`, "unknown field 'intent.colour'"},
		{`name.first = a`, "has no members"},
		{`labels = prod`, "not a single value"},
		{`intent > 3`, "not a single value"},
		{`adminEnabled = maybe`, "true or false"},
		{`adminEnabled < true`, "boolean"},
		{`mtu = big`, "number"},
		{`name EQ a`, "unsupported operator"},
		{`name ~ a`, "unsupported operator"},
		{`-name = a`, "field name"},
		{`labels..env = a`, "field name"},
		{`NOT name = a`, "NOT"},
		{`(name eq a) (mtu = 3)`, "eq and ne"},
		{`(name eq a) OR (name eq b)`, "OR"},
		{`name eq a name eq b`, "parentheses"},
		{`name = "a`, "unbalanced quote"},
		{`(name = a`, "unbalanced parenthesis"},
		{`name = a)`, "unbalanced parenthesis"},
		{`name eq "("`, "invalid regular expression"},
		{`name eq "a(b"`, "Invalid regular expression 'a(b' at position 9: missing closing ): `a(b`."},
		{`name eq "a**"`, "invalid nested repetition operator: `**`."},
		{`name =`, "value"},
		{`name`, "operator"},
		{`AND name = a`, "AND"},
	} {
		t.Run(tt.filter, func(t *testing.T) {
			f, err := Parse(tt.filter)
			if err == nil {
				err = f.Check(reflect.TypeFor[resource]())
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tt.mention)) {
				t.Errorf("%q does not say %q", err, tt.mention)
			}
		})
	}
}

func TestBlankIsNoFilter(t *testing.T) {
	f, err := Parse(" \t")
	if f != nil || err != nil {
		t.Fatalf("got %v, %v", f, err)
	}
	if ok, _ := f.MatchValue(resource{}); !ok || f.Check(reflect.TypeFor[resource]()) != nil {
		t.Error("a nil filter must pass everything")
	}
}

// FuzzParse: no filter makes Parse, Check or Match panic, and an accepted one evaluates.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`labels.env = prod`, `(name eq "a.*") (mtu ne 3)`, `mtu >= 10 OR id:*`,
		`name = "a\"b" AND (labels:x)`, `((name != a))`, `intent.availabilitySla < Z`} {
		f.Add(s)
	}
	doc := resource{Name: "x", Mtu: ptr(int32(3)), Labels: map[string]string{"x": "y"}}
	f.Fuzz(func(t *testing.T, src string) {
		flt, err := Parse(src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if flt.Check(reflect.TypeFor[resource]()) != nil {
			return
		}
		if _, err := flt.MatchValue(doc); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkMatchValue: one comparison of a labelled resource, judged on its JSON form as
// a list judges each candidate.
func BenchmarkMatchValue(b *testing.B) {
	f, err := Parse(`(labels.env = prod) OR (mtu > 1500)`)
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Check(reflect.TypeFor[resource]()); err != nil {
		b.Fatal(err)
	}
	r := resource{Name: "a-prod", Id: ptr("900"), AdminEnabled: ptr(true), Mtu: ptr(int32(1440)), Created: ptr("2024-01-01T00:00:00.000+00:00"),
		Labels: map[string]string{"env": "prod", "team": "net"}, Ranges: []string{"169.254.0.0/29"}, Description: ptr("a resource of a realistic size")}
	for b.Loop() {
		if ok, err := f.MatchValue(r); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
