package authorization_test

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// TestTimesHaveARMPrecision: createdOn and updatedOn carry at most 7 fractional digits, as
// ARM's (.NET ticks) do; Go's clock gave 9.
func TestTimesHaveARMPrecision(t *testing.T) {
	clock := time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Now = func() time.Time { return clock }
	}))
	c := (&env{t: t, srv: srv}).client("token", true)
	resp := put(t, c, rgScope, name1, props(principal1, readerID))
	if resp.StatusCode() != http.StatusCreated {
		t.Fatalf("%d %s", resp.StatusCode(), resp.Body)
	}
	for _, field := range []string{"createdOn", "updatedOn"} {
		re := regexp.MustCompile(`"` + field + `":"2026-11-22T10:00:00\.1234567Z"`)
		if !re.Match(resp.Body) {
			t.Errorf("%s not 2026-11-22T10:00:00.1234567Z: %s", field, resp.Body)
		}
	}
}
