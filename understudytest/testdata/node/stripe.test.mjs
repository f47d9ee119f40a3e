// Every operation of the accounts API (specs/accounts.yaml) through Stripe's Node SDK, the
// v2 core methods of stripe.v2.core.*, against the server at UNDERSTUDY_URL as TestNodeRecipes
// starts it. Each test makes its own accounts and destinations, named after this run, so the
// other files running against the same server never see them.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { test } from 'node:test';

import Stripe from 'stripe';

import { ServiceVersion, stripeClient } from './recipes.mjs';

const baseURL = process.env.UNDERSTUDY_URL;
assert.ok(baseURL, 'UNDERSTUDY_URL is not set');

const run = randomUUID().slice(0, 8);
const { StripeInvalidRequestError, StripeIdempotencyError, StripeAuthenticationError, StripeSignatureVerificationError } = Stripe.errors;

// A v2 timestamp: RFC 3339, UTC, milliseconds.
const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function assertTimestamp(value, what) {
  assert.equal(typeof value, 'string', what);
  assert.match(value, timestamp, what);
}

// The SDK's Decimal (what decimal_string members such as percent_ownership become).
function assertDecimal(value, expected, what) {
  assert.equal(typeof value?.toFixed, 'function', `${what} is no Stripe.Decimal: ${value}`);
  assert.equal(value.toString(), expected, what);
}

// err is an instance of cls carrying these members (a RegExp matches a string member).
async function assertRejects(promise, cls, members) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof cls, `${err?.constructor?.name} (${err?.message}) is no ${cls.name}`);
    for (const [name, want] of Object.entries(members)) {
      if (want instanceof RegExp) assert.match(String(err[name]), want, name);
      else assert.deepEqual(err[name], want, name);
    }
    return true;
  });
}

// The request events ({method, path, idempotency_key, ...}) a client emits from now on, one
// an attempt, for counting list pages and retries.
function recordRequests(stripe) {
  const requests = [];
  stripe.on('request', (e) => requests.push(e));
  return requests;
}

// An SDK response: its request id and, on a v2 POST or DELETE, the Idempotency-Key the SDK
// made, which the server echoes.
function assertResponse(obj, { idempotent }) {
  assert.match(obj.lastResponse.requestId, /^req_/);
  assert.equal(obj.lastResponse.statusCode, 200);
  if (idempotent) assert.match(obj.lastResponse.idempotencyKey, /^stripe-node-retry-/);
}

function assertAccount(acct) {
  assert.match(acct.id, /^acct_/);
  assert.equal(acct.object, 'v2.core.account');
  assert.ok(Array.isArray(acct.applied_configurations));
  assertTimestamp(acct.created, 'created');
  assert.equal(acct.livemode, false);
  assert.equal(typeof acct.closed, 'boolean');
  assert.equal(typeof acct.metadata, 'object');
}

function assertPerson(person, account) {
  assert.match(person.id, /^person_/);
  assert.equal(person.object, 'v2.core.account_person');
  assert.equal(person.account, account);
  assertTimestamp(person.created, 'created');
  assertTimestamp(person.updated, 'updated');
  assert.equal(person.livemode, false);
}

function assertToken(token, prefix, object) {
  assert.match(token.id, new RegExp(`^${prefix}`));
  assert.equal(token.object, object);
  assertTimestamp(token.created, 'created');
  assertTimestamp(token.expires_at, 'expires_at');
  assert.ok(token.expires_at > token.created);
  assert.equal(token.livemode, false);
  assert.equal(typeof token.used, 'boolean');
}

function assertDestination(d) {
  assert.match(d.id, /^ed_/);
  assert.equal(d.object, 'v2.core.event_destination');
  assertTimestamp(d.created, 'created');
  assertTimestamp(d.updated, 'updated');
  assert.equal(typeof d.description, 'string');
  assert.ok(Array.isArray(d.enabled_events));
  assert.ok(['snapshot', 'thin'].includes(d.event_payload));
  assert.equal(d.livemode, false);
  assert.equal(typeof d.name, 'string');
  assert.ok(['enabled', 'disabled'].includes(d.status));
  assert.equal(typeof d.type, 'string');
}

function assertEvent(ev) {
  assert.match(ev.id, /^evt_/);
  assert.equal(ev.object, 'v2.core.event');
  assertTimestamp(ev.created, 'created');
  assert.equal(ev.livemode, false);
  assert.equal(typeof ev.type, 'string');
}

const recipientConfiguration = { recipient: { capabilities: { stripe_balance: { stripe_transfers: { requested: true } } } } };

