package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestShutdownAnswersParkedWaits: a SIGTERM (here, serve's context ending) while a client
// is parked in an operations wait answers the wait at once with the operation as it is,
// and the server stops cleanly. The default wait (2 min) outlasts the drain (30 s): the
// drain once ran out, dropped the client without an answer and failed.
func TestShutdownAnswersParkedWaits(t *testing.T) {
	addr, stop := serving(t, "--compute-operation-mode", "10m", "--shutdown-timeout", "5s")
	base := "http://" + addr + "/compute/v1/projects/drain-project/global"
	req, _ := http.NewRequest("POST", base+"/forwardingRules", strings.NewReader(`{"name":"fr-drain"}`))
	req.Header.Set("Authorization", "Bearer t")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var op struct{ Name, Status string }
	_ = json.NewDecoder(resp.Body).Decode(&op)
	resp.Body.Close()

	type answer struct {
		status int
		op     string
		err    error
	}
	waited := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", base+"/operations/"+op.Name+"/wait", nil)
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			waited <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		var got struct{ Status string }
		_ = json.NewDecoder(resp.Body).Decode(&got)
		waited <- answer{status: resp.StatusCode, op: got.Status}
	}()
	time.Sleep(200 * time.Millisecond) // the wait is parked
	done := make(chan error, 1)
	go func() { done <- stop() }()
	select {
	case a := <-waited:
		if a.err != nil || a.status != 200 || a.op == "" || a.op == "DONE" {
			t.Errorf("the parked wait: %+v, want 200 with the operation not done", a)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the parked wait was not answered when the server began to stop")
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v, want a clean stop", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop")
	}
}
