package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sort"

	accountsgen "github.com/understudy-dev/understudy/gen/accounts"
	gen "github.com/understudy-dev/understudy/gen/console"
	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/control"
)

// maxEvents is how many recent events the accounts pages list.
const maxEvents = 100

type accountsData struct {
	Accounts     []accountRow
	Events       []accountsgen.V2CoreEvent
	Destinations []accounts.ConsoleDestination
}

// accountRow is an account as the pages show it: the API's rendering, and what the page
// reads out of it.
type accountRow struct {
	accounts.ConsoleAccount
	Name, Email  string
	Configs      []string
	Capabilities []capability
	Requirements []requirement
	Raw          string // the whole rendering, as JSON
}

type capability struct{ Config, Name, Status string }

type requirement struct{ Description, AwaitingActionFrom, Deadline string }

// ConsoleAccounts lists every platform's accounts, the recent events and the destinations.
func (c *Console) ConsoleAccounts(ctx context.Context, _ gen.ConsoleAccountsRequestObject) (gen.ConsoleAccountsResponseObject, error) {
	all, err := c.d.Accounts.ConsoleAccounts(ctx)
	if err != nil {
		return nil, err
	}
	var d accountsData
	for _, a := range all {
		d.Accounts = append(d.Accounts, accountRowOf(a))
	}
	if d.Events, err = c.d.Accounts.ConsoleEvents(ctx, maxEvents); err != nil {
		return nil, err
	}
	if d.Destinations, err = c.d.Accounts.ConsoleDestinations(ctx); err != nil {
		return nil, err
	}
	body, err := pageResponse(ctx, "accounts", c.page("Accounts", "accounts", d))
	if err != nil {
		return nil, err
	}
	return gen.ConsoleAccounts200TexthtmlResponse{ConsolePageTexthtmlResponse: body}, nil
}

// ConsoleAccount is one account whole: configurations, capabilities, requirements, persons
// and links.
func (c *Console) ConsoleAccount(ctx context.Context, req gen.ConsoleAccountRequestObject) (gen.ConsoleAccountResponseObject, error) {
	a, ok, err := c.d.Accounts.ConsoleAccountByID(ctx, req.Account)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &pageError{Status: http.StatusNotFound, Message: "No account " + req.Account + "."}
	}
	body, err := pageResponse(ctx, "account", c.page(req.Account, "accounts", accountRowOf(a)))
	if err != nil {
		return nil, err
	}
	return gen.ConsoleAccount200TexthtmlResponse{ConsolePageTexthtmlResponse: body}, nil
}

// accountRowOf reads an account's rendering as its JSON members, as a client reads them.
func accountRowOf(a accounts.ConsoleAccount) accountRow {
	row := accountRow{ConsoleAccount: a}
	raw, _ := json.MarshalIndent(a.Account, "", "  ")
	row.Raw = string(raw)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	row.Name, _ = m["display_name"].(string)
	row.Email, _ = m["contact_email"].(string)
	if cfgs, ok := m["configuration"].(map[string]any); ok {
		for name, cfg := range cfgs {
			if cfg == nil {
				continue
			}
			row.Configs = append(row.Configs, name)
			if cm, ok := cfg.(map[string]any); ok {
				row.Capabilities = append(row.Capabilities, capabilitiesIn(name, "", cm["capabilities"])...)
			}
		}
	}
	slices.Sort(row.Configs)
	sort.SliceStable(row.Capabilities, func(i, j int) bool {
		return row.Capabilities[i].Config+row.Capabilities[i].Name < row.Capabilities[j].Config+row.Capabilities[j].Name
	})
	if reqs, ok := m["requirements"].(map[string]any); ok {
		entries, _ := reqs["entries"].([]any)
		for _, e := range entries {
			em, _ := e.(map[string]any)
			r := requirement{}
			r.Description, _ = em["description"].(string)
			r.AwaitingActionFrom, _ = em["awaiting_action_from"].(string)
			if md, ok := em["minimum_deadline"].(map[string]any); ok {
				r.Deadline, _ = md["status"].(string)
			}
			row.Requirements = append(row.Requirements, r)
		}
	}
	return row
}

// capabilitiesIn finds the capabilities under v: the objects with a status.
func capabilitiesIn(config, path string, v any) []capability {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if s, ok := m["status"].(string); ok {
		return []capability{{Config: config, Name: path, Status: s}}
	}
	var out []capability
	for k, sub := range m {
		p := k
		if path != "" {
			p = path + "." + k
		}
		out = append(out, capabilitiesIn(config, p, sub)...)
	}
	return out
}

type destinationData struct {
	accounts.ConsoleDestination
	Attempts []control.Entry
	Events   []accountsgen.V2CoreEvent
}

// ConsoleDestination is an event destination: its waiting deliveries, the attempts the
// journal holds, and the recent events to resend.
func (c *Console) ConsoleDestination(ctx context.Context, req gen.ConsoleDestinationRequestObject) (gen.ConsoleDestinationResponseObject, error) {
	dest, ok, err := c.d.Accounts.ConsoleDestinationByID(ctx, req.Destination)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &pageError{Status: http.StatusNotFound, Message: "No event destination " + req.Destination + "."}
	}
	d := destinationData{ConsoleDestination: dest}
	for _, e := range c.d.Journal.List(control.Filter{API: "accounts", OperationID: "deliverEvent", Limit: control.DefaultJournalSize}) {
		if e.Delivery != nil && e.Delivery.Destination == dest.Destination.Id {
			d.Attempts = append(d.Attempts, e)
		}
	}
	if d.Events, err = c.d.Accounts.ConsoleDestinationEvents(ctx, req.Destination, maxEvents); err != nil {
		return nil, err
	}
	body, err := pageResponse(ctx, "destination", c.page(dest.Destination.Name, "accounts", d))
	if err != nil {
		return nil, err
	}
	return gen.ConsoleDestination200TexthtmlResponse{ConsolePageTexthtmlResponse: body}, nil
}

// ConsoleResendEvent queues an event for the destination again.
func (c *Console) ConsoleResendEvent(ctx context.Context, req gen.ConsoleResendEventRequestObject) (gen.ConsoleResendEventResponseObject, error) {
	if err := checkCSRF(ctx, req.Body.Csrf); err != nil {
		return nil, err
	}
	if err := deliveryError(c.d.Accounts.ConsoleResend(ctx, req.Destination, req.Body.Event), "No event "+req.Body.Event+" of this destination's platform and mode, or the destination is no webhook endpoint."); err != nil {
		return nil, err
	}
	return gen.ConsoleResendEvent303Response(redirect(Base + "/destinations/" + req.Destination)), nil
}

// ConsoleRetryDelivery makes a waiting delivery due now.
func (c *Console) ConsoleRetryDelivery(ctx context.Context, req gen.ConsoleRetryDeliveryRequestObject) (gen.ConsoleRetryDeliveryResponseObject, error) {
	if err := checkCSRF(ctx, req.Body.Csrf); err != nil {
		return nil, err
	}
	if err := deliveryError(c.d.Accounts.ConsoleRetry(ctx, req.Destination, req.Body.Event), "No delivery of "+req.Body.Event+" waits for this destination."); err != nil {
		return nil, err
	}
	return gen.ConsoleRetryDelivery303Response(redirect(Base + "/destinations/" + req.Destination)), nil
}

func deliveryError(err error, notFound string) error {
	if errors.Is(err, accounts.ErrConsoleNotFound) {
		return &pageError{Status: http.StatusNotFound, Message: notFound}
	}
	return err
}
