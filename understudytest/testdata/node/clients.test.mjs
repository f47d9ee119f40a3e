// What the vendors' Node clients send that the specs do not spell out word for word, run
// against the server at UNDERSTUDY_URL as TestNodeRecipes starts it (compute operations
// finish at once).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import compute from '@google-cloud/compute';
import { OAuth2Client } from 'google-auth-library';

const baseURL = process.env.UNDERSTUDY_URL;
assert.ok(baseURL, 'UNDERSTUDY_URL is not set');

// The REST transport's options, as recipes.mjs's googleCompute builds them.
function restOptions() {
  const url = new URL(baseURL);
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: 'any-token' });
  return { fallback: true, apiEndpoint: url.hostname, port: Number(url.port), protocol: url.protocol.slice(0, -1), authClient };
}

// operations.wait takes no body; the REST transport sends the body "" (a JSON string) there.
test('Google compute: globalOperations.wait and regionOperations.wait', async () => {
  const opts = restOptions();
  const project = 'my-project';
  const base = `https://www.googleapis.com/compute/v1/projects/${project}`;

  const [icOp] = await new compute.InterconnectsClient(opts).insert({
    project,
    interconnectResource: {
      name: 'ic-node-wait', location: `${base}/global/interconnectLocations/iad-zone1-1`,
      linkType: 'LINK_TYPE_ETHERNET_10G_LR', requestedLinkCount: 1, interconnectType: 'DEDICATED',
    },
  });
  const [global] = await new compute.GlobalOperationsClient(opts).wait({ project, operation: icOp.latestResponse.name });
  assert.equal(global.status, 'DONE');
  assert.equal(global.error, undefined, JSON.stringify(global.error));

  const region = 'us-east4';
  const [attOp] = await new compute.InterconnectAttachmentsClient(opts).insert({
    project, region,
    interconnectAttachmentResource: {
      name: 'att-node-wait', type: 'DEDICATED', interconnect: `${base}/global/interconnects/ic-node-wait`,
      router: `${base}/regions/${region}/routers/r1`,
    },
  });
  const [regional] = await new compute.RegionOperationsClient(opts).wait({ project, region, operation: attOp.latestResponse.name });
  assert.equal(regional.status, 'DONE');
  assert.equal(regional.error, undefined, JSON.stringify(regional.error));
});
