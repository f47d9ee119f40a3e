// The recipes for the vendors' Node SDKs, as docs/sdks.md shows them (understudytest's
// TestDocBlocks holds each js block of the docs to a piece of this file); recipes.test.mjs
// runs them against a server.

import compute from '@google-cloud/compute';
import { OAuth2Client } from 'google-auth-library';

// Google Cloud: the REST transport, pointed at understudy, with any access token.
export function googleCompute(baseURL) {
  const url = new URL(baseURL);
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: 'any-token' });
  const opts = { fallback: true, apiEndpoint: url.hostname, port: Number(url.port), protocol: url.protocol.slice(0, -1), authClient };
  return { rules: new compute.GlobalForwardingRulesClient(opts), operations: new compute.GlobalOperationsClient(opts) };
}

import { AuthorizationManagementClient } from '@azure/arm-authorization';

// Azure: a credential that hands out any token, Resource Manager's endpoint, and a policy
// that sends Microsoft.Authorization requests to Vendor.Authorization. The SDK sends tokens
// over HTTPS only: serve it with --tls auto and run Node with NODE_EXTRA_CA_CERTS=<its ca.pem>.
export function azureAuthorization(baseURL, subscriptionId) {
  const credential = { getToken: async () => ({ token: 'any-token', expiresOnTimestamp: Date.now() + 3600_000 }) };
  const vendorNamespace = {
    name: 'vendorNamespace',
    sendRequest(request, next) {
      request.url = request.url.replaceAll('Microsoft.Authorization', 'Vendor.Authorization');
      if (typeof request.body === 'string') request.body = request.body.replaceAll('Microsoft.Authorization', 'Vendor.Authorization');
      return next(request);
    },
  };
  return new AuthorizationManagementClient(credential, subscriptionId, {
    endpoint: baseURL,
    credentialScopes: ['https://management.understudy.local/.default'],
    additionalPolicies: [{ policy: vendorNamespace, position: 'perCall' }],
  });
}

import Stripe from 'stripe';

// Stripe: the host, port and protocol, and an HTTP client that adds the Service-Version
// header the accounts API requires to every request, so that the requests the SDK makes on
// its own (a thin event's fetchEvent and fetchRelatedObject) carry it too.
export class ServiceVersion extends Stripe.HttpClient {
  constructor(next = Stripe.createNodeHttpClient()) {
    super();
    this.next = next;
  }
  getClientName() {
    return this.next.getClientName();
  }
  makeRequest(host, port, path, method, headers, data, protocol, timeout) {
    return this.next.makeRequest(host, port, path, method, { ...headers, 'Service-Version': '2026-05-27.dahlia' }, data, protocol, timeout);
  }
}

export function stripeClient(baseURL, key = 'sk_test_123') {
  const url = new URL(baseURL);
  return new Stripe(key, { host: url.hostname, port: url.port, protocol: url.protocol.slice(0, -1), httpClient: new ServiceVersion() });
}
