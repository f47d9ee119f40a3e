package httperr

import (
	"encoding/json"

	"github.com/labstack/echo/v4"
)

// WriteJSON writes an error envelope: body as JSON with the status. '<', '>' and '&' stay
// as they are (encoding/json's default escapes them as \u003c...), so that a message
// quoting what the client sent reads as it was sent.
func WriteJSON(c echo.Context, status int, body any) error {
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(body)
}
