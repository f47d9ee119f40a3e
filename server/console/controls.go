package console

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	admingen "github.com/understudy-dev/understudy/gen/admin"
	gen "github.com/understudy-dev/understudy/gen/console"
	"github.com/understudy-dev/understudy/server/admin"
)

type controlsData struct {
	Clock  admingen.Clock
	Faults []admingen.Fault
	Done   string
}

// ConsoleControls shows the clock and the fault rules, with the forms that change the
// sandbox: each goes through the admin API's own handler.
func (c *Console) ConsoleControls(ctx context.Context, req gen.ConsoleControlsRequestObject) (gen.ConsoleControlsResponseObject, error) {
	d := controlsData{Done: deref(req.Params.Done)}
	clk, err := c.d.Admin.GetClock(ctx, admingen.GetClockRequestObject{})
	if err != nil {
		return nil, err
	}
	d.Clock = admingen.Clock(clk.(admingen.GetClock200JSONResponse))
	faults, err := c.d.Admin.ListFaults(ctx, admingen.ListFaultsRequestObject{})
	if err != nil {
		return nil, err
	}
	d.Faults = faults.(admingen.ListFaults200JSONResponse).Faults
	body, err := pageResponse(ctx, "controls", c.page("Controls", "controls", d))
	if err != nil {
		return nil, err
	}
	return gen.ConsoleControls200TexthtmlResponse{ConsolePageTexthtmlResponse: body}, nil
}

// done is the redirect back to the controls, saying what was done.
func done(what string) gen.ConsoleRedirectResponse {
	return redirect(Base + "/controls?done=" + url.QueryEscape(what))
}

// ConsoleAdvanceClock moves the clock forward (advanceClock).
func (c *Console) ConsoleAdvanceClock(ctx context.Context, req gen.ConsoleAdvanceClockRequestObject) (gen.ConsoleAdvanceClockResponseObject, error) {
	if err := checkCSRF(ctx, req.Body.Csrf); err != nil {
		return nil, err
	}
	if _, err := c.d.Admin.AdvanceClock(ctx, admingen.AdvanceClockRequestObject{Body: &admingen.AdvanceClockJSONRequestBody{Seconds: req.Body.Seconds}}); err != nil {
		return nil, adminError(err)
	}
	return gen.ConsoleAdvanceClock303Response(done("The clock moved " + strconv.FormatFloat(req.Body.Seconds, 'f', -1, 64) + " seconds forward.")), nil
}

// ConsoleAddFault adds a fault rule (createFault, with its checks).
func (c *Console) ConsoleAddFault(ctx context.Context, req gen.ConsoleAddFaultRequestObject) (gen.ConsoleAddFaultResponseObject, error) {
	b := req.Body
	if err := checkCSRF(ctx, b.Csrf); err != nil {
		return nil, err
	}
	rule := admingen.FaultRule{OperationId: optional(b.OperationId), Method: optional(b.Method), Path: optional(b.Path),
		Code: optional(b.Code), Message: optional(b.Message)}
	if a := deref(b.Api); a != "" {
		rule.Api = (*admingen.API)(&a)
	}
	for _, f := range []struct {
		v   *string
		out **int
	}{{b.Status, &rule.Status}, {b.Count, &rule.Count}, {b.LatencyMs, &rule.LatencyMs}} {
		if s := strings.TrimSpace(deref(f.v)); s != "" {
			n, err := strconv.Atoi(s) // the spec's pattern holds it to digits
			if err != nil {
				return nil, &pageError{Status: http.StatusBadRequest, Message: "Not a number: " + s}
			}
			*f.out = &n
		}
	}
	if rule.Count != nil && *rule.Count == 0 {
		rule.Count = nil
	}
	created, err := c.d.Admin.CreateFault(ctx, admingen.CreateFaultRequestObject{Body: &rule})
	if err != nil {
		return nil, adminError(err)
	}
	return gen.ConsoleAddFault303Response(done("Fault rule " + created.(admingen.CreateFault201JSONResponse).Id + " added.")), nil
}

// ConsoleDeleteFault removes a fault rule (deleteFault).
func (c *Console) ConsoleDeleteFault(ctx context.Context, req gen.ConsoleDeleteFaultRequestObject) (gen.ConsoleDeleteFaultResponseObject, error) {
	if err := checkCSRF(ctx, req.Body.Csrf); err != nil {
		return nil, err
	}
	if _, err := c.d.Admin.DeleteFault(ctx, admingen.DeleteFaultRequestObject{Id: req.Id}); err != nil {
		return nil, adminError(err)
	}
	return gen.ConsoleDeleteFault303Response(done("Fault rule " + req.Id + " removed.")), nil
}