test('Stripe v2 accounts: create, retrieve and update, with include', async () => {
  const stripe = stripeClient(baseURL);
  const acct = await stripe.v2.core.accounts.create({
    display_name: `Node ${run}`,
    contact_email: `node-${run}@example.com`,
    dashboard: 'none',
    identity: {
      country: 'us',
      entity_type: 'individual',
      individual: { given_name: 'Jenny', surname: 'Rosen', relationship: { percent_ownership: Stripe.Decimal.from('25.5') } },
    },
    configuration: recipientConfiguration,
    defaults: { currency: 'usd', locales: ['en-US'] },
    metadata: { suite: 'node', run },
    include: ['identity', 'configuration.recipient', 'requirements', 'defaults'],
  });
  assertAccount(acct);
  assertResponse(acct, { idempotent: true });
  assert.deepEqual(acct.applied_configurations, ['recipient']);
  assert.equal(acct.closed, false);
  assert.equal(acct.display_name, `Node ${run}`);
  assert.equal(acct.contact_email, `node-${run}@example.com`);
  assert.equal(acct.dashboard, 'none');
  assert.deepEqual(acct.metadata, { suite: 'node', run });
  assert.equal(acct.identity.country, 'US');
  assert.equal(acct.identity.entity_type, 'individual');
  assert.equal(acct.identity.individual.given_name, 'Jenny');
  assertDecimal(acct.identity.individual.relationship.percent_ownership, '25.5', 'percent_ownership');
  const transfers = acct.configuration.recipient.capabilities.stripe_balance.stripe_transfers;
  assert.equal(transfers.status, 'restricted');
  assert.ok(Array.isArray(transfers.status_details));
  assert.equal(acct.defaults.currency, 'usd');
  assert.deepEqual(acct.defaults.locales, ['en-US']);
  assert.equal(acct.defaults.responsibilities.requirements_collector, 'stripe');
  assert.equal(typeof acct.defaults.responsibilities.fees_collector, 'string');
  assert.equal(typeof acct.defaults.responsibilities.losses_collector, 'string');
  // What onboarding still needs: the terms of service at least, restricting the transfers.
  assert.ok(acct.requirements.entries.length > 0);
  for (const entry of acct.requirements.entries) {
    assert.ok(['stripe', 'user'].includes(entry.awaiting_action_from));
    assert.equal(typeof entry.description, 'string');
    assert.ok(Array.isArray(entry.errors));
    assert.ok(Array.isArray(entry.requested_reasons));
    assert.equal(typeof entry.minimum_deadline.status, 'string');
  }
  const restricted = acct.requirements.entries.flatMap((e) => e.impact.restricts_capabilities ?? []);
  assert.ok(restricted.some((r) => r.capability === 'stripe_balance.stripe_transfers' && r.configuration === 'recipient'),
    JSON.stringify(restricted));

  // Without include, the optional sections are not returned.
  const bare = await stripe.v2.core.accounts.retrieve(acct.id, {});
  assertAccount(bare);
  assertResponse(bare, { idempotent: false });
  assert.equal(bare.identity ?? null, null);
  assert.equal(bare.requirements ?? null, null);
  assert.equal(bare.configuration ?? null, null);
  assert.equal(bare.display_name, `Node ${run}`);

  // include travels as include[0]=...&include[1]=... on a GET.
  const full = await stripe.v2.core.accounts.retrieve(acct.id, { include: ['identity', 'requirements', 'future_requirements'] });
  assertDecimal(full.identity.individual.relationship.percent_ownership, '25.5', 'percent_ownership');
  assert.deepEqual(full.requirements, acct.requirements);
  assert.equal(full.configuration ?? null, null);

  // An update merges: members sent replace, a metadata key sent as null goes.
  const updated = await stripe.v2.core.accounts.update(acct.id, {
    display_name: `Node ${run} (renamed)`,
    identity: { individual: { relationship: { percent_ownership: Stripe.Decimal.from('30') } } },
    metadata: { suite: null, stage: 'updated' },
    include: ['identity'],
  });
  assertAccount(updated);
  assertResponse(updated, { idempotent: true });
  assert.equal(updated.id, acct.id);
  assert.equal(updated.display_name, `Node ${run} (renamed)`);
  assert.equal(updated.contact_email, `node-${run}@example.com`);
  assert.deepEqual(updated.metadata, { run, stage: 'updated' });
  assert.equal(updated.identity.individual.given_name, 'Jenny');
  assertDecimal(updated.identity.individual.relationship.percent_ownership, '30', 'percent_ownership');

  // contact_email sent as null is removed.
  const cleared = await stripe.v2.core.accounts.update(acct.id, { contact_email: null });
  assert.equal(cleared.contact_email ?? null, null);
});

test('Stripe v2 accounts: list across pages, with filters, and close', async () => {
  const stripe = stripeClient(baseURL);
  const mine = [];
  for (let i = 0; i < 3; i++) {
    const a = await stripe.v2.core.accounts.create({ display_name: `List ${run} ${i}`, configuration: recipientConfiguration });
    mine.push(a.id);
  }

  // Newest first, two a page: the iterator follows next_page_url until it has seen all three.
  const requests = recordRequests(stripe);
  const seen = [];
  for await (const a of stripe.v2.core.accounts.list({ limit: 2 })) {
    assertAccount(a);
    if (mine.includes(a.id)) seen.push(a.id);
    if (seen.length === mine.length) break;
  }
  assert.deepEqual(seen, [...mine].reverse());
  const pages = requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v2/core/accounts'));
  assert.ok(pages.length >= 2, `${pages.length} page(s): ${pages.map((p) => p.path)}`);
  assert.match(pages[1].path, /[?&]page=/);

  // Close each; a close must name all of the account's configurations.
  await assertRejects(stripe.v2.core.accounts.close(mine[0], { applied_configurations: ['merchant'] }), StripeInvalidRequestError, {
    statusCode: 400, rawType: 'invalid_request_error', code: 'configs_must_match_to_close',
  });
  for (const id of mine) {
    const closed = await stripe.v2.core.accounts.close(id, { applied_configurations: ['recipient'] });
    assertAccount(closed);
    assertResponse(closed, { idempotent: true });
    assert.equal(closed.id, id);
    assert.equal(closed.closed, true);
  }
  const again = await stripe.v2.core.accounts.retrieve(mine[0], { include: ['identity'] });
  assert.equal(again.closed, true);
  assert.equal(again.display_name ?? null, null);
  await assertRejects(stripe.v2.core.accounts.update(mine[0], { display_name: 'reopened' }), StripeInvalidRequestError, {
    statusCode: 400, code: 'account_closed',
  });

  // The filters stay on every page (one a page here), whichever list the SDK turns.
  const closedRecipients = await stripe.v2.core.accounts.list({ closed: true, applied_configurations: ['recipient'], limit: 1 })
    .autoPagingToArray({ limit: 10000 });
  for (const a of closedRecipients) {
    assert.equal(a.closed, true);
    assert.ok(a.applied_configurations.includes('recipient'));
  }
  for (const id of mine) assert.ok(closedRecipients.some((a) => a.id === id), `${id} is not listed as closed`);
  const open = await stripe.v2.core.accounts.list({ closed: false, limit: 50 }).autoPagingToArray({ limit: 10000 });
  assert.ok(open.every((a) => !mine.includes(a.id)));
});

