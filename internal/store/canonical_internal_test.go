package store

import (
	"strings"
	"testing"
	"unsafe"
)

// TestComputeRecordsShareWhatTheyRepeat: compute records put with equal but separate strings
// for what records repeat (the project, which comes from the request path, and the like)
// keep one copy of each, so the garbage collector marks one string instead of one a record,
// and no record keeps the request line it was cut from alive.
func TestComputeRecordsShareWhatTheyRepeat(t *testing.T) {
	db := New()
	c, ops, ic := NewCompute(db), NewOperations(db), NewInterconnects(db)
	fresh := func(s string) string { return strings.Clone(s) }
	err := db.Update(func(tx *Tx) error {
		for _, name := range []string{"a", "b"} {
			r := ForwardingRule{Project: fresh("p1"), Name: name, ID: name, PortRange: fresh("443-443"), IPProtocol: fresh("TCP")}
			if err := c.ForwardingRules.Put(tx, r.Key(), r); err != nil {
				return err
			}
			o := Operation{Scope: fresh("projects/p1/global"), Project: fresh("p1"), Name: name, ID: name, User: fresh("u@example.com")}
			if err := ops.Ops.Put(tx, o.Key(), o); err != nil {
				return err
			}
			g := AttachmentGroup{Project: fresh("p1"), Name: name, ID: name, Intent: fresh("NO_SLA")}
			if err := ic.Groups.Put(tx, g.Key(), g); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	same := func(what, x, y string) {
		t.Helper()
		if x != y || unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s: %q and %q are two copies", what, x, y)
		}
	}
	ra, rb := c.ForwardingRules.rows["p1|a"], c.ForwardingRules.rows["p1|b"]
	same("rule project", ra.Project, rb.Project)
	same("rule port range", ra.PortRange, rb.PortRange)
	same("rule protocol", ra.IPProtocol, rb.IPProtocol)
	oa, ob := ops.Ops.rows["projects/p1/global|a"], ops.Ops.rows["projects/p1/global|b"]
	same("operation scope", oa.Scope, ob.Scope)
	same("operation project", oa.Project, ob.Project)
	same("operation user", oa.User, ob.User)
	same("rule and operation project", ra.Project, oa.Project)
	ga, gb := ic.Groups.rows["p1|a"], ic.Groups.rows["p1|b"]
	same("group project", ga.Project, gb.Project)
	same("group intent", ga.Intent, gb.Intent)
}
