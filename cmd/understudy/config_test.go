package main

import (
	"errors"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	seedPath := writeSeed(t)
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(t *testing.T, c Config)
		wantErr string
	}{
		{name: "defaults", check: func(t *testing.T, c Config) {
			if c.Addr != "127.0.0.1:8080" || c.LogLevel != slog.LevelInfo || c.Server.BodyLimit != 1<<20 || c.Server.Authorization.Enforce {
				t.Errorf("defaults = %+v", c)
			}
			if c.Server.Authorization.MaxPerSubscription != 4000 {
				t.Errorf("max per subscription = %d", c.Server.Authorization.MaxPerSubscription)
			}
		}},
		{name: "data dir from the environment", env: map[string]string{"UNDERSTUDY_DATA_DIR": "/var/lib/understudy"},
			check: func(t *testing.T, c Config) {
				if c.Server.DataDir != "/var/lib/understudy" {
					t.Errorf("data dir = %q", c.Server.DataDir)
				}
			}},
		{name: "store from the environment", env: map[string]string{"UNDERSTUDY_STORE": "postgres://u:p@db:5432/understudy"},
			check: func(t *testing.T, c Config) {
				if c.Server.Store != "postgres://u:p@db:5432/understudy" || c.Server.DataDir != "" {
					t.Errorf("store = %q, data dir %q", c.Server.Store, c.Server.DataDir)
				}
			}},
		{name: "store and data dir", args: []string{"--store", "postgres://db/x"}, env: map[string]string{"UNDERSTUDY_DATA_DIR": "/var/lib/understudy"},
			wantErr: "--store and --data-dir both say where the state lives: give one"},
		{name: "store that is not PostgreSQL", args: []string{"--store", "mysql://db/x"}, wantErr: "--store: want a postgres:// URL"},
		{name: "admin token from the environment", env: map[string]string{"UNDERSTUDY_ADMIN_TOKEN": "s3cret-admin"},
			check: func(t *testing.T, c Config) {
				if c.Server.AdminToken != "s3cret-admin" {
					t.Errorf("admin token = %q", c.Server.AdminToken)
				}
			}},
		{name: "admin token flag", args: []string{"--admin-token", "from-flag"}, env: map[string]string{"UNDERSTUDY_ADMIN_TOKEN": "from-env"},
			check: func(t *testing.T, c Config) {
				if c.Server.AdminToken != "from-flag" {
					t.Errorf("admin token = %q, want the flag's", c.Server.AdminToken)
				}
			}},
		{name: "memory limit", args: []string{"--memory-limit", "900MiB"},
			check: func(t *testing.T, c Config) {
				if c.MemoryLimit != 900<<20 {
					t.Errorf("memory limit = %d", c.MemoryLimit)
				}
			}},
		{name: "bad memory limit", args: []string{"--memory-limit", "lots"}, wantErr: "--memory-limit"},
		{name: "cpu profile from the environment", env: map[string]string{"UNDERSTUDY_CPU_PROFILE": "/tmp/cpu.pprof"},
			check: func(t *testing.T, c Config) {
				if c.CPUProfile != "/tmp/cpu.pprof" {
					t.Errorf("cpu profile = %q", c.CPUProfile)
				}
			}},
		{name: "no memory limit by default", check: func(t *testing.T, c Config) {
			if c.MemoryLimit != 0 {
				t.Errorf("memory limit = %d, want the runtime's own", c.MemoryLimit)
			}
		}},
		{name: "no memory limit", args: []string{"--memory-limit", "0"}, check: func(t *testing.T, c Config) {
			if c.MemoryLimit != 0 {
				t.Errorf("memory limit = %d, want none", c.MemoryLimit)
			}
		}},
		{name: "memory limit from the environment", env: map[string]string{"UNDERSTUDY_MEMORY_LIMIT": "2GiB"}, check: func(t *testing.T, c Config) {
			if c.MemoryLimit != 2<<30 {
				t.Errorf("memory limit = %d, want 2 GiB", c.MemoryLimit)
			}
		}},
		{name: "GOMEMLIMIT is the runtime's", env: map[string]string{"GOMEMLIMIT": "2GiB"}, check: func(t *testing.T, c Config) {
			if c.MemoryLimit != 0 {
				t.Errorf("memory limit = %d, want the runtime's own", c.MemoryLimit)
			}
		}},
		{name: "the flag wins over GOMEMLIMIT", args: []string{"--memory-limit", "3GiB"}, env: map[string]string{"GOMEMLIMIT": "2GiB"}, check: func(t *testing.T, c Config) {
			if c.MemoryLimit != 3<<30 {
				t.Errorf("memory limit = %d, want 3 GiB", c.MemoryLimit)
			}
		}},
		{name: "an unknown flag fails", args: []string{"--gc-percent", "150"}, wantErr: "flag provided but not defined: -gc-percent"},
		{name: "another unknown flag fails", args: []string{"--gc-min-heap=64MiB"}, wantErr: "flag provided but not defined: -gc-min-heap"},
		{name: "flags", args: []string{"--addr", ":0", "--public-url", "http://emu:9", "--log-level", "warn", "--body-limit", "10", "--authz-enforce", "--authz-owners", "a, b"},
			check: func(t *testing.T, c Config) {
				if c.Addr != ":0" || c.Server.PublicURL != "http://emu:9" || c.LogLevel != slog.LevelWarn || c.Server.BodyLimit != 10 {
					t.Errorf("got %+v", c)
				}
				if !c.Server.Authorization.Enforce || strings.Join(c.Server.Authorization.BootstrapOwners, ",") != "a,b" {
					t.Errorf("authorization = %+v", c.Server.Authorization)
				}
			}},
		{name: "strict principals from the environment", env: map[string]string{"UNDERSTUDY_AUTHZ_STRICT_PRINCIPALS": "true"},
			check: func(t *testing.T, c Config) {
				if !c.Server.Authorization.StrictPrincipals {
					t.Errorf("StrictPrincipals = false, want true from UNDERSTUDY_AUTHZ_STRICT_PRINCIPALS")
				}
			}},
		{name: "strict principals from the flag", args: []string{"--authz-strict-principals"},
			check: func(t *testing.T, c Config) {
				if !c.Server.Authorization.StrictPrincipals {
					t.Errorf("StrictPrincipals = false, want true from --authz-strict-principals")
				}
			}},
		{name: "environment", env: map[string]string{"UNDERSTUDY_ADDR": "0.0.0.0:1", "UNDERSTUDY_AUTHZ_ENFORCE": "true", "UNDERSTUDY_AUTHZ_MAX_PER_SUBSCRIPTION": "7"},
			check: func(t *testing.T, c Config) {
				if c.Addr != "0.0.0.0:1" || !c.Server.Authorization.Enforce || c.Server.Authorization.MaxPerSubscription != 7 {
					t.Errorf("got %+v", c)
				}
			}},
		{name: "a flag wins over the environment", args: []string{"--addr", "127.0.0.1:2"}, env: map[string]string{"UNDERSTUDY_ADDR": "127.0.0.1:3"},
			check: func(t *testing.T, c Config) {
				if c.Addr != "127.0.0.1:2" {
					t.Errorf("addr = %s", c.Addr)
				}
			}},
		{name: "seed file, with explicit flags winning", args: []string{"--seed", seedPath, "--authz-owners", "flag-owner"},
			env: map[string]string{"UNDERSTUDY_AUTHZ_MAX_PER_SUBSCRIPTION": "9"},
			check: func(t *testing.T, c Config) {
				a := c.Server.Authorization
				if !a.Enforce || strings.Join(a.BootstrapOwners, ",") != "flag-owner,seed-owner" || a.MaxPerSubscription != 9 || a.DefaultPrincipal != "seed-default" || len(a.Tokens) != 1 {
					t.Errorf("authorization = %+v", a)
				}
			}},
		{name: "missing seed file", args: []string{"--seed", "/no/such/seed.yaml"}, wantErr: "seed.yaml"},
		{name: "HTTP limits", args: []string{"--read-header-timeout", "2s", "--max-header-bytes", "8192", "--shutdown-timeout", "5s"},
			check: func(t *testing.T, c Config) {
				if c.HTTP.ReadHeaderTimeout != 2*time.Second || c.HTTP.MaxHeaderBytes != 8192 || c.HTTP.ShutdownTimeout != 5*time.Second || c.HTTP.WriteTimeout != 5*time.Minute {
					t.Errorf("HTTP limits = %+v", c.HTTP)
				}
			}},
		{name: "write timeout not above the wait timeout", args: []string{"--write-timeout", "1m", "--compute-wait-timeout", "2m"}, wantErr: "must exceed --compute-wait-timeout"},
		{name: "non-positive timeout", args: []string{"--idle-timeout", "0s"}, wantErr: "idle-timeout"},
		{name: "negative link lifetime", args: []string{"--accounts-link-lifetime", "-1m"}, wantErr: "accounts-link-lifetime"},
		{name: "zero retention", args: []string{"--compute-operation-retention", "0"}, wantErr: "compute-operation-retention"},
		{name: "negative wait timeout", args: []string{"--compute-wait-timeout", "-1s"}, wantErr: "compute-wait-timeout"},
		{name: "zero idempotency window", args: []string{"--accounts-idempotency-window", "0s"}, wantErr: "accounts-idempotency-window"},
		{name: "an operation longer than a day", args: []string{"--compute-operation-mode", "2500000h"}, wantErr: "--compute-operation-mode"},
		{name: "a retention longer than 30 days", args: []string{"--compute-operation-retention", "721h"}, wantErr: "--compute-operation-retention"},
		{name: "a public URL without a scheme", args: []string{"--public-url", "example.com"}, wantErr: "--public-url"},
		{name: "a public URL with a space in its host", args: []string{"--public-url", "http://exa mple.com"}, wantErr: "--public-url"},
		{name: "a public URL with a query", args: []string{"--public-url", "https://example.com/?a=1"}, wantErr: "--public-url"},
		{name: "a public URL's trailing slash", args: []string{"--public-url", "https://example.com/emu/"},
			check: func(t *testing.T, c Config) {
				if c.Server.PublicURL != "https://example.com/emu" {
					t.Errorf("public URL %q", c.Server.PublicURL)
				}
			}},
		{name: "plain HTTP by default", check: func(t *testing.T, c Config) {
			if c.TLS.On() || c.TLS.scheme() != "http" {
				t.Errorf("TLS = %+v, want off", c.TLS)
			}
		}},
		{name: "tls auto with hosts", args: []string{"--tls", "auto", "--tls-hosts", "understudy.internal, 10.0.0.7,,*.sandbox.test"},
			check: func(t *testing.T, c Config) {
				if !c.TLS.Auto || c.TLS.scheme() != "https" || strings.Join(c.TLS.Hosts, ",") != "understudy.internal,10.0.0.7,*.sandbox.test" {
					t.Errorf("TLS = %+v", c.TLS)
				}
			}},
		{name: "tls from the environment", env: map[string]string{"UNDERSTUDY_TLS": "auto", "UNDERSTUDY_TLS_HOSTS": "emu.test"},
			check: func(t *testing.T, c Config) {
				if !c.TLS.Auto || strings.Join(c.TLS.Hosts, ",") != "emu.test" {
					t.Errorf("TLS = %+v", c.TLS)
				}
			}},
		{name: "tls off, said so", args: []string{"--tls", "off"}, check: func(t *testing.T, c Config) {
			if c.TLS.On() {
				t.Errorf("TLS = %+v, want off", c.TLS)
			}
		}},
		{name: "a certificate and its key", args: []string{"--tls-cert", "/etc/understudy/cert.pem"}, env: map[string]string{"UNDERSTUDY_TLS_KEY": "/etc/understudy/key.pem"},
			check: func(t *testing.T, c Config) {
				if c.TLS.Auto || !c.TLS.On() || c.TLS.CertFile != "/etc/understudy/cert.pem" || c.TLS.KeyFile != "/etc/understudy/key.pem" {
					t.Errorf("TLS = %+v", c.TLS)
				}
			}},
		{name: "an unknown tls mode", args: []string{"--tls", "on"}, wantErr: `--tls "on": want auto or off`},
		{name: "a certificate without its key", args: []string{"--tls-cert", "cert.pem"}, wantErr: "--tls-cert and --tls-key go together"},
		{name: "a key without its certificate", env: map[string]string{"UNDERSTUDY_TLS_KEY": "key.pem"}, wantErr: "--tls-cert and --tls-key go together"},
		{name: "tls auto and a certificate", args: []string{"--tls", "auto", "--tls-cert", "cert.pem", "--tls-key", "key.pem"}, wantErr: "--tls auto makes its own certificate"},
		{name: "tls hosts without auto", args: []string{"--tls-hosts", "emu.test"}, wantErr: "give --tls auto too"},
		{name: "a tls host with a port", args: []string{"--tls", "auto", "--tls-hosts", "emu.test:8443"}, wantErr: "--tls-hosts"},
		{name: "bad log level", args: []string{"--log-level", "loud"}, wantErr: "log-level"},
		{name: "bad environment value", env: map[string]string{"UNDERSTUDY_BODY_LIMIT": "lots"}, wantErr: "UNDERSTUDY_BODY_LIMIT"},
		{name: "non-positive body limit", args: []string{"--body-limit", "0"}, wantErr: "body-limit"},
		{name: "unknown flag", args: []string{"--nope"}, wantErr: "nope"},
		{name: "stray argument", args: []string{"serve"}, wantErr: "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestHelpListsEveryFlagAndItsEnvironmentVariable(t *testing.T) {
	var out strings.Builder
	_, err := Load([]string{"--help"}, func(string) string { return "" }, &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"-addr", "-seed", "-public-url", "-log-level", "-body-limit", "-authz-enforce", "-tls", "-tls-cert", "-tls-key", "-tls-hosts", "-admin-token", "UNDERSTUDY_PUBLIC_URL", "understudy healthcheck [flags]", "understudy --version"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help does not mention %s:\n%s", want, out.String())
		}
	}
}