test('Stripe v2 accounts: errors as the SDK raises them', async () => {
  const stripe = stripeClient(baseURL);

  await assertRejects(stripe.v2.core.accounts.retrieve('acct_doesnotexist000', {}), StripeInvalidRequestError, {
    statusCode: 404, rawType: 'invalid_request_error', code: 'not_found', requestId: /^req_/,
  });
  await assertRejects(stripe.v2.core.accounts.create({ display_name: 'x', favourite_colour: 'blue' }), StripeInvalidRequestError, {
    statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_unknown', message: /favourite_colour/,
  });
  await assertRejects(stripe.v2.core.accounts.create({ dashboard: 'sideways' }), StripeInvalidRequestError, {
    statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_invalid', message: /dashboard/,
  });
  await assertRejects(stripe.v2.core.accounts.list({ limit: 0 }), StripeInvalidRequestError, {
    statusCode: 400, code: 'parameter_invalid', message: /limit/,
  });
  // The accounts API asks for its Service-Version header on every call: a client without
  // the recipe's HTTP client sends none.
  const url = new URL(baseURL);
  const bare = new Stripe('sk_test_123', { host: url.hostname, port: url.port, protocol: url.protocol.slice(0, -1) });
  await assertRejects(bare.v2.core.accounts.list({}), StripeInvalidRequestError, {
    statusCode: 400, code: 'parameter_missing', message: /Service-Version/,
  });
  // A 429 (the account's concurrency limit, here a fault rule on this account alone) is the
  // v2 type rate_limit, which the SDK raises as its RateLimitError without retrying.
  const busy = await stripe.v2.core.accounts.create({ display_name: `Busy ${run}` });
  const fault = await fetch(`${baseURL}/_understudy/faults`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ api: 'accounts', method: 'POST', path: `/v2/core/accounts/${busy.id}`, count: 1, status: 429, code: 'account_rate_limit_exceeded' }),
  });
  assert.equal(fault.status, 201, await fault.text());
  await assertRejects(stripe.v2.core.accounts.update(busy.id, { display_name: 'later' }), Stripe.errors.RateLimitError, {
    statusCode: 429, rawType: 'rate_limit', code: 'account_rate_limit_exceeded',
  });
  assert.equal((await stripe.v2.core.accounts.update(busy.id, { display_name: 'later' })).display_name, 'later');

  const stranger = stripeClient(baseURL, 'sk_nope_123');
  await assertRejects(stranger.v2.core.accounts.list({}), StripeAuthenticationError, { statusCode: 401 });
});

test('Stripe v2 accounts: Idempotency-Key replays, conflicts and the SDK own retries', async (t) => {
  // stripeClient's options, with an agent of this test's own: the SDK does not read the
  // body of an answer it retries, whose socket would keep Node waiting for the server to
  // close it; the agent is destroyed at the end.
  const url = new URL(baseURL);
  const agent = url.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  t.after(() => agent.destroy());
  const stripe = new Stripe('sk_test_123', {
    host: url.hostname, port: url.port, protocol: url.protocol.slice(0, -1), httpClient: new ServiceVersion(Stripe.createNodeHttpClient(agent)),
  });

  // The same key and body: the same account, once.
  const key = `node-${run}-create`;
  const first = await stripe.v2.core.accounts.create({ display_name: `Idem ${run}` }, { idempotencyKey: key });
  const second = await stripe.v2.core.accounts.create({ display_name: `Idem ${run}` }, { idempotencyKey: key });
  assert.equal(second.id, first.id);
  assert.equal(second.lastResponse.idempotencyKey, key);
  // Another body, or another endpoint, with that key: an idempotency error.
  await assertRejects(stripe.v2.core.accounts.create({ display_name: 'someone else' }, { idempotencyKey: key }), StripeIdempotencyError, {
    statusCode: 400, rawType: 'idempotency_error',
  });
  await assertRejects(stripe.v2.core.accounts.update(first.id, { display_name: `Idem ${run}` }, { idempotencyKey: key }), StripeIdempotencyError, {
    statusCode: 400, rawType: 'idempotency_error', message: /same endpoint/,
  });

  // The key the SDK made for a create, sent again, replays that create.
  const made = await stripe.v2.core.accounts.create({ display_name: `Auto ${run}` });
  const replay = await stripe.v2.core.accounts.create({ display_name: `Auto ${run}` }, { idempotencyKey: made.lastResponse.idempotencyKey });
  assert.equal(replay.id, made.id);

  // A create the SDK retries (the first attempt answered 500 by a fault rule on this
  // account's persons) goes out again with the same key and makes one person.
  const faults = await fetch(`${baseURL}/_understudy/faults`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ api: 'accounts', method: 'POST', path: `/v2/core/accounts/${made.id}/persons`, count: 1, status: 500 }),
  });
  assert.equal(faults.status, 201, await faults.text());
  const requests = recordRequests(stripe);
  const person = await stripe.v2.core.accounts.persons.create(made.id, { given_name: 'Retried', surname: run });
  assertPerson(person, made.id);
  const attempts = requests.filter((r) => r.method === 'POST' && r.path === `/v2/core/accounts/${made.id}/persons`);
  assert.equal(attempts.length, 2);
  assert.equal(attempts[0].idempotency_key, attempts[1].idempotency_key);
  assert.equal(person.lastResponse.idempotencyKey, attempts[0].idempotency_key);
  const again = await stripe.v2.core.accounts.persons.create(made.id, { given_name: 'Retried', surname: run }, { idempotencyKey: attempts[0].idempotency_key });
  assert.equal(again.id, person.id);
  const persons = await stripe.v2.core.accounts.persons.list(made.id, {}).autoPagingToArray({ limit: 100 });
  assert.deepEqual(persons.map((p) => p.id), [person.id]);
});

