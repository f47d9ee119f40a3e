package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/server/compute"
)

// Config is what the command line and environment say.
type Config struct {
	Addr     string
	Seed     string
	LogLevel slog.Level
	// MemoryLimit is the Go runtime's soft memory limit in bytes, when --memory-limit asks
	// for one (0: the runtime's own, which GOMEMLIMIT sets).
	MemoryLimit int64
	// CPUProfile is a file to write a CPU profile of the whole run to ("": none).
	CPUProfile string
	Server     server.Config
	HTTP       HTTPLimits
	// TLS says whether and how to serve HTTPS (tls.go).
	TLS TLSOptions
}

// HTTPLimits bound what a client can make the HTTP server wait for or hold.
type HTTPLimits struct {
	ReadHeaderTimeout time.Duration // what cuts slowloris clients
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration // must exceed the compute wait timeout
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
	ShutdownTimeout   time.Duration // how long SIGTERM waits for in-flight requests
}

// envPrefix: every flag --some-name can also be given as UNDERSTUDY_SOME_NAME.
const envPrefix = "UNDERSTUDY_"

// Load reads flags from args, falling back to environment variables (getenv) for flags not
// given on the command line, then to defaults. usage receives --help output.
func Load(args []string, getenv func(string) string, usage io.Writer) (Config, error) {
	var c Config
	authz := authorization.DefaultConfig()
	accts := accounts.DefaultConfig()
	comp := compute.DefaultConfig()
	fs := flag.NewFlagSet("understudy", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // a mistake is returned in one line; only --help prints the flags
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "address to listen on; a port of 0 picks a free one (the chosen address is logged)")
	fs.StringVar(&c.Seed, "seed", "", "YAML seed file loaded at start on top of the built-in defaults")
	fs.StringVar(&c.Server.DataDir, "data-dir", "", "keep the state on disk in this directory: it survives restarts, and every acknowledged write is synced first (default: in memory)")
	fs.StringVar(&c.Server.Store, "store", "", "keep the state in PostgreSQL: a postgres:// URL (libpq's URL form; its search_path names the schema, default understudy), shared by every server given it; the server creates its tables and seeds them when they hold no state yet (default: embedded, in memory or in --data-dir)")
	fs.StringVar(&c.Server.ReplicaName, "replica-name", "", "this server's name in the request journal, which servers on one --store database share (default: host name and process id)")
	fs.StringVar(&c.Server.PublicURL, "public-url", "", "base URL put into links that point back at the server (default http://<addr>, https://<addr> when serving HTTPS; each request's own host when <addr> is every interface, as 0.0.0.0 is)")
	tlsMode := fs.String("tls", "off", "serve HTTPS: auto makes a local CA and a server certificate for localhost, 127.0.0.1, ::1 and --tls-hosts, keeps them in <data-dir>/tls (or a temporary directory) and logs the CA file's path; off serves plain HTTP unless --tls-cert and --tls-key are given")
	fs.StringVar(&c.TLS.CertFile, "tls-cert", "", "serve HTTPS with this PEM certificate file (the server's certificate, then any intermediates); needs --tls-key")
	fs.StringVar(&c.TLS.KeyFile, "tls-key", "", "the PEM private key of --tls-cert")
	tlsHosts := fs.String("tls-hosts", "", "with --tls auto: comma-separated DNS names and IP addresses the server certificate names besides localhost, 127.0.0.1 and ::1")
	fs.StringVar(&c.Server.AdminToken, "admin-token", "", "token every /_understudy/ endpoint but health then asks for, as Authorization: Bearer <token> (401 otherwise); prefer the environment variable, which ps does not show (default: none asked)")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	fs.Int64Var(&c.Server.BodyLimit, "body-limit", server.DefaultBodyLimit, "largest request body in bytes; larger bodies get 413")
	fs.BoolVar(&authz.Enforce, "authz-enforce", false, "authorization: enforce permissions (callers need a role granting the action)")
	fs.BoolVar(&authz.StrictPrincipals, "authz-strict-principals", false, "authorization: refuse role assignments to principals the directory (seed file, admin API) does not know, with 400 PrincipalNotFound")
	owners := fs.String("authz-owners", "", "authorization: comma-separated principal ids that hold Owner everywhere")
	fs.StringVar(&authz.DefaultPrincipal, "authz-default-principal", authz.DefaultPrincipal, "authorization: principal id of callers whose token names none")
	fs.IntVar(&authz.MaxPerSubscription, "authz-max-per-subscription", authz.MaxPerSubscription, "authorization: most role assignments under one subscription")
	fs.DurationVar(&accts.LinkLifetime, "accounts-link-lifetime", accts.LinkLifetime, "accounts: how long an account link stays usable")
	fs.DurationVar(&accts.SessionLifetime, "accounts-session-lifetime", accts.SessionLifetime, "accounts: how long the opened hosted form can be submitted")
	fs.DurationVar(&accts.IdempotencyWindow, "accounts-idempotency-window", accts.IdempotencyWindow, "accounts: how long an Idempotency-Key is remembered")
	fs.DurationVar(&accts.LinkRetention, "accounts-link-retention", accts.LinkRetention, "accounts: how long an account link is kept once it can no longer be used (expired, or its form's session over); a visit after that finds no link; account and person tokens go the same time after they expire")
	fs.DurationVar(&accts.EventRetention, "accounts-event-retention", accts.EventRetention, "accounts: how long events are kept and listed")
	fs.IntVar(&accts.AccountConcurrency, "accounts-concurrency", accts.AccountConcurrency, "accounts: updating requests allowed in flight per account (more get 429)")
	fs.DurationVar(&accts.UpdateLatency, "accounts-update-latency", 0, "accounts: simulated time an update holds its account (to exercise the concurrency limit)")
	opMode := fs.String("compute-operation-mode", comp.Operations.Mode.String(), "compute: how operations finish: immediate, manual (one step per read) or a duration such as 300ms")
	fs.DurationVar(&comp.Operations.Retention, "compute-operation-retention", comp.Operations.Retention, "compute: how long finished operations (and their requestIds) are kept")
	fs.DurationVar(&comp.Operations.WaitTimeout, "compute-wait-timeout", comp.Operations.WaitTimeout, "compute: the longest an operations wait call waits")
	fs.StringVar(&comp.DefaultUser, "compute-default-user", comp.DefaultUser, "compute: Operation.user when the token is not a JWT with an email claim")
	versions := fs.String("accounts-service-versions", "", "accounts: comma-separated Service-Version values accepted besides "+accts.ServiceVersions[0])
	fs.DurationVar(&c.HTTP.ReadHeaderTimeout, "read-header-timeout", 10*time.Second, "HTTP: longest time to read a request's headers (cuts slow clients)")
	fs.DurationVar(&c.HTTP.ReadTimeout, "read-timeout", 60*time.Second, "HTTP: longest time to read a whole request")
	fs.DurationVar(&c.HTTP.WriteTimeout, "write-timeout", 5*time.Minute, "HTTP: longest time to write a response; must exceed --compute-wait-timeout")
	fs.DurationVar(&c.HTTP.IdleTimeout, "idle-timeout", 2*time.Minute, "HTTP: how long an idle keep-alive connection is kept")
	fs.IntVar(&c.HTTP.MaxHeaderBytes, "max-header-bytes", 64<<10, "HTTP: largest request header block, plus the 4096 bytes net/http allows beyond it (larger gets net/http's own 431, in plain text)")
	memLimit := fs.String("memory-limit", "", "soft memory limit for the Go runtime, e.g. 900MiB or 4GiB (default: none, or GOMEMLIMIT's): near it the garbage collector works harder, so RSS stays under it while the state fits")
	fs.StringVar(&c.CPUProfile, "cpu-profile", "", "write a CPU profile (pprof) of the run to this file, complete once the server stops: for investigating load, and to refresh cmd/understudy/default.pgo (make pgo)")
	fs.DurationVar(&c.HTTP.ShutdownTimeout, "shutdown-timeout", 30*time.Second, "how long SIGINT/SIGTERM waits for in-flight requests")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(usage, "understudy serves the authorization, accounts and compute APIs on one port.\n\nUsage:\n  understudy [flags]              serve\n  understudy healthcheck [flags]  ask the server these flags describe for its health: exit 0 if it answers 200, else 1\n  understudy --version            print the version\n\nEvery flag can also be set as an environment variable: --public-url as %sPUBLIC_URL.\n\nFlags:\n", envPrefix)
		fs.SetOutput(usage)
		fs.PrintDefaults()
		return c, err
	} else if err != nil {
		return c, fmt.Errorf("%w (understudy --help lists the flags)", err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		if v := getenv(name); v != "" && !given[f.Name] {
			if err := f.Value.Set(v); err != nil {
				envErr = errors.Join(envErr, fmt.Errorf("%s=%q: %w", name, v, err))
			}
		}
	})
	if envErr != nil {
		return c, envErr
	}
	if c.Server.Store != "" {
		if c.Server.DataDir != "" {
			return c, errors.New("--store and --data-dir both say where the state lives: give one (--data-dir keeps it embedded on this machine, --store in PostgreSQL)")
		}
		if u, err := url.Parse(c.Server.Store); err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
			return c, errors.New("--store: want a postgres:// URL such as postgres://user:password@host:5432/database")
		}
	}
	if err := c.TLS.set(*tlsMode, *tlsHosts); err != nil {
		return c, err
	}
	if err := c.LogLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		return c, fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	for _, o := range strings.Split(*owners, ",") {
		if o = strings.TrimSpace(o); o != "" {
			authz.BootstrapOwners = append(authz.BootstrapOwners, o)
		}
	}
	if c.Server.BodyLimit <= 0 {
		return c, fmt.Errorf("--body-limit must be positive")
	}
	for _, v := range strings.Split(*versions, ",") {
		if v = strings.TrimSpace(v); v != "" {
			accts.ServiceVersions = append(accts.ServiceVersions, v)
		}
	}
	if accts.AccountConcurrency <= 0 {
		return c, fmt.Errorf("--accounts-concurrency must be positive")
	}
	// The built-in seed, then --seed on top of it: lists add up, and each setting applies
	// unless its flag or environment variable was given.
	seeds := []*server.Seed{server.DefaultSeed()}
	if c.Seed != "" {
		seed, err := server.LoadSeed(c.Seed)
		if err != nil {
			return c, err
		}
		seeds = append(seeds, seed)
	}
	explicit := func(name string) bool { return given[name] || getenv(envName(name)) != "" }
	seeded := server.Config{Authorization: authz, Accounts: accts, Compute: comp}
	for _, seed := range seeds {
		if err := seed.Apply(&seeded, explicit); err != nil {
			return c, err
		}
	}
	authz, accts, comp = seeded.Authorization, seeded.Accounts, seeded.Compute
	if !explicit("compute-operation-mode") {
		*opMode = comp.Operations.Mode.String()
	}
	c.Server.Authorization = authz
	c.Server.Accounts = accts
	mode, err := operations.ParseMode(*opMode)
	if err != nil {
		return c, fmt.Errorf("--compute-operation-mode: %w", err)
	}
	comp.Operations.Mode = mode
	if comp.Operations.Retention > operations.MaxRetention {
		return c, fmt.Errorf("--compute-operation-retention (%v) may be at most %v", comp.Operations.Retention, operations.MaxRetention)
	}
	c.Server.Compute = comp
	// A zero or negative duration was taken and then quietly replaced by the default.
	for name, d := range map[string]time.Duration{"read-header-timeout": c.HTTP.ReadHeaderTimeout, "read-timeout": c.HTTP.ReadTimeout,
		"write-timeout": c.HTTP.WriteTimeout, "idle-timeout": c.HTTP.IdleTimeout, "shutdown-timeout": c.HTTP.ShutdownTimeout,
		"accounts-link-lifetime": c.Server.Accounts.LinkLifetime, "accounts-session-lifetime": c.Server.Accounts.SessionLifetime,
		"accounts-idempotency-window": c.Server.Accounts.IdempotencyWindow, "accounts-link-retention": c.Server.Accounts.LinkRetention,
		"accounts-event-retention": c.Server.Accounts.EventRetention, "compute-operation-retention": comp.Operations.Retention,
		"compute-wait-timeout": comp.Operations.WaitTimeout} {
		if d <= 0 {
			return c, fmt.Errorf("--%s must be positive", name)
		}
	}
	if *memLimit != "" && *memLimit != "0" {
		n, err := parseBytes(*memLimit)
		if err != nil {
			return c, fmt.Errorf("--memory-limit %q: %w", *memLimit, err)
		}
		c.MemoryLimit = n
	}
	if c.HTTP.MaxHeaderBytes <= 0 {
		return c, fmt.Errorf("--max-header-bytes must be positive")
	}
	if c.Server.PublicURL != "" {
		// Every link the APIs return starts with it: a value that is not an absolute http(s)
		// URL would make every one of them unusable.
		u, err := url.Parse(c.Server.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return c, fmt.Errorf("--public-url %q: want an absolute http or https URL such as https://understudy.example:8443, without user, query or fragment", c.Server.PublicURL)
		}
		c.Server.PublicURL = strings.TrimRight(c.Server.PublicURL, "/")
	}
	if c.HTTP.WriteTimeout <= comp.Operations.WaitTimeout {
		return c, fmt.Errorf("--write-timeout (%v) must exceed --compute-wait-timeout (%v), or waits are cut off", c.HTTP.WriteTimeout, comp.Operations.WaitTimeout)
	}
	return c, nil
}

// envName is the environment variable of a flag: --public-url is UNDERSTUDY_PUBLIC_URL.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseBytes reads a size such as 1048576, 512KiB, 900MiB or 2GiB.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		n      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}, {"", 1}}
	for _, u := range units {
		num, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || v <= 0 || v > math.MaxInt64/u.n {
			return 0, errors.New("want a positive size such as 900MiB or 2GiB")
		}
		return v * u.n, nil
	}
	return 0, errors.New("want a positive size such as 900MiB or 2GiB")
}
