package compute

import (
	"context"
	"net/http"
	"sync"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/httperr"
)

// operationReply answers an operation as the generated X200JSONResponse types (each
// `type X200JSONResponse Operation`) do, with the same JSON, but written from a pooled
// buffer and without copying the operation into an interface.
//
// A reply is visited once, by the generated strict handler, and nothing keeps it or the
// values it points to afterwards: it goes back to a pool once written.
type operationReply operationWire

var operationReplies = sync.Pool{New: func() any { return new(operationReply) }}

func (s *Server) replyOperation(ctx context.Context, op store.Operation) *operationReply {
	r := operationReplies.Get().(*operationReply)
	s.wireOperationInto((*operationWire)(r), ctx, op)
	return r
}

// write writes the reply as v (r's operation as one of the generated types) and recycles r.
// The body is written by appendOperation when it can, else by encoding/json.
func (r *operationReply) write(w http.ResponseWriter, v any) error {
	err := httperr.WriteAppended(w, http.StatusOK, v, func(b []byte) ([]byte, bool) { return appendOperation(b, &r.Operation) })
	*r = operationReply{}
	operationReplies.Put(r)
	return err
}

func (r *operationReply) VisitInterconnectAttachmentsInsertResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.InterconnectAttachmentsInsert200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitInterconnectAttachmentsDeleteResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.InterconnectAttachmentsDelete200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitGlobalForwardingRulesInsertResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.GlobalForwardingRulesInsert200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitGlobalForwardingRulesDeleteResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.GlobalForwardingRulesDelete200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitGlobalForwardingRulesSetLabelsResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.GlobalForwardingRulesSetLabels200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitInterconnectAttachmentGroupsInsertResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.InterconnectAttachmentGroupsInsert200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitInterconnectAttachmentGroupsDeleteResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.InterconnectAttachmentGroupsDelete200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitInterconnectAttachmentGroupsPatchResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.InterconnectAttachmentGroupsPatch200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitInterconnectsInsertResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.InterconnectsInsert200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitInterconnectsDeleteResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.InterconnectsDelete200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitGlobalOperationsGetResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.GlobalOperationsGet200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitRegionOperationsGetResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.RegionOperationsGet200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitGlobalOperationsWaitResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.GlobalOperationsWait200JSONResponse)(&r.Operation))
}

func (r *operationReply) VisitRegionOperationsWaitResponse(w http.ResponseWriter) error {
	return r.write(w, (*gen.RegionOperationsWait200JSONResponse)(&r.Operation))
}