test('Stripe v2 account links: onboarding and update links', async () => {
  const stripe = stripeClient(baseURL);
  const acct = await stripe.v2.core.accounts.create({ display_name: `Links ${run}`, configuration: recipientConfiguration });

  // stripe 23 pins 2026-10-28.endive, which dropped use_case.*.configurations; the Service-Version
  // sent here is 2026-05-27.dahlia, where a link names the configurations it collects for.
  const onboarding = {
    configurations: ['recipient'],
    refresh_url: 'https://example.com/refresh',
    return_url: 'https://example.com/return',
  };
  const link = await stripe.v2.core.accountLinks.create({
    account: acct.id, use_case: { type: 'account_onboarding', account_onboarding: onboarding },
  });
  assertResponse(link, { idempotent: true });
  assert.equal(link.object, 'v2.core.account_link');
  assert.equal(link.account, acct.id);
  assertTimestamp(link.created, 'created');
  assertTimestamp(link.expires_at, 'expires_at');
  assert.ok(link.expires_at > link.created);
  assert.equal(link.livemode, false);
  assert.equal(new URL(link.url).origin, new URL(baseURL).origin);
  assert.equal(link.use_case.type, 'account_onboarding');
  assert.equal(link.use_case.account_onboarding.refresh_url, onboarding.refresh_url);
  assert.equal(link.use_case.account_onboarding.return_url, onboarding.return_url);
  assert.deepEqual(link.use_case.account_onboarding.collection_options, { fields: 'currently_due', future_requirements: 'omit' });
  assert.equal(link.use_case.account_update ?? null, null);

  // A retry with the link's own key gives the same link.
  const replay = await stripe.v2.core.accountLinks.create({
    account: acct.id, use_case: { type: 'account_onboarding', account_onboarding: onboarding },
  }, { idempotencyKey: link.lastResponse.idempotencyKey });
  assert.equal(replay.url, link.url);

  const update = await stripe.v2.core.accountLinks.create({
    account: acct.id,
    use_case: {
      type: 'account_update',
      account_update: { configurations: ['recipient'], refresh_url: 'https://example.com/refresh', collection_options: { fields: 'eventually_due', future_requirements: 'include' } },
    },
  });
  assert.equal(update.use_case.type, 'account_update');
  assert.deepEqual(update.use_case.account_update.collection_options, { fields: 'eventually_due', future_requirements: 'include' });
  assert.equal(update.use_case.account_update.return_url ?? null, null);
  assert.notEqual(update.url, link.url);

  await assertRejects(stripe.v2.core.accountLinks.create({
    account: 'acct_doesnotexist000', use_case: { type: 'account_onboarding', account_onboarding: onboarding },
  }), StripeInvalidRequestError, { statusCode: 404, code: 'not_found' });
  await assertRejects(stripe.v2.core.accountLinks.create({
    account: acct.id, use_case: { type: 'account_onboarding', account_onboarding: { ...onboarding, configurations: ['merchant'] } },
  }), StripeInvalidRequestError, { statusCode: 400, code: 'configs_must_match_to_use_account_links' });
});