// TestConfigurationDocListsEveryFlag: docs/configuration.md has a row for every flag
// --help lists, and no row for a flag that does not exist.
func TestConfigurationDocListsEveryFlag(t *testing.T) {
	var help strings.Builder
	if _, err := Load([]string{"--help"}, func(string) string { return "" }, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatal(err)
	}
	flags := map[string]bool{}
	for _, line := range strings.Split(help.String(), "\n") {
		if name, ok := strings.CutPrefix(line, "  -"); ok {
			name, _, _ = strings.Cut(name, " ")
			flags[name] = true
		}
	}
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `--") {
			continue
		}
		cell, _, _ := strings.Cut(line[2:], " |")
		for _, f := range strings.Split(cell, ", ") {
			documented[strings.Trim(f, "`-")] = true
		}
	}
	for f := range flags {
		if !documented[f] {
			t.Errorf("--%s is not in docs/configuration.md", f)
		}
	}
	for f := range documented {
		if !flags[f] {
			t.Errorf("docs/configuration.md documents --%s, which does not exist", f)
		}
	}
}

// writeSeed writes a small seed file and returns its path.
func writeSeed(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "seed.yaml")
	const seed = "authorization:\n  enforce: true\n  bootstrapOwners: [seed-owner]\n  defaultPrincipal: seed-default\n  maxPerSubscription: 5\n  tokens:\n    t: {principalId: 22222222-2222-4222-8222-222222222222}\n"
	if err := os.WriteFile(path, []byte(seed), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
