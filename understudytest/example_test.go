package understudytest_test

import (
	"context"
	"fmt"
	"log"

	"github.com/understudy-dev/understudy/understudytest"
)

// ExampleNew starts a server outside a test (as TestMain would) and reads its health.
func ExampleNew() {
	srv, err := understudytest.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	health, err := srv.Admin.GetHealthWithResponse(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(health.StatusCode(), health.JSON200.Status)
	// Output: 200 ok
}
