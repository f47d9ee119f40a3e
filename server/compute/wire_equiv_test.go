package compute

import (
	"context"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
)

// renderOperationReference and renderRuleReference are the conversions as first written.
func (s *Server) renderOperationReference(ctx context.Context, op store.Operation) gen.Operation {
	kind := gen.OperationKindComputeOperation
	status := gen.OperationStatus(op.Status)
	progress := int32(op.Progress)
	insert := timestamp(op.InsertTime)
	targetLink := op.TargetLink
	if targetLink == "" {
		// The link the handlers stored before targetLink was derived.
		name := op.Target[strings.LastIndex(op.Target, "|")+1:]
		switch op.Kind {
		case kindRuleInsert, kindRuleDelete:
			targetLink = s.linkReference(ctx, rulePath(op.Project, name))
		case kindGroupInsert, kindGroupDelete:
			targetLink = s.linkReference(ctx, groupPath(op.Project, name))
		case kindInterconnectInsert, kindInterconnectDelete:
			targetLink = s.linkReference(ctx, interconnectPath(op.Project, name))
		case kindAttachmentInsert, kindAttachmentDelete:
			region := strings.TrimPrefix(op.Scope, "projects/"+op.Project+"/regions/")
			targetLink = s.linkReference(ctx, attachmentPath(op.Project, region, name))
		}
	}
	out := gen.Operation{
		Kind: &kind, Id: &op.ID, Name: &op.Name, OperationType: &op.OperationType,
		TargetLink: targetLink, SelfLink: s.linkReference(ctx, op.Scope+"/operations/"+op.Name),
		Status: &status, Progress: &progress, User: &op.User,
		InsertTime: &insert, CreationTimestamp: &insert,
	}
	if op.TargetID != "" {
		out.TargetId = &op.TargetID
	}
	if op.ClientOperationID != "" {
		out.ClientOperationId = &op.ClientOperationID
	}
	if op.Description != "" {
		out.Description = &op.Description
	}
	if _, region, ok := cutRegion(op.Scope); ok {
		r := s.linkReference(ctx, "projects/"+op.Project+"/regions/"+region)
		out.Region = &r
	}
	if !op.StartTime.IsZero() {
		st := timestamp(op.StartTime)
		out.StartTime = &st
	}
	if op.Done() {
		end := timestamp(op.EndTime)
		out.EndTime = &end
		if f := op.Failure; f != nil {
			code, msg := int32(f.HTTPStatus), f.HTTPMessage
			out.HttpErrorStatusCode, out.HttpErrorMessage = &code, &msg
			out.Error = &gen.OperationError{Errors: renderOperationErrors(f.Errors)}
		}
	}
	return out
}

func (s *Server) renderRuleReference(ctx context.Context, r store.ForwardingRule) gen.ForwardingRule {
	kind, created, self := "compute#forwardingRule", timestamp(r.Created), s.linkReference(ctx, rulePath(r.Project, r.Name))
	proto, scheme, version := gen.ForwardingRuleIPProtocol(r.IPProtocol), gen.ForwardingRuleLoadBalancingScheme(r.LoadBalancingScheme), gen.ForwardingRuleIpVersion(r.IPVersion)
	labels := gen.Labels(r.Labels)
	if labels == nil {
		labels = gen.Labels{}
	}
	return gen.ForwardingRule{
		Kind: &kind, Id: &r.ID, Name: r.Name, CreationTimestamp: &created, SelfLink: &self,
		IPAddress: &r.IPAddress, IPProtocol: &proto, LoadBalancingScheme: &scheme, IpVersion: &version,
		Labels: &labels, LabelFingerprint: labelFingerprintReference(r.Labels, r.LabelGeneration),
		Fingerprint: ruleFingerprint(r),
		Description: optional(r.Description), PortRange: optional(r.PortRange), Target: optional(r.Target), Network: optional(r.Network),
	}
}

func (s *Server) linkReference(ctx context.Context, path string) string {
	base := s.cfg.PublicURL
	if base == "" {
		if info := infoFrom(ctx); info != nil {
			base = info.scheme + "://" + info.host // what the context held before
		}
	}
	return strings.TrimRight(base, "/") + "/compute/v1/" + path
}

