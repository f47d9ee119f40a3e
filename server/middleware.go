package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/labstack/echo/v4"
)

// recoverPanics turns a panic anywhere below it into a 500 in the API's envelope, logged
// with its stack; the server keeps serving.
func recoverPanics(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				if r := recover(); r != nil {
					if r == http.ErrAbortHandler {
						panic(r)
					}
					log.Error("panic while serving a request", "method", c.Request().Method, "path", c.Request().URL.Path,
						"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return next(c)
		}
	}
}

// limitBody refuses bodies over limit bytes: at once when Content-Length says so, else when
// reading passes the limit (the validator reads the body and reports 413).
func limitBody(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.ContentLength > limit {
				return &http.MaxBytesError{Limit: limit}
			}
			if req.Body != nil && req.Body != http.NoBody {
				req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
			}
			return next(c)
		}
	}
}

// logRequests writes one structured line per request: never headers, so never tokens or keys.
func logRequests(log *slog.Logger, apiName func(string) string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !log.Enabled(c.Request().Context(), slog.LevelInfo) {
				return next(c)
			}
			start := time.Now()
			path := c.Request().URL.Path // before any rewriting
			err := next(c)
			if err != nil {
				// Render now so that the status we log is the one the client gets.
				c.Error(err)
			}
			log.LogAttrs(c.Request().Context(), slog.LevelInfo, "request",
				slog.String("api", apiName(path)),
				slog.String("method", c.Request().Method),
				slog.String("path", path),
				slog.Int("status", c.Response().Status),
				slog.Float64("ms", float64(time.Since(start).Microseconds())/1000),
				slog.Int64("bytes", c.Response().Size))
			return nil
		}
	}
}