test('Stripe v2 persons: create, retrieve, update, list across pages and delete', async () => {
  const stripe = stripeClient(baseURL);
  const acct = await stripe.v2.core.accounts.create({ display_name: `Persons ${run}`, identity: { country: 'us', entity_type: 'company' } });

  const person = await stripe.v2.core.accounts.persons.create(acct.id, {
    given_name: 'Ada',
    surname: 'Lovelace',
    email: `ada-${run}@example.com`,
    date_of_birth: { day: 10, month: 12, year: 1985 },
    address: { country: 'US', line1: '1 Main St', city: 'Springfield', postal_code: '12345', state: 'IL' },
    nationalities: ['GB'],
    relationship: { representative: true, owner: true, percent_ownership: Stripe.Decimal.from('51.25'), title: 'CEO' },
    metadata: { run },
  });
  assertPerson(person, acct.id);
  assertResponse(person, { idempotent: true });
  assert.equal(person.given_name, 'Ada');
  assert.deepEqual(person.date_of_birth, { day: 10, month: 12, year: 1985 });
  assert.equal(person.address.city, 'Springfield');
  assert.deepEqual(person.nationalities, ['GB']);
  assert.equal(person.relationship.representative, true);
  assertDecimal(person.relationship.percent_ownership, '51.25', 'percent_ownership');
  assert.deepEqual(person.metadata, { run });

  // The person signs the account's proof of registration.
  const signed = await stripe.v2.core.accounts.update(acct.id, {
    identity: { business_details: { documents: { proof_of_registration: { files: ['file_node'], type: 'files', signer: { person: person.id } } } } },
    include: ['identity'],
  });
  assert.deepEqual(signed.identity.business_details.documents.proof_of_registration, { files: ['file_node'], type: 'files', signer: { person: person.id } });

  const got = await stripe.v2.core.accounts.persons.retrieve(acct.id, person.id, {});
  assertPerson(got, acct.id);
  assert.equal(got.email, `ada-${run}@example.com`);
  assertDecimal(got.relationship.percent_ownership, '51.25', 'percent_ownership');

  const updated = await stripe.v2.core.accounts.persons.update(acct.id, person.id, {
    surname: 'King', relationship: { percent_ownership: Stripe.Decimal.from('60') }, metadata: { run: null, stage: 'updated' },
  });
  assertPerson(updated, acct.id);
  assert.equal(updated.given_name, 'Ada');
  assert.equal(updated.surname, 'King');
  assert.equal(updated.relationship.representative, true);
  assertDecimal(updated.relationship.percent_ownership, '60', 'percent_ownership');
  assert.deepEqual(updated.metadata, { stage: 'updated' });

  const more = [person.id];
  for (let i = 0; i < 3; i++) {
    const p = await stripe.v2.core.accounts.persons.create(acct.id, { given_name: `Director ${i}`, surname: run, relationship: { director: true } });
    more.push(p.id);
  }
  const requests = recordRequests(stripe);
  const listed = await stripe.v2.core.accounts.persons.list(acct.id, { limit: 2 }).autoPagingToArray({ limit: 100 });
  listed.forEach((p) => assertPerson(p, acct.id));
  assert.deepEqual(listed.map((p) => p.id), [...more].reverse());
  assertDecimal(listed.at(-1).relationship.percent_ownership, '60', 'percent_ownership in a list');
  assert.equal(requests.filter((r) => r.path.startsWith(`/v2/core/accounts/${acct.id}/persons`)).length, 2);

  const deleted = await stripe.v2.core.accounts.persons.del(acct.id, person.id, {});
  assertResponse(deleted, { idempotent: true });
  assert.deepEqual({ ...deleted }, { id: person.id, object: 'v2.core.account_person' });
  // The delete retried with the key the SDK made for it answers as the delete did.
  const redeleted = await stripe.v2.core.accounts.persons.del(acct.id, person.id, {}, { idempotencyKey: deleted.lastResponse.idempotencyKey });
  assert.deepEqual({ ...redeleted }, { ...deleted });
  await assertRejects(stripe.v2.core.accounts.persons.retrieve(acct.id, person.id, {}), StripeInvalidRequestError, {
    statusCode: 404, code: 'not_found',
  });

  // A person is found on its own account only.
  const other = await stripe.v2.core.accounts.create({ display_name: `Persons ${run} other` });
  await assertRejects(stripe.v2.core.accounts.persons.retrieve(other.id, more[1], {}), StripeInvalidRequestError, {
    statusCode: 404, code: 'not_found',
  });
});