// ConsoleSetCircuit takes a circuit down or brings it up (setInterconnectCircuit,
// setAttachmentCircuit).
func (c *Console) ConsoleSetCircuit(ctx context.Context, req gen.ConsoleSetCircuitRequestObject) (gen.ConsoleSetCircuitResponseObject, error) {
	b := req.Body
	if err := checkCSRF(ctx, b.Csrf); err != nil {
		return nil, err
	}
	state := admingen.CircuitState(b.State)
	var resource string
	if region := deref(b.Region); region == "" {
		r, err := c.d.Admin.SetInterconnectCircuit(ctx, admingen.SetInterconnectCircuitRequestObject{Project: b.Project, Interconnect: b.Name, Body: &admingen.Circuit{State: state}})
		if err != nil {
			return nil, adminError(err)
		}
		resource = r.(admingen.SetInterconnectCircuit200JSONResponse).Resource
	} else {
		r, err := c.d.Admin.SetAttachmentCircuit(ctx, admingen.SetAttachmentCircuitRequestObject{Project: b.Project, Region: region, Attachment: b.Name, Body: &admingen.Circuit{State: state}})
		if err != nil {
			return nil, adminError(err)
		}
		resource = r.(admingen.SetAttachmentCircuit200JSONResponse).Resource
	}
	return gen.ConsoleSetCircuit303Response(done("The circuit of " + resource + " is " + string(b.State) + ".")), nil
}

// ConsoleReset resets every API, once confirmed.
func (c *Console) ConsoleReset(ctx context.Context, req gen.ConsoleResetRequestObject) (gen.ConsoleResetResponseObject, error) {
	if err := checkCSRF(ctx, req.Body.Csrf); err != nil {
		return nil, err
	}
	if req.Body.Confirm != "reset" {
		return nil, &pageError{Status: http.StatusBadRequest, Message: "Type reset in the box to confirm: a reset drops everything made since the seed."}
	}
	if _, err := c.d.Admin.Reset(ctx, admingen.ResetRequestObject{}); err != nil {
		return nil, adminError(err)
	}
	return gen.ConsoleReset303Response(done("Every API is back to its seeded state.")), nil
}

// ConsoleDownloadState is the state export, as a file to save.
func (c *Console) ConsoleDownloadState(ctx context.Context, _ gen.ConsoleDownloadStateRequestObject) (gen.ConsoleDownloadStateResponseObject, error) {
	st, err := c.d.Admin.GetState(ctx, admingen.GetStateRequestObject{})
	if err != nil {
		return nil, adminError(err)
	}
	doc := st.(admingen.GetState200ApplicationyamlResponse)
	name := "understudy-state-" + c.d.Now().UTC().Format("20060102-150405") + ".yaml"
	return gen.ConsoleDownloadState200ApplicationyamlResponse{Body: doc.Body, ContentLength: doc.ContentLength,
		Headers: gen.ConsoleDownloadState200ResponseHeaders{ContentDisposition: ptr(`attachment; filename="` + name + `"`)}}, nil
}

// maxSeed bounds the seed file read from the form (the body limit bounds the request).
const maxSeed = 64 << 20

// ConsoleLoadState replaces the state with a seed file's.
func (c *Console) ConsoleLoadState(ctx context.Context, req gen.ConsoleLoadStateRequestObject) (gen.ConsoleLoadStateResponseObject, error) {
	var csrf, name string
	var seed []byte
	got := false
	for {
		part, err := req.Body.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &pageError{Status: http.StatusBadRequest, Message: "The form could not be read: " + err.Error()}
		}
		data, err := io.ReadAll(io.LimitReader(part, maxSeed))
		if err != nil {
			return nil, err
		}
		switch part.FormName() {
		case "csrf":
			csrf = string(data)
		case "seed":
			seed, name, got = data, part.FileName(), true
		}
	}
	if err := checkCSRF(ctx, csrf); err != nil {
		return nil, err
	}
	if !got {
		return nil, &pageError{Status: http.StatusBadRequest, Message: "Choose a seed file to load."}
	}
	if name == "" {
		name = "(uploaded)"
	}
	if err := c.d.Load(name, seed); err != nil {
		var ae *admin.Error
		if errors.As(err, &ae) {
			return nil, &pageError{Status: ae.Status, Message: "Nothing was loaded: " + ae.Message}
		}
		return nil, err
	}
	return gen.ConsoleLoadState303Response(done("Loaded " + name + ".")), nil
}

func optional(p *string) *string {
	if p == nil || strings.TrimSpace(*p) == "" {
		return nil
	}
	s := strings.TrimSpace(*p)
	return &s
}

func ptr[T any](v T) *T { return &v }
