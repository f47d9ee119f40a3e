// Package understudytc starts understudy's container image with testcontainers-go and hands
// back the same ready clients as understudytest: for tests that want the server as a
// container (the image a CI service or a compose file runs) rather than in-process.
//
//	ctr, err := understudytc.Run(ctx, "understudy:dev", understudytc.WithOperationMode("immediate"))
//	testcontainers.CleanupContainer(t, ctr)
//	if err != nil {
//		t.Fatal(err)
//	}
//	resp, err := client.CheckCompute(ctr.Compute.GlobalForwardingRulesGetWithResponse(ctx, project, "fr-web"))
//
// It is a module of its own, so that understudy's main module does not depend on
// testcontainers-go. testcontainers-go starts a reaper container (Ryuk) unless
// TESTCONTAINERS_RYUK_DISABLED=true; where its image cannot be pulled, disable it and
// terminate containers yourself (testcontainers.CleanupContainer does).
package understudytc

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/understudy-dev/understudy/client"
	admingen "github.com/understudy-dev/understudy/gen/admin"
)

// Credentials the ready clients use. Any bearer token works for authorization and compute
// (unless a seed turns enforcement on); the accounts key belongs to the default platform, in
// test mode.
const (
	Token  = "understudytc-token"
	APIKey = "sk_test_understudytc"
)

// Port is the port the image listens on inside the container.
const Port = "8080/tcp"

// Container is a running understudy container.
type Container struct {
	testcontainers.Container
	// URL is the base URL on the host, e.g. http://localhost:32768.
	URL string
	// Ready clients for each API, with credentials set (see Token and APIKey).
	Authorization *client.Authorization
	Accounts      *client.Accounts
	Compute       *client.Compute
	// Admin is the generated client of the admin API (/_understudy).
	Admin *admingen.ClientWithResponses
}

// Run starts image (understudy's, e.g. understudy:dev from `make image`), waits until its
// health endpoint answers 200, and returns it with its clients. opts are testcontainers-go
// customizers: this package's (WithOperationMode, WithSeedFile, WithAdminToken) or any other
// (testcontainers.WithEnv for a flag's UNDERSTUDY_* variable, testcontainers.WithCmdArgs
// for flags). When Run fails after the container was created, it returns the container too,
// for the caller to terminate.
func Run(ctx context.Context, image string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	all := append([]testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(Port),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/_understudy/health").WithPort(Port).
			WithStartupTimeout(time.Minute)),
	}, opts...)
	// testcontainers.Run, but keeping the request: the Admin client needs its admin token.
	req := testcontainers.GenericContainerRequest{ContainerRequest: testcontainers.ContainerRequest{Image: image}, Started: true}
	for _, opt := range all {
		if err := opt.Customize(&req); err != nil {
			return nil, fmt.Errorf("understudytc: %w", err)
		}
	}
	ctr, err := testcontainers.GenericContainer(ctx, req)
	var c *Container
	if ctr != nil {
		c = &Container{Container: ctr}
	}
	if err != nil {
		return c, fmt.Errorf("understudytc: %w", err)
	}
	if c.URL, err = ctr.PortEndpoint(ctx, Port, "http"); err != nil {
		return c, fmt.Errorf("understudytc: %w", err)
	}
	if c.Authorization, err = client.NewAuthorization(c.URL, client.WithBearerToken(Token)); err == nil {
		if c.Accounts, err = client.NewAccounts(c.URL, client.WithAPIKey(APIKey)); err == nil {
			if c.Compute, err = client.NewCompute(c.URL, client.WithBearerToken(Token)); err == nil {
				c.Admin, err = admingen.NewClientWithResponses(c.URL, adminAuth(req.Env[adminTokenEnv]))
			}
		}
	}
	if err != nil {
		return c, fmt.Errorf("understudytc: clients: %w", err)
	}
	return c, nil
}

// WithOperationMode sets how compute operations finish: "immediate", "manual" (one step per
// get or wait) or a duration such as "300ms" (--compute-operation-mode).
func WithOperationMode(mode string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"UNDERSTUDY_COMPUTE_OPERATION_MODE": mode})
}

// WithStore keeps the server's state in the PostgreSQL database url names (--store: a
// postgres:// URL the container can reach; its search_path names the schema). Servers given
// one URL serve one state: see RunReplicas.
func WithStore(url string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"UNDERSTUDY_STORE": url})
}

// WithReplicaName names the server in the request journal that replicas on one database
// share (--replica-name).
func WithReplicaName(name string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"UNDERSTUDY_REPLICA_NAME": name})
}

// RunReplicas starts n containers of image on the PostgreSQL database storeURL names, each
// as Run does with opts, named replica-1, replica-2, ... in the journal: replicas of one
// sandbox (docs/shared-sandbox.md), which a test can spread its requests over, stop and
// start. It returns the containers started so far with its error, for the caller to
// terminate.
func RunReplicas(ctx context.Context, image string, n int, storeURL string, opts ...testcontainers.ContainerCustomizer) ([]*Container, error) {
	var out []*Container
	for i := range n {
		all := append(append([]testcontainers.ContainerCustomizer{}, opts...), WithStore(storeURL), WithReplicaName(fmt.Sprintf("replica-%d", i+1)))
		c, err := Run(ctx, image, all...)
		if c != nil {
			out = append(out, c)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// adminTokenEnv is --admin-token's environment variable.
const adminTokenEnv = "UNDERSTUDY_ADMIN_TOKEN"

// WithAdminToken makes the server ask for token on every /_understudy/ endpoint but health,
// as --admin-token does; the Admin client sends it (as it sends a token given with
// testcontainers.WithEnv).
func WithAdminToken(token string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{adminTokenEnv: token})
}

// adminAuth sends the admin token, when there is one.
func adminAuth(token string) admingen.ClientOption {
	return admingen.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return nil
	})
}

// seedPath is where WithSeedFile puts the seed file in the container.
const seedPath = "/seed.yaml"

// WithSeedFile copies the seed file at path (on the host) into the container and loads it,
// as --seed does; Reset goes back to it.
func WithSeedFile(path string) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		if err := testcontainers.WithFiles(testcontainers.ContainerFile{
			HostFilePath: path, ContainerFilePath: seedPath, FileMode: 0o644,
		})(req); err != nil {
			return err
		}
		return testcontainers.WithEnv(map[string]string{"UNDERSTUDY_SEED": seedPath})(req)
	}
}

// Reset puts every API back into its seeded state.
func (c *Container) Reset(ctx context.Context) error {
	resp, err := c.Admin.ResetWithResponse(ctx)
	if err == nil && resp.StatusCode() != 200 {
		err = fmt.Errorf("status %d: %s", resp.StatusCode(), resp.Body)
	}
	if err != nil {
		return fmt.Errorf("understudytc: reset: %w", err)
	}
	return nil
}

// AdvanceClock moves the server's clock forward by d.
func (c *Container) AdvanceClock(ctx context.Context, d time.Duration) error {
	resp, err := c.Admin.AdvanceClockWithResponse(ctx, admingen.ClockAdvance{Seconds: d.Seconds()})
	if err == nil && resp.StatusCode() != 200 {
		err = fmt.Errorf("status %d: %s", resp.StatusCode(), resp.Body)
	}
	if err != nil {
		return fmt.Errorf("understudytc: advance clock: %w", err)
	}
	return nil
}
