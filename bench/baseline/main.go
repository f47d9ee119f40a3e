// Command baseline is the bare Echo server the benchmark harness (../) compares understudy
// with: one handler per method, each answering any path with a constant JSON body shaped and
// sized like understudy's answers to the benchmarked operations (~0.5-1 KiB). It reads and
// discards the request body, validates nothing and keeps no state.
//
// It logs one JSON line with "addr" on stderr once it listens (like understudy) and stops
// on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
)

// putBody looks like a created role assignment (understudy's is ~1000 bytes).
const putBody = `{"id":"/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg1/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747","name":"b0f43c54-e787-4862-89b1-a653fa9cf747","properties":{"createdBy":"00000000-0000-0000-0000-00000000c0de","createdOn":"2026-11-21T06:27:42.237993523Z","principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","principalType":"User","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7","scope":"/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg1","updatedBy":"00000000-0000-0000-0000-00000000c0de","updatedOn":"2026-11-21T06:27:42.237993523Z"},"systemData":{"createdAt":"2026-11-21T06:27:42.237993523Z","createdBy":"00000000-0000-0000-0000-00000000c0de","createdByType":"User","lastModifiedAt":"2026-11-21T06:27:42.237993523Z","lastModifiedBy":"00000000-0000-0000-0000-00000000c0de","lastModifiedByType":"User"},"type":"Vendor.Authorization/roleAssignments"}`

// postBody looks like a DONE compute operation (understudy's are ~680-750 bytes; its
// account links ~540).
const postBody = `{"clientOperationId":"713a15c8-45a9-4da0-803f-6358dcf3f034","creationTimestamp":"2026-11-21T06:27:42.247+00:00","endTime":"2026-11-21T06:27:42.247+00:00","id":"7613205445397677564","insertTime":"2026-11-21T06:27:42.247+00:00","kind":"compute#operation","name":"operation-1795242462247-a5a3779ff424e-5002b1e4-dc366c12","operationType":"insert","progress":100,"selfLink":"http://127.0.0.1:18080/compute/v1/projects/bench-project-1/global/operations/operation-1795242462247-a5a3779ff424e-5002b1e4-dc366c12","startTime":"2026-11-21T06:27:42.247+00:00","status":"DONE","targetId":"7014320945853055445","targetLink":"http://127.0.0.1:18080/compute/v1/projects/bench-project-1/global/forwardingRules/fr-web","user":"user@understudy.local"}`

// getBody looks like a forwarding rule (understudy's is ~540 bytes); its labelFingerprint
// lets the harness drive the same GET+setLabels chain against the baseline.
const getBody = `{"IPAddress":"34.87.173.133","IPProtocol":"TCP","creationTimestamp":"2026-11-21T06:27:42.247+00:00","fingerprint":"nhlfO741nYk=","id":"7014320945853055445","ipVersion":"IPV4","kind":"compute#forwardingRule","labelFingerprint":"42WmSpB8rSM=","labels":{},"loadBalancingScheme":"EXTERNAL","name":"fr-web","portRange":"443-443","selfLink":"http://127.0.0.1:18080/compute/v1/projects/bench-project-1/global/forwardingRules/fr-web"}`

func constant(status int, body string) echo.HandlerFunc {
	b := []byte(body)
	return func(c echo.Context) error {
		if r := c.Request().Body; r != nil {
			_, _ = io.Copy(io.Discard, r)
		}
		return c.JSONBlob(status, b)
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on; a port of 0 picks a free one")
	flag.Parse()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/*", constant(http.StatusOK, getBody))
	e.POST("/*", constant(http.StatusOK, postBody))
	e.PUT("/*", constant(http.StatusCreated, putBody))
	e.PATCH("/*", constant(http.StatusOK, postBody))
	e.DELETE("/*", constant(http.StatusOK, postBody))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(2)
	}
	// The same server timeouts as understudy's.
	hs := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	log.Info("baseline listening", "addr", ln.Addr().String())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdownCtx)
}