test('Stripe v2 tokens: account and person tokens, made and used once', async () => {
  const stripe = stripeClient(baseURL);
  const publishable = stripeClient(baseURL, 'pk_test_123');

  // Test mode takes a secret or a publishable key for tokens.
  const token = await publishable.v2.core.accountTokens.create({
    display_name: `Token ${run}`,
    contact_email: `token-${run}@example.com`,
    identity: { entity_type: 'individual', individual: { given_name: 'Tok', surname: 'En', relationship: { percent_ownership: Stripe.Decimal.from('12.5') } } },
  });
  assertToken(token, 'accttok_', 'v2.core.account_token');
  assertResponse(token, { idempotent: true });
  assert.equal(token.used, false);
  const read = await stripe.v2.core.accountTokens.retrieve(token.id, {});
  assertToken(read, 'accttok_', 'v2.core.account_token');
  assert.equal(read.expires_at, token.expires_at);
  // The publishable key makes tokens only.
  await assertRejects(publishable.v2.core.accounts.list({}), StripeAuthenticationError, { statusCode: 401, message: /publishable/ });

  // The token's members first, the request's own over them.
  const acct = await stripe.v2.core.accounts.create({ account_token: token.id, display_name: `Token ${run} (own)`, include: ['identity'] });
  assert.equal(acct.display_name, `Token ${run} (own)`);
  assert.equal(acct.contact_email, `token-${run}@example.com`);
  assert.equal(acct.identity.individual.given_name, 'Tok');
  assertDecimal(acct.identity.individual.relationship.percent_ownership, '12.5', 'percent_ownership');
  assert.equal((await stripe.v2.core.accountTokens.retrieve(token.id, {})).used, true);
  await assertRejects(stripe.v2.core.accounts.create({ account_token: token.id }), StripeInvalidRequestError, {
    statusCode: 400, code: 'parameter_invalid', message: /account_token/,
  });

  // An update applies a token too.
  const token2 = await stripe.v2.core.accountTokens.create({ contact_phone: '+15555550123' });
  const viaUpdate = await stripe.v2.core.accounts.update(acct.id, { account_token: token2.id });
  assert.equal(viaUpdate.contact_phone, '+15555550123');

  const ptoken = await stripe.v2.core.accounts.personTokens.create(acct.id, {
    given_name: 'Per', surname: 'Son', relationship: { owner: true, percent_ownership: Stripe.Decimal.from('40') },
  });
  assertToken(ptoken, 'perstok_', 'v2.core.account_person_token');
  assertResponse(ptoken, { idempotent: true });
  const pread = await stripe.v2.core.accounts.personTokens.retrieve(acct.id, ptoken.id, {});
  assertToken(pread, 'perstok_', 'v2.core.account_person_token');
  assert.equal(pread.used, false);
  const person = await stripe.v2.core.accounts.persons.create(acct.id, { person_token: ptoken.id, surname: 'Own' });
  assertPerson(person, acct.id);
  assert.equal(person.given_name, 'Per');
  assert.equal(person.surname, 'Own');
  assertDecimal(person.relationship.percent_ownership, '40', 'percent_ownership');
  assert.equal((await stripe.v2.core.accounts.personTokens.retrieve(acct.id, ptoken.id, {})).used, true);

  const ptoken2 = await stripe.v2.core.accounts.personTokens.create(acct.id, { email: `per-${run}@example.com` });
  const personUpdated = await stripe.v2.core.accounts.persons.update(acct.id, person.id, { person_token: ptoken2.id });
  assert.equal(personUpdated.email, `per-${run}@example.com`);
  assert.equal(personUpdated.given_name, 'Per');

  await assertRejects(stripe.v2.core.accountTokens.retrieve('accttok_doesnotexist', {}), StripeInvalidRequestError, {
    statusCode: 404, code: 'not_found',
  });
  await assertRejects(stripe.v2.core.accounts.personTokens.retrieve(acct.id, token.id, {}), StripeInvalidRequestError, {
    statusCode: 404, code: 'not_found',
  });
});

