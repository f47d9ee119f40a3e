package console

import (
	"context"

	admingen "github.com/understudy-dev/understudy/gen/admin"
	gen "github.com/understudy-dev/understudy/gen/console"
	"github.com/understudy-dev/understudy/server/control"
)

type homeData struct {
	Requests, Errors        int
	Assignments, Principals int
	DenyAssignments         int
	Accounts, Destinations  int
	Projects                int
	Faults                  int
	Clock                   admingen.Clock
	Recent                  []control.Entry
}

// ConsoleHome counts what each API holds and shows the last requests.
func (c *Console) ConsoleHome(ctx context.Context, _ gen.ConsoleHomeRequestObject) (gen.ConsoleHomeResponseObject, error) {
	var d homeData
	entries := c.d.Journal.List(control.Filter{Limit: control.DefaultJournalSize})
	d.Requests = len(entries)
	for _, e := range entries {
		if e.Status >= 400 || e.Status == 0 {
			d.Errors++
		}
	}
	d.Recent = entries[:min(10, len(entries))]
	assignments, err := c.d.Authorization.ConsoleAssignments(ctx)
	if err != nil {
		return nil, err
	}
	d.Assignments = len(assignments)
	denies, err := c.d.Authorization.ConsoleDenyAssignments(ctx, "")
	if err != nil {
		return nil, err
	}
	d.DenyAssignments = len(denies)
	principals, err := c.d.Authorization.Principals()
	if err != nil {
		return nil, err
	}
	d.Principals = len(principals)
	accts, err := c.d.Accounts.ConsoleAccounts(ctx)
	if err != nil {
		return nil, err
	}
	d.Accounts = len(accts)
	dests, err := c.d.Accounts.ConsoleDestinations(ctx)
	if err != nil {
		return nil, err
	}
	d.Destinations = len(dests)
	projects, err := c.d.Compute.ConsoleProjects(ctx)
	if err != nil {
		return nil, err
	}
	d.Projects = len(projects)
	faults, err := c.d.Admin.ListFaults(ctx, admingen.ListFaultsRequestObject{})
	if err != nil {
		return nil, err
	}
	d.Faults = len(faults.(admingen.ListFaults200JSONResponse).Faults)
	clk, err := c.d.Admin.GetClock(ctx, admingen.GetClockRequestObject{})
	if err != nil {
		return nil, err
	}
	d.Clock = admingen.Clock(clk.(admingen.GetClock200JSONResponse))
	body, err := pageResponse(ctx, "home", c.page("Overview", "home", d))
	if err != nil {
		return nil, err
	}
	return gen.ConsoleHome200TexthtmlResponse{ConsolePageTexthtmlResponse: body}, nil
}