func TestRepliesMatchGenerated(t *testing.T) {
	now := time.Date(2026, 11, 21, 7, 0, 0, 123456789, time.UTC)
	ops := []store.Operation{
		{ID: "1", Name: "operation-1", Scope: "projects/p/global", Project: "p", OperationType: "insert", Status: "PENDING", InsertTime: now, TargetLink: "t", User: "u"},
		{ID: "2", Name: "operation-2", Scope: "projects/p/regions/us-east4", Project: "p", OperationType: "delete", Status: "DONE", Progress: 100,
			InsertTime: now, StartTime: now, EndTime: now.Add(time.Second), TargetID: "9", ClientOperationID: "c", Description: "d<&>",
			Failure: &store.OperationFailure{HTTPStatus: 400, HTTPMessage: "BAD REQUEST", Errors: []store.OperationError{{Code: "X", Message: "m", Location: "l"}}}},
	}
	// Operations whose targetLink is derived, one of each kind.
	for i, kind := range []string{kindRuleInsert, kindRuleDelete, kindGroupInsert, kindGroupDelete,
		kindInterconnectInsert, kindInterconnectDelete, kindAttachmentInsert, kindAttachmentDelete} {
		op := store.Operation{ID: fmt.Sprint(10 + i), Name: fmt.Sprint("operation-k", i), Scope: "projects/p-2/global", Project: "p-2",
			Kind: kind, OperationType: "insert", Status: "DONE", InsertTime: now, StartTime: now, EndTime: now, Target: "p-2|res-" + fmt.Sprint(i)}
		if strings.HasPrefix(kind, "interconnectAttachments.") {
			op.Scope, op.Target = "projects/p-2/regions/us-east4", store.AttachmentKey("p-2", "us-east4", "res-"+fmt.Sprint(i))
		}
		ops = append(ops, op)
	}
	rules := []store.ForwardingRule{
		{ID: "7", Name: "fr", Project: "p", Created: now, IPAddress: "1.2.3.4", IPProtocol: "TCP", LoadBalancingScheme: "EXTERNAL", IPVersion: "IPV4"},
		{ID: "8", Name: "fr2", Project: "p", Created: now, Labels: map[string]string{"env": "prod", "a": ""}, LabelGeneration: 3,
			Description: "x", PortRange: "443-443", Target: "t", Network: "n"},
	}
	for _, public := range []string{"", "https://example.com/"} {
		s := &Server{cfg: Config{PublicURL: public}}
		for _, host := range []string{"h:1", "", "h/"} {
			ctx := context.WithValue(context.Background(), requestKey{}, &requestInfo{user: "u", scheme: "http", host: host})
			for _, c := range []context.Context{ctx, context.Background()} {
				for _, op := range ops {
					if got, want := s.renderOperation(c, op), s.renderOperationReference(c, op); !reflect.DeepEqual(got, want) {
						t.Fatalf("renderOperation(%+v) =\n%+v, want\n%+v", op, got, want)
					}
					got, want := httptest.NewRecorder(), httptest.NewRecorder()
					_ = s.replyOperation(c, op).VisitGlobalForwardingRulesInsertResponse(got)
					_ = gen.GlobalForwardingRulesInsert200JSONResponse(s.renderOperationReference(c, op)).VisitGlobalForwardingRulesInsertResponse(want)
					if got.Code != want.Code || got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
						t.Fatalf("operation reply: got %d %v %s, want %d %v %s", got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
					}
				}
				for _, r := range rules {
					if got, want := s.renderRule(c, r), s.renderRuleReference(c, r); !reflect.DeepEqual(got, want) {
						t.Fatalf("renderRule(%+v) =\n%+v, want\n%+v", r, got, want)
					}
					got, want := httptest.NewRecorder(), httptest.NewRecorder()
					_ = (*ruleReply)(s.wireRule(c, r)).VisitGlobalForwardingRulesGetResponse(got)
					_ = gen.GlobalForwardingRulesGet200JSONResponse(s.renderRuleReference(c, r)).VisitGlobalForwardingRulesGetResponse(want)
					if got.Code != want.Code || got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
						t.Fatalf("rule reply: got %d %v %s, want %d %v %s", got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
					}
				}
			}
		}
	}
}