test('Stripe v2 event destinations: create, read, update, disable, enable, ping, list and delete', async () => {
  const stripe = stripeClient(baseURL);
  const created = await stripe.v2.core.eventDestinations.create({
    name: `node-${run}`,
    description: 'Node SDK test',
    type: 'webhook_endpoint',
    event_payload: 'thin',
    enabled_events: ['v2.core.account.created', 'v2.core.account[requirements].updated'],
    webhook_endpoint: { url: 'https://platform.example/webhooks' },
    metadata: { run },
    include: ['webhook_endpoint.signing_secret', 'webhook_endpoint.url'],
  });
  assertDestination(created);
  assertResponse(created, { idempotent: true });
  assert.equal(created.name, `node-${run}`);
  assert.equal(created.description, 'Node SDK test');
  assert.equal(created.type, 'webhook_endpoint');
  assert.equal(created.event_payload, 'thin');
  assert.deepEqual(created.enabled_events, ['v2.core.account.created', 'v2.core.account[requirements].updated']);
  assert.equal(created.status, 'enabled');
  assert.deepEqual(created.metadata, { run });
  assert.match(created.webhook_endpoint.signing_secret, /^whsec_/);
  assert.equal(created.webhook_endpoint.url, 'https://platform.example/webhooks');

  // The secret is shown on creation alone; the url when asked for.
  const read = await stripe.v2.core.eventDestinations.retrieve(created.id, {});
  assertDestination(read);
  assert.equal(read.webhook_endpoint.signing_secret ?? null, null);
  assert.equal(read.webhook_endpoint.url ?? null, null);
  const withURL = await stripe.v2.core.eventDestinations.retrieve(created.id, { include: ['webhook_endpoint.url'] });
  assert.equal(withURL.webhook_endpoint.url, 'https://platform.example/webhooks');
  await assertRejects(stripe.v2.core.eventDestinations.retrieve(created.id, { include: ['webhook_endpoint.signing_secret'] }),
    StripeInvalidRequestError, { statusCode: 400, code: 'parameter_invalid' });

  const updated = await stripe.v2.core.eventDestinations.update(created.id, {
    name: `node-${run}-renamed`,
    enabled_events: ['v2.core.account.created'],
    webhook_endpoint: { url: 'https://platform.example/hooks2' },
    metadata: { run: null, stage: 'updated' },
    include: ['webhook_endpoint.url'],
  });
  assertDestination(updated);
  assert.equal(updated.name, `node-${run}-renamed`);
  assert.equal(updated.description, 'Node SDK test');
  assert.deepEqual(updated.enabled_events, ['v2.core.account.created']);
  assert.equal(updated.webhook_endpoint.url, 'https://platform.example/hooks2');
  assert.deepEqual(updated.metadata, { stage: 'updated' });

  const disabled = await stripe.v2.core.eventDestinations.disable(created.id, {});
  assertDestination(disabled);
  assertResponse(disabled, { idempotent: true });
  assert.equal(disabled.status, 'disabled');
  assert.equal(disabled.status_details.disabled.reason, 'user');
  const enabled = await stripe.v2.core.eventDestinations.enable(created.id, {});
  assert.equal(enabled.status, 'enabled');
  assert.equal(enabled.status_details ?? null, null);

  const ping = await stripe.v2.core.eventDestinations.ping(created.id, {});
  assertEvent(ping);
  assertResponse(ping, { idempotent: true });
  assert.equal(ping.type, 'v2.core.event_destination.ping');
  assert.equal(ping.related_object.id, created.id);
  assert.equal(ping.related_object.type, 'v2.core.event_destination');
  assert.equal(ping.related_object.url, `/v2/core/event_destinations/${created.id}`);

  // An Amazon EventBridge destination: kept, never delivered to (disabled).
  const bridge = await stripe.v2.core.eventDestinations.create({
    name: `node-${run}-bridge`, type: 'amazon_eventbridge', event_payload: 'thin', enabled_events: ['v2.core.account.closed'],
    amazon_eventbridge: { aws_account_id: '123456789012', aws_region: 'us-east-1' },
  });
  assertDestination(bridge);
  assert.equal(bridge.type, 'amazon_eventbridge');
  assert.equal(bridge.amazon_eventbridge.aws_account_id, '123456789012');
  assert.equal(typeof bridge.amazon_eventbridge.aws_event_source_arn, 'string');
  assert.ok(['active', 'deleted', 'pending', 'unknown'].includes(bridge.amazon_eventbridge.aws_event_source_status));
  assert.equal(bridge.status_details.disabled.reason, 'no_aws_event_source_exists');

  // An Azure Event Grid destination: likewise.
  const grid = await stripe.v2.core.eventDestinations.create({
    name: `node-${run}-grid`, type: 'azure_event_grid', event_payload: 'thin', enabled_events: ['v2.core.account.closed'],
    azure_event_grid: { azure_region: 'eastus', azure_resource_group_name: 'payments', azure_subscription_id: 'a925f2f7-5c63-4b7b-8799-25a5f97bc3b2' },
  });
  assertDestination(grid);
  assert.equal(grid.type, 'azure_event_grid');
  assert.equal(grid.azure_event_grid.azure_region, 'eastus');
  assert.equal(grid.azure_event_grid.azure_resource_group_name, 'payments');
  assert.equal(grid.azure_event_grid.azure_subscription_id, 'a925f2f7-5c63-4b7b-8799-25a5f97bc3b2');
  assert.equal(typeof grid.azure_event_grid.azure_partner_topic_name, 'string');
  assert.ok(['activated', 'deleted', 'never_activated', 'unknown'].includes(grid.azure_event_grid.azure_partner_topic_status));
  assert.equal(grid.status_details.disabled.reason, 'no_azure_partner_topic_exists');
  assert.equal(grid.amazon_eventbridge ?? null, null);
  assert.equal(bridge.azure_event_grid ?? null, null);

  // A list, two a page, with include repeated on every page.
  const third = await stripe.v2.core.eventDestinations.create({
    name: `node-${run}-third`, type: 'webhook_endpoint', event_payload: 'thin', enabled_events: ['v2.core.account.closed'],
    webhook_endpoint: { url: 'https://platform.example/third' },
  });
  const mine = [third.id, grid.id, bridge.id, created.id];
  const requests = recordRequests(stripe);
  const seen = [];
  for await (const d of stripe.v2.core.eventDestinations.list({ limit: 2, include: ['webhook_endpoint.url'] })) {
    assertDestination(d);
    if (d.type === 'webhook_endpoint') assert.equal(typeof d.webhook_endpoint.url, 'string', `${d.id} has no url`);
    if (mine.includes(d.id)) seen.push(d.id);
    if (seen.length === mine.length) break;
  }
  assert.deepEqual(seen, mine);
  assert.ok(requests.filter((r) => r.path.startsWith('/v2/core/event_destinations')).length >= 2);

  for (const id of mine) {
    const deleted = await stripe.v2.core.eventDestinations.del(id, {});
    assertResponse(deleted, { idempotent: true });
    assert.deepEqual({ ...deleted }, { id, object: 'v2.core.event_destination' });
    const again = await stripe.v2.core.eventDestinations.del(id, {}, { idempotencyKey: deleted.lastResponse.idempotencyKey });
    assert.deepEqual({ ...again }, { ...deleted });
  }
  await assertRejects(stripe.v2.core.eventDestinations.retrieve(created.id, {}), StripeInvalidRequestError, {
    statusCode: 404, code: 'not_found',
  });
  await assertRejects(stripe.v2.core.eventDestinations.create({
    name: 'bad', type: 'webhook_endpoint', event_payload: 'thin', enabled_events: ['v2.core.nothing.happened'],
    webhook_endpoint: { url: 'https://platform.example/bad' },
  }), StripeInvalidRequestError, { statusCode: 400, code: 'parameter_invalid' });
});

