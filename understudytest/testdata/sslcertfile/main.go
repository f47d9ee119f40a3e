// Command sslcertfile gets the URL it is given with Go's default HTTP client, which trusts
// the system's roots, or those of the file SSL_CERT_FILE names: understudytest's
// TestSSLCertFile runs it, as docs/tls.md runs a test program with SSL_CERT_FILE.
package main

import (
	"fmt"
	"net/http"
	"os"
)

func main() {
	resp, err := http.Get(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, resp.Status)
		os.Exit(1)
	}
}
