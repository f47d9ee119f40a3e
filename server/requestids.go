package server

import (
	"encoding/binary"
	"math/rand/v2"
	"net/http"
	"strconv"

	"github.com/google/uuid"
)

// setRequestID sets X-Request-Id to a random id (a uint64 in base 36).
func setRequestID(h, _ http.Header) {
	h["X-Request-Id"] = []string{strconv.FormatUint(rand.Uint64(), 36)}
}

// setARMRequestIDs sets the ids ARM answers every request with: x-ms-request-id, a GUID of
// the response's own, and x-ms-correlation-request-id, the client's when it sent a GUID
// there, else the same one. Callers and support tooling quote them.
func setARMRequestIDs(h, req http.Header) {
	id := []string{randomGUID()}
	h["X-Ms-Request-Id"] = id
	// The key as net/http stores it (canonical): Get would canonicalize it again per request.
	if corr := req["X-Ms-Correlation-Request-Id"]; len(corr) > 0 && len(corr[0]) == 36 && uuid.Validate(corr[0]) == nil {
		h["X-Ms-Correlation-Request-Id"] = []string{corr[0]}
	} else {
		h["X-Ms-Correlation-Request-Id"] = id // one slice for both: nothing appends to either
	}
}

// randomGUID is a random (version 4) GUID in lower case, from the fast generator: it names a
// response, it is not a secret (uuid.New would read crypto/rand for each).
func randomGUID() string {
	var u uuid.UUID
	binary.LittleEndian.PutUint64(u[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(u[8:], rand.Uint64())
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u.String()
}
