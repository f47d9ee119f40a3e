// Runs each recipe of recipes.mjs against the server at UNDERSTUDY_URL (HTTPS, trusted
// through NODE_EXTRA_CA_CERTS; compute operations finish at once), as TestNodeRecipes
// starts it.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { azureAuthorization, googleCompute, stripeClient } from './recipes.mjs';

const baseURL = process.env.UNDERSTUDY_URL;
assert.ok(baseURL, 'UNDERSTUDY_URL is not set');

test('Google compute: insert a forwarding rule, then get it', async () => {
  const { rules, operations } = googleCompute(baseURL);
  const [response] = await rules.insert({ project: 'my-project', forwardingRuleResource: { name: 'fr-node' } });
  const [op] = await operations.get({ project: 'my-project', operation: response.latestResponse.name });
  assert.equal(op.status, 'DONE');
  const [rule] = await rules.get({ project: 'my-project', forwardingRule: 'fr-node' });
  assert.equal(rule.networkTier, 'PREMIUM');
});

test('Azure: create a role assignment, then list it', async () => {
  const sub = 'a925f2f7-5c63-4b7b-8799-25a5f97bc3b2';
  const client = azureAuthorization(baseURL, sub);
  const ra = await client.roleAssignments.create(`/subscriptions/${sub}`, 'b0f43c54-e787-4862-89b1-a653fa9cf747', {
    principalId: 'ce2ce14e-85d7-4629-bdbc-454d0519d987',
    roleDefinitionId: `/subscriptions/${sub}/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7`,
  });
  assert.equal(ra.principalId, 'ce2ce14e-85d7-4629-bdbc-454d0519d987');
  const names = [];
  for await (const r of client.roleAssignments.listForSubscription()) names.push(r.name);
  assert.ok(names.includes('b0f43c54-e787-4862-89b1-a653fa9cf747'), `listed ${names}`);
});

test('Stripe: create an account, then retrieve it', async () => {
  const stripe = stripeClient(baseURL);
  const acct = await stripe.v2.core.accounts.create({ display_name: 'Recipe' });
  assert.match(acct.id, /^acct_/);
  const again = await stripe.v2.core.accounts.retrieve(acct.id, {});
  assert.equal(again.display_name, 'Recipe');
});