// A local webhook endpoint: every notification it receives, with its signature header.
async function webhookEndpoint() {
  const received = [];
  const waiters = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: req.headers['stripe-signature'] });
      res.writeHead(200).end();
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/webhooks`,
    received,
    // until resolves once match(a received notification) holds, within 15 seconds.
    async until(match) {
      const deadline = Date.now() + 15000;
      for (;;) {
        const hit = received.find(match);
        if (hit) return hit;
        assert.ok(Date.now() < deadline, `no matching notification among ${received.length}`);
        await new Promise((resolve) => { waiters.push(resolve); setTimeout(resolve, 250); });
      }
    },
    close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }),
  };
}

test('Stripe v2 events: thin notifications parsed with the signing secret, then events read and listed', async () => {
  const stripe = stripeClient(baseURL);
  const endpoint = await webhookEndpoint();
  try {
    const dest = await stripe.v2.core.eventDestinations.create({
      name: `node-${run}-events`, type: 'webhook_endpoint', event_payload: 'thin',
      enabled_events: ['v2.core.account.created', 'v2.core.account.updated', 'v2.core.account_person.created'],
      webhook_endpoint: { url: endpoint.url }, include: ['webhook_endpoint.signing_secret'],
    });
    const secret = dest.webhook_endpoint.signing_secret;
    const since = Math.floor(Date.now() / 1000) - 1; // created filters are Unix seconds in the SDK's types

    const acct = await stripe.v2.core.accounts.create({ display_name: `Events ${run}` });
    await stripe.v2.core.accounts.update(acct.id, { display_name: `Events ${run} renamed` });
    const person = await stripe.v2.core.accounts.persons.create(acct.id, { given_name: 'Eve', surname: run });

    const parsed = [];
    for (const type of ['v2.core.account.created', 'v2.core.account.updated', 'v2.core.account_person.created']) {
      const n = await endpoint.until((r) => r.body.includes(`"type":"${type}"`) && r.body.includes(type.includes('person') ? person.id : acct.id));
      const notification = stripe.parseEventNotification(n.body, n.signature, secret);
      assertEvent(notification);
      assert.equal(notification.type, type);
      assert.equal(typeof notification.fetchEvent, 'function');
      assert.equal(typeof notification.fetchRelatedObject, 'function');
      assert.equal(notification.reason.type, 'request');
      assert.match(notification.reason.request.id, /^req_/);
      assert.match(notification.reason.request.idempotency_key, /^stripe-node-retry-/);
      parsed.push(notification);
      // Another secret does not verify it.
      assert.throws(() => stripe.parseEventNotification(n.body, n.signature, 'whsec_not_the_secret'), StripeSignatureVerificationError);
    }
    const [created, updated, personCreated] = parsed;

    // The SDK's notification handler verifies and dispatches by type.
    const handled = [];
    const handler = stripe.notificationHandler(secret, async (n, _client, details) => { handled.push(['fallback', n.type, details.isKnownEventType]); });
    handler.on('v2.core.account.created', async (n, client) => { handled.push(['created', (await n.fetchRelatedObject()).id, (await client.v2.core.accounts.retrieve(n.related_object.id)).id]); });
    for (const type of ['v2.core.account.created', 'v2.core.account_person.created']) {
      const n = endpoint.received.find((r) => r.body.includes(`"id":"${type === 'v2.core.account.created' ? created.id : personCreated.id}"`));
      await handler.handle(n.body, n.signature);
    }
    assert.deepEqual(handled, [['created', acct.id, acct.id], ['fallback', 'v2.core.account_person.created', true]]);
    assert.deepEqual(created.related_object, { id: acct.id, type: 'v2.core.account', url: `/v2/core/accounts/${acct.id}` });
    assert.deepEqual(personCreated.related_object, { id: person.id, type: 'v2.core.account_person', url: `/v2/core/accounts/${acct.id}/persons/${person.id}` });

    // The event behind a notification, read through the API.
    // (events.retrieve and events.list hand back a copy of the response, without lastResponse.)
    const ev = await stripe.v2.core.events.retrieve(updated.id, {});
    assertEvent(ev);
    assert.equal(ev.type, 'v2.core.account.updated');
    assert.deepEqual(ev.related_object, updated.related_object);
    assert.deepEqual(ev.reason, updated.reason);
    assert.equal(typeof ev.fetchRelatedObject, 'function');
    // The notification's own fetches take no request options: the recipe's HTTP client gives
    // them the Service-Version header.
    const fetched = await updated.fetchEvent();
    assertEvent(fetched);
    assert.equal(fetched.id, updated.id);
    assert.deepEqual(fetched.related_object, updated.related_object);
    const related = await created.fetchRelatedObject();
    assert.equal(related.id, acct.id);
    assert.equal(related.object, 'v2.core.account');
    assert.equal((await personCreated.fetchRelatedObject()).id, person.id);
    const pev = await stripe.v2.core.events.retrieve(personCreated.id, {});
    assert.equal(pev.data.account_id, acct.id);
    await assertRejects(stripe.v2.core.events.retrieve('evt_doesnotexist', {}), StripeInvalidRequestError, { statusCode: 404, code: 'not_found' });

    // The account's events, one a page, newest first; then filtered by type and time.
    const requests = recordRequests(stripe);
    const events = await stripe.v2.core.events.list({ object_id: acct.id, limit: 1 }).autoPagingToArray({ limit: 100 });
    events.forEach(assertEvent);
    assert.ok(events.length >= 2, `${events.length} events`);
    assert.ok(events.every((e) => e.related_object.id === acct.id));
    assert.deepEqual(events.map((e) => e.type).slice(-1), ['v2.core.account.created']);
    assert.ok(events.some((e) => e.id === updated.id));
    assert.equal(requests.filter((r) => r.path.startsWith('/v2/core/events')).length, events.length);
    const typed = await stripe.v2.core.events.list({ object_id: acct.id, types: ['v2.core.account.created'], created: { gte: since } })
      .autoPagingToArray({ limit: 100 });
    assert.deepEqual(typed.map((e) => e.id), [created.id]);
    const later = await stripe.v2.core.events.list({ object_id: acct.id, created: { gt: since + 3600 } });
    assert.deepEqual(later.data, []);

    await stripe.v2.core.eventDestinations.del(dest.id, {});
  } finally {
    await endpoint.close();
  }
});
