package understudytest_test

import (
	"context"

	"golang.org/x/oauth2"
	"google.golang.org/api/compute/v1"
	"google.golang.org/api/option"
)

// googleCompute is a Google Cloud compute client of understudy's at baseURL.
func googleCompute(ctx context.Context, baseURL string) (*compute.Service, error) {
	return compute.NewService(ctx,
		option.WithEndpoint(baseURL+"/compute/v1/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "any-token"})))
}

// gapicOptions are the options of a GAPIC compute client (cloud.google.com/go/compute/apiv1)
// of understudy's at baseURL: its endpoint is the base URL alone, as the client adds the
// path /compute/v1/... itself.
func gapicOptions(baseURL string) []option.ClientOption {
	return []option.ClientOption{
		option.WithEndpoint(baseURL),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "any-token"})),
	}
}
