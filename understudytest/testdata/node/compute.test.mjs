// Every method of Google's Node compute client (@google-cloud/compute, its REST transport)
// that maps to an operation of specs/compute.yaml, run against the server at UNDERSTUDY_URL
// as TestNodeRecipes starts it (compute operations finish at once). Everything lives in a
// project of its own, so that the other files against the same server see none of it.
//
// What the transport sends (a RecordingAuth sees every request): the path and query the
// request message transcodes to (int64s and uint64s as decimal strings, booleans as
// true/false), the resource as the JSON body, every map of it written even when empty (a
// patch always carries "labels": {}), and no system parameter unless the client is built
// with numericEnums ($alt=json;enum-encoding=int) or minifyJson ($prettyPrint=0). Lists
// come as list (a page, or every page with autoPaginate), listAsync and listStream; an
// aggregated list only as aggregatedListAsync, yielding [scope, scoped list] a page at a
// time.
// What comes back is decoded into the SDK's proto types: uint64 ids and int64s as strings,
// maps as objects, the one proto enum (Operation.status) by name. A mutation answers an
// object holding the Operation as latestResponse (the SDK documents that `.promise()` is
// not supported yet for compute), which the operations clients then wait on. An HTTP error
// surfaces as the GaxiosError of google-auth-library's fetch, its message the response
// body, which google-gax's GoogleError.parseHttpError reads into a GoogleError.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import compute from '@google-cloud/compute';
import { OAuth2Client } from 'google-auth-library';

// google-gax as the SDK itself loads it.
const { GoogleError, Status } = createRequire(import.meta.resolve('@google-cloud/compute'))('google-gax');

const baseURL = process.env.UNDERSTUDY_URL;
assert.ok(baseURL, 'UNDERSTUDY_URL is not set');

const project = 'node-gce-project';
const region = 'us-east4';
const googleapis = `https://www.googleapis.com/compute/v1/projects/${project}`;

// RecordingAuth is an OAuth2Client with any access token that keeps every request the
// transport sends through it.
class RecordingAuth extends OAuth2Client {
  constructor() {
    super();
    this.setCredentials({ access_token: 'any-token' });
    this.requests = [];
  }

  fetch(url, init) {
    this.requests.push({ url: new URL(url), method: init?.method, body: init?.body });
    return super.fetch(url, init);
  }

  // last is the last request sent.
  get last() {
    return this.requests.at(-1);
  }
}

// The REST transport's options, as clients.test.mjs builds them, with a RecordingAuth.
function restOptions(extra = {}) {
  const url = new URL(baseURL);
  const authClient = new RecordingAuth();
  return { fallback: true, apiEndpoint: url.hostname, port: Number(url.port), protocol: url.protocol.slice(0, -1), authClient, ...extra };
}

// The client of each resource of specs/compute.yaml (its operationIds' first part), by the
// name this file gives it.
const resources = {
  rules: ['globalForwardingRules', compute.GlobalForwardingRulesClient],
  regionalRules: ['forwardingRules', compute.ForwardingRulesClient],
  globalOps: ['globalOperations', compute.GlobalOperationsClient],
  regionOps: ['regionOperations', compute.RegionOperationsClient],
  interconnects: ['interconnects', compute.InterconnectsClient],
  attachments: ['interconnectAttachments', compute.InterconnectAttachmentsClient],
  attachmentGroups: ['interconnectAttachmentGroups', compute.InterconnectAttachmentGroupsClient],
  groups: ['interconnectGroups', compute.InterconnectGroupsClient],
  locations: ['interconnectLocations', compute.InterconnectLocationsClient],
  remoteLocations: ['interconnectRemoteLocations', compute.InterconnectRemoteLocationsClient],
};

// called holds every method this file called, as <resource>.<method>.
const called = new Set();

// clients builds a client of every resource over one RecordingAuth (auth), each noting in
// called the methods called on it.
function clients(extra) {
  const opts = restOptions(extra);
  const out = { auth: opts.authClient };
  for (const [key, [resource, Client]] of Object.entries(resources)) {
    out[key] = new Proxy(new Client(opts), {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (typeof v !== 'function' || typeof prop !== 'string') return v;
        return (...args) => {
          called.add(`${resource}.${prop}`);
          return v.apply(target, args);
        };
      },
    });
  }
  return out;
}

// googleError awaits a call that must fail and returns what the SDK's parser makes of the
// error body, checking the HTTP status first.
async function googleError(call, httpStatus) {
  let err;
  try {
    await call;
  } catch (e) {
    err = e;
  }
  assert.ok(err, 'the call succeeded');
  assert.equal(err.status, httpStatus, err.message);
  const parsed = GoogleError.parseHttpError(JSON.parse(err.message));
  assert.ok(parsed instanceof GoogleError);
  return parsed;
}

// done checks what a mutation answered: the SDK's LRO object around a DONE Operation of
// the given type, without error, and returns that Operation.
function done([lro], operationType) {
  const op = lro.latestResponse;
  assert.equal(lro.done, false, 'the SDK always says false: it does not poll compute operations');
  assert.equal(typeof lro.promise, 'undefined', 'the SDK has no promise() for compute operations');
  assert.equal(lro.name, op.id);
  assert.equal(op.kind, 'compute#operation');
  assert.match(op.name, /^operation-/);
  assert.match(op.id, /^\d+$/);
  assert.match(op.targetId, /^\d+$/);
  assert.equal(op.operationType, operationType);
  assert.equal(op.status, 'DONE');
  assert.equal(op.progress, 100);
  assert.equal(op.error, undefined, JSON.stringify(op.error));
  return op;
}

// plain is a decoded message without the virtual members protobufjs adds for each proto3
// optional field (_name: 'name', the synthetic oneof saying which is set).
function plain(v) {
  if (Array.isArray(v)) return v.map(plain);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([k, x]) => !(k.startsWith('_') && x === k.slice(1))).map(([k, x]) => [k, plain(x)]));
}

// names collects the names of items.
const names = (items) => items.map((i) => i.name);

// collect gathers an async iterator.
async function collect(iterable) {
  const out = [];
  for await (const x of iterable) out.push(x);
  return out;
}

// drain gathers what a stream emits until it ends (a list method's stream does not end
// under for await).
function drain(stream) {
  const out = [];
  return new Promise((resolve, reject) => stream.on('data', (x) => out.push(x)).on('end', () => resolve(out)).on('error', reject));
}

// pages walks a non-async list one page at a time (autoPaginate: false), following the
// next request the SDK builds from nextPageToken, and returns the names of each page.
async function pages(list, request) {
  const out = [];
  let req = { ...request };
  for (;;) {
    const [items, next, raw] = await list(req, { autoPaginate: false });
    out.push(names(items));
    if (!next) {
      assert.ok(!raw.nextPageToken, 'no next request but a nextPageToken');
      return out;
    }
    assert.equal(next.pageToken, raw.nextPageToken);
    req = next;
  }
}

test('Google compute (Node SDK): global forwarding rules', async () => {
  const c = clients();
  const { rules, globalOps, auth } = c;

  const ins = done(await rules.insert({
    project,
    forwardingRuleResource: {
      name: 'ngce-fr-a', description: 'web', IPProtocol: 'TCP', portRange: '80', loadBalancingScheme: 'EXTERNAL_MANAGED',
      target: `${googleapis}/global/targetHttpProxies/proxy-a`, labels: { env: 'prod', team: 'net' },
    },
  }), 'insert');
  let sent = auth.last;
  assert.equal(sent.method, 'POST');
  assert.equal(sent.url.pathname, `/compute/v1/projects/${project}/global/forwardingRules`);
  assert.equal(sent.url.search, '', 'the transport sends no system parameter by default');
  assert.deepEqual(JSON.parse(sent.body).labels, { env: 'prod', team: 'net' });
  assert.match(ins.targetLink, /\/global\/forwardingRules\/ngce-fr-a$/);

  for (const n of ['ngce-fr-b', 'ngce-fr-c', 'ngce-fr-d']) {
    done(await rules.insert({ project, forwardingRuleResource: { name: n, portRange: '443-443', labels: { env: n === 'ngce-fr-b' ? 'prod' : 'dev' } } }), 'insert');
  }

  const [rule] = await rules.get({ project, forwardingRule: 'ngce-fr-a' });
  assert.equal(rule.kind, 'compute#forwardingRule');
  assert.match(rule.id, /^\d+$/, 'a uint64 id is a string');
  assert.equal(rule.id, ins.targetId);
  assert.equal(rule.networkTier, 'PREMIUM');
  assert.equal(rule.portRange, '80-80');
  assert.equal(rule.IPProtocol, 'TCP');
  assert.match(rule.IPAddress, /^34\./);
  assert.deepEqual(rule.labels, { env: 'prod', team: 'net' });
  assert.ok(rule.labelFingerprint);
  assert.ok(rule.fingerprint);
  assert.match(rule.selfLink, /\/global\/forwardingRules\/ngce-fr-a$/);
  assert.match(rule.selfLinkWithId, new RegExp(`/global/forwardingRules/${rule.id}$`));
  assert.equal(rule.region, undefined);
  const [byId] = await rules.get({ project, forwardingRule: rule.id, view: 'FULL' });
  assert.equal(byId.name, 'ngce-fr-a');
  assert.equal(auth.last.url.searchParams.get('view'), 'FULL');

  // setLabels: the fingerprint read is written back; a stale one is 412.
  const setOp = done(await rules.setLabels({
    project, resource: 'ngce-fr-a',
    globalSetLabelsRequestResource: { labels: { env: 'staging' }, labelFingerprint: rule.labelFingerprint },
  }), 'setLabels');
  sent = auth.last;
  assert.equal(sent.url.pathname, `/compute/v1/projects/${project}/global/forwardingRules/ngce-fr-a/setLabels`);
  assert.deepEqual(JSON.parse(sent.body), { labels: { env: 'staging' }, labelFingerprint: rule.labelFingerprint });
  assert.equal(setOp.targetId, rule.id);
  const [relabelled] = await rules.get({ project, forwardingRule: 'ngce-fr-a' });
  assert.deepEqual(relabelled.labels, { env: 'staging' });
  assert.notEqual(relabelled.labelFingerprint, rule.labelFingerprint);
  assert.notEqual(relabelled.fingerprint, rule.fingerprint);
  const stale = await googleError(rules.setLabels({
    project, resource: 'ngce-fr-a', globalSetLabelsRequestResource: { labels: {}, labelFingerprint: rule.labelFingerprint },
  }), 412);
  assert.equal(stale.code, Status.FAILED_PRECONDITION);

  // setTarget: a target of the same kind; the fingerprint moves.
  done(await rules.setTarget({
    project, forwardingRule: 'ngce-fr-a', requestId: '0d3a2e9c-6b1f-4c47-9a51-7f2b8e4d6c10',
    targetReferenceResource: { target: `${googleapis}/global/targetHttpProxies/proxy-b` },
  }), 'setTarget');
  assert.equal(auth.last.url.searchParams.get('requestId'), '0d3a2e9c-6b1f-4c47-9a51-7f2b8e4d6c10');
  const [retargeted] = await rules.get({ project, forwardingRule: 'ngce-fr-a' });
  assert.match(retargeted.target, /\/global\/targetHttpProxies\/proxy-b$/);
  assert.notEqual(retargeted.fingerprint, relabelled.fingerprint);
  const wrongKind = await googleError(rules.setTarget({
    project, forwardingRule: 'ngce-fr-a', targetReferenceResource: { target: `${googleapis}/global/targetTcpProxies/tcp` },
  }), 400);
  assert.equal(wrongKind.code, Status.INVALID_ARGUMENT);

  // patch: the backend bucket migration, with the current fingerprint; a float member.
  done(await rules.patch({
    project, forwardingRule: 'ngce-fr-a',
    forwardingRuleResource: {
      fingerprint: retargeted.fingerprint, externalManagedBackendBucketMigrationState: 'TEST_BY_PERCENTAGE',
      externalManagedBackendBucketMigrationTestingPercentage: 12.5,
    },
  }), 'patch');
  assert.deepEqual(JSON.parse(auth.last.body).labels, {}, 'the transport writes the empty map');
  const [patched] = await rules.get({ project, forwardingRule: 'ngce-fr-a' });
  assert.equal(patched.externalManagedBackendBucketMigrationState, 'TEST_BY_PERCENTAGE');
  assert.equal(patched.externalManagedBackendBucketMigrationTestingPercentage, 12.5);
  assert.deepEqual(patched.labels, { env: 'staging' });
  // What get returned, sent back whole, changes nothing (the fingerprint stays).
  done(await rules.patch({ project, forwardingRule: 'ngce-fr-a', forwardingRuleResource: patched }), 'patch');
  assert.equal((await rules.get({ project, forwardingRule: 'ngce-fr-a' }))[0].fingerprint, patched.fingerprint);
  const stalePatch = await googleError(rules.patch({
    project, forwardingRule: 'ngce-fr-a', forwardingRuleResource: { fingerprint: retargeted.fingerprint, networkTier: 'PREMIUM' },
  }), 412);
  assert.equal(stalePatch.code, Status.FAILED_PRECONDITION);
  // The empty labels the transport writes are no change; labels that change are refused.
  const labelPatch = await googleError(rules.patch({ project, forwardingRule: 'ngce-fr-a', forwardingRuleResource: { labels: { env: 'prod' } } }), 400);
  assert.match(labelPatch.message, /change only through setLabels/);

  // list: every page with maxResults, the async iterator, the stream, filter, orderBy.
  assert.deepEqual(await pages(rules.list.bind(rules), { project, maxResults: 3, returnPartialSuccess: true }),
    [['ngce-fr-a', 'ngce-fr-b', 'ngce-fr-c'], ['ngce-fr-d']]);
  sent = auth.requests.at(-1);
  assert.equal(sent.url.searchParams.get('maxResults'), '3');
  assert.equal(sent.url.searchParams.get('returnPartialSuccess'), 'true');
  assert.ok(sent.url.searchParams.get('pageToken'));
  const before = auth.requests.length;
  const [all] = await rules.list({ project, maxResults: 2 });
  assert.deepEqual(names(all), ['ngce-fr-a', 'ngce-fr-b', 'ngce-fr-c', 'ngce-fr-d']);
  assert.equal(auth.requests.length - before, 2, 'list() with autoPaginate fetched two pages');
  assert.deepEqual(names(await collect(rules.listAsync({ project, maxResults: 1 }))), ['ngce-fr-a', 'ngce-fr-b', 'ngce-fr-c', 'ngce-fr-d']);
  const streamed = await drain(rules.listStream({ project, maxResults: 3 }));
  assert.deepEqual(names(streamed), ['ngce-fr-a', 'ngce-fr-b', 'ngce-fr-c', 'ngce-fr-d']);
  assert.deepEqual(names(await collect(rules.listAsync({ project, filter: 'labels.env = prod' }))), ['ngce-fr-b']);
  assert.deepEqual(names(await collect(rules.listAsync({ project, filter: 'name eq "ngce-fr-[cd]"' }))), ['ngce-fr-c', 'ngce-fr-d']);
  assert.deepEqual(names(await collect(rules.listAsync({ project, orderBy: 'creationTimestamp desc', maxResults: 3 }))),
    ['ngce-fr-d', 'ngce-fr-c', 'ngce-fr-b', 'ngce-fr-a']);
  const badFilter = await googleError(rules.list({ project, filter: 'colour = red' }), 400);
  assert.equal(badFilter.code, Status.INVALID_ARGUMENT);
  assert.match(badFilter.message, /Invalid value for field 'filter'/);

  // delete, then the rule is gone: 404, NOT_FOUND.
  const del = done(await rules.delete({ project, forwardingRule: 'ngce-fr-d' }), 'delete');
  assert.equal(auth.last.method, 'DELETE');
  const gone = await googleError(rules.get({ project, forwardingRule: 'ngce-fr-d' }), 404);
  assert.equal(gone.code, Status.NOT_FOUND);
  assert.equal(gone.message, `The resource 'projects/${project}/global/forwardingRules/ngce-fr-d' was not found`);
  const [waited] = await globalOps.wait({ project, operation: del.name });
  assert.equal(waited.status, 'DONE');

  // A bad name is 400, INVALID_ARGUMENT.
  const badName = await googleError(rules.insert({ project, forwardingRuleResource: { name: 'Not_A_Name' } }), 400);
  assert.equal(badName.code, Status.INVALID_ARGUMENT);
  assert.match(badName.message, /Not_A_Name/);
});

test('Google compute (Node SDK): regional forwarding rules and the aggregated list', async () => {
  const { rules, regionalRules, auth } = clients();
  done(await rules.insert({ project, forwardingRuleResource: { name: 'ngce-agg-a', portRange: '8080' } }), 'insert');
  done(await rules.insert({ project, forwardingRuleResource: { name: 'ngce-agg-b', portRange: '8081' } }), 'insert');

  const [regional, next] = await regionalRules.list({ project, region, maxResults: 5 }, { autoPaginate: false });
  assert.deepEqual(regional, []);
  assert.equal(next, null);
  assert.deepEqual(await collect(regionalRules.listAsync({ project, region })), []);
  const missing = await googleError(regionalRules.get({ project, region, forwardingRule: 'ngce-agg-a' }), 404);
  assert.equal(missing.code, Status.NOT_FOUND);

  // aggregatedListAsync (the SDK's only aggregated list method) yields [scope,
  // ForwardingRulesScopedList] pairs, a page at a time.
  const mine = { project, filter: 'name eq "ngce-agg-.*"' };
  const scopes = await collect(regionalRules.aggregatedListAsync({ ...mine, returnPartialSuccess: true, serviceProjectNumber: 123456789012 }));
  let sent = auth.last;
  assert.equal(sent.url.pathname, `/compute/v1/projects/${project}/aggregated/forwardingRules`);
  assert.equal(sent.url.searchParams.get('returnPartialSuccess'), 'true');
  assert.equal(sent.url.searchParams.get('serviceProjectNumber'), '123456789012', 'an int64 in the query');
  const byScope = Object.fromEntries(scopes);
  assert.deepEqual(names(byScope.global.forwardingRules), ['ngce-agg-a', 'ngce-agg-b']);
  assert.equal(byScope[`regions/${region}`].warning.code, 'NO_RESULTS_ON_PAGE');
  assert.deepEqual(plain(byScope[`regions/${region}`].warning.data), [{ key: 'scope', value: `regions/${region}` }]);

  // With maxResults 1, a page per rule: every scope comes once per page.
  const before = auth.requests.length;
  const paged = await collect(regionalRules.aggregatedListAsync({ ...mine, maxResults: 1, includeAllScopes: true }));
  assert.equal(auth.requests.length - before, 2);
  sent = auth.last;
  assert.equal(sent.url.searchParams.get('maxResults'), '1');
  assert.equal(sent.url.searchParams.get('includeAllScopes'), 'true');
  assert.ok(sent.url.searchParams.get('pageToken'));
  assert.deepEqual(paged.filter(([scope]) => scope === 'global').map(([, l]) => names(l.forwardingRules)), [['ngce-agg-a'], ['ngce-agg-b']]);
  const newestFirst = await collect(regionalRules.aggregatedListAsync({ project, orderBy: 'creationTimestamp desc' }));
  assert.deepEqual(names(Object.fromEntries(newestFirst).global.forwardingRules).filter((n) => n.startsWith('ngce-agg-')), ['ngce-agg-b', 'ngce-agg-a']);

  // Every regional method: its operations are regional.
  const requestId = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
  const ins = done(await regionalRules.insert({
    project, region, requestId,
    forwardingRuleResource: { name: 'ngce-fr-r', loadBalancingScheme: 'INTERNAL', ports: ['80', '443'], backendService: `regions/${region}/backendServices/be`, labels: { env: 'dev' } },
  }), 'insert');
  assert.equal(auth.last.url.pathname, `/compute/v1/projects/${project}/regions/${region}/forwardingRules`);
  assert.match(ins.region, new RegExp(`/regions/${region}$`));
  const [retried] = await regionalRules.insert({ project, region, requestId, forwardingRuleResource: { name: 'ngce-fr-r' } });
  assert.equal(retried.latestResponse.name, ins.name, 'a retry with the requestId is the first operation');
  const [rule] = await regionalRules.get({ project, region, forwardingRule: 'ngce-fr-r' });
  assert.match(rule.region, new RegExp(`/regions/${region}$`));
  assert.deepEqual(rule.ports, ['80', '443']);
  assert.deepEqual(names(await collect(regionalRules.listAsync({ project, region }))), ['ngce-fr-r']);
  const stale = await googleError(regionalRules.setLabels({ project, region, resource: 'ngce-fr-r', regionSetLabelsRequestResource: { labels: { env: 'prod' }, labelFingerprint: '42WmSpB8rSM=' } }), 412);
  assert.equal(stale.code, Status.FAILED_PRECONDITION);
  done(await regionalRules.setLabels({ project, region, resource: 'ngce-fr-r', regionSetLabelsRequestResource: { labels: { env: 'prod' }, labelFingerprint: rule.labelFingerprint } }), 'setLabels');
  done(await regionalRules.patch({ project, region, forwardingRule: 'ngce-fr-r', forwardingRuleResource: { networkTier: 'STANDARD' } }), 'patch');
  const [patched] = await regionalRules.get({ project, region, forwardingRule: 'ngce-fr-r' });
  assert.equal(patched.networkTier, 'STANDARD');
  assert.deepEqual(plain(patched.labels), { env: 'prod' });
  done(await regionalRules.insert({ project, region, forwardingRuleResource: { name: 'ngce-fr-p', target: `regions/${region}/targetPools/a` } }), 'insert');
  done(await regionalRules.setTarget({ project, region, forwardingRule: 'ngce-fr-p', targetReferenceResource: { target: `regions/${region}/targetPools/b` } }), 'setTarget');
  const elsewhere = await googleError(regionalRules.setTarget({ project, region, forwardingRule: 'ngce-fr-p', targetReferenceResource: { target: 'regions/us-west2/targetPools/c' } }), 400);
  assert.equal(elsewhere.code, Status.INVALID_ARGUMENT);
  for (const forwardingRule of ['ngce-fr-r', 'ngce-fr-p']) {
    done(await regionalRules.delete({ project, region, forwardingRule }), 'delete');
  }
  assert.equal((await googleError(regionalRules.get({ project, region, forwardingRule: 'ngce-fr-r' }), 404)).code, Status.NOT_FOUND);
});

// location is the URL of a catalog location.
const location = (name) => `${googleapis}/global/interconnectLocations/${name}`;

test('Google compute (Node SDK): interconnect locations', async () => {
  const { locations } = clients();
  const [loc] = await locations.get({ project, interconnectLocation: 'iad-zone1-1' });
  assert.equal(loc.kind, 'compute#interconnectLocation');
  assert.match(loc.id, /^\d+$/);
  assert.equal(loc.availabilityZone, 'zone1');
  assert.equal(loc.status, 'AVAILABLE');
  assert.ok(loc.regionInfos.length >= 1);
  assert.match(loc.regionInfos[0].expectedRttMs, /^\d+$/, 'an int64 is a string');
  assert.equal(typeof loc.regionInfos[0].l2ForwardingEnabled, 'boolean');
  assert.ok(loc.availableLinkTypes.includes('LINK_TYPE_ETHERNET_10G_LR'));

  const all = names(await collect(locations.listAsync({ project })));
  assert.ok(all.length > 4);
  assert.deepEqual(all, [...all].sort());
  const paged = await pages(locations.list.bind(locations), { project, maxResults: 4 });
  assert.deepEqual(paged.flat(), all);
  assert.ok(paged.length > 1);
  assert.deepEqual(names(await collect(locations.listAsync({ project, filter: 'name eq "iad-.*"' }))), all.filter((n) => n.startsWith('iad-')));
  const newest = await collect(locations.listAsync({ project, orderBy: 'creationTimestamp desc' }));
  assert.equal(newest.length, all.length);
  const none = await googleError(locations.get({ project, interconnectLocation: 'nowhere-zone1-1' }), 404);
  assert.equal(none.code, Status.NOT_FOUND);
});

test('Google compute (Node SDK): interconnect remote locations', async () => {
  const { remoteLocations } = clients();
  const [r] = await remoteLocations.get({ project, interconnectRemoteLocation: 'aws-lhr-1' });
  assert.equal(r.kind, 'compute#interconnectRemoteLocation');
  assert.match(r.id, /^\d+$/, 'a uint64 is a string');
  assert.equal(r.remoteService, 'Amazon Web Services');
  assert.equal(r.status, 'AVAILABLE');
  assert.equal(r.lacp, 'LACP_SUPPORTED');
  assert.equal(r.maxLagSize400Gbps, 2);
  assert.deepEqual(plain(r.constraints.subnetLengthRange), { min: 29, max: 30 });
  assert.equal(r.attachmentConfigurationConstraints.bgpPeerAsnRanges[1].max, 4294967294);
  assert.deepEqual(r.permittedConnections.map((p) => p.interconnectLocation.replace(/^.*\/global\/interconnectLocations\//, '')), ['lhr-zone1-47', 'lhr-zone2-34']);

  const all = names(await collect(remoteLocations.listAsync({ project })));
  assert.ok(all.length > 4);
  assert.deepEqual(all, [...all].sort());
  const paged = await pages(remoteLocations.list.bind(remoteLocations), { project, maxResults: 2 });
  assert.deepEqual(paged.flat(), all);
  assert.ok(paged.length > 1);
  assert.deepEqual(names(await collect(remoteLocations.listAsync({ project, filter: 'lacp = LACP_UNSUPPORTED' }))), ['azure-iad-1', 'azure-sjc-1']);
  const none = await googleError(remoteLocations.get({ project, interconnectRemoteLocation: 'aws-nowhere-1' }), 404);
  assert.equal(none.code, Status.NOT_FOUND);

  // A Cross-Cloud Interconnect names one (here by a partial URL) and reads back with its
  // selfLink; a bundle above its maxLagSize is refused.
  const { interconnects } = clients();
  const insert = (name, requestedLinkCount) => interconnects.insert({
    project,
    interconnectResource: {
      name, location: location('lhr-zone1-47'), remoteLocation: `projects/${project}/global/interconnectRemoteLocations/aws-lhr-1`,
      linkType: 'LINK_TYPE_ETHERNET_400G_LR4', requestedLinkCount, interconnectType: 'DEDICATED',
    },
  });
  done(await insert('ngce-cci', 2), 'insert');
  const [ic] = await interconnects.get({ project, interconnect: 'ngce-cci' });
  assert.equal(ic.remoteLocation, r.selfLink);
  const tooMany = await googleError(insert('ngce-cci-big', 3), 400);
  assert.equal(tooMany.code, Status.INVALID_ARGUMENT);
  done(await interconnects.delete({ project, interconnect: 'ngce-cci' }), 'delete');
});

test('Google compute (Node SDK): interconnects', async () => {
  const { interconnects, globalOps, auth } = clients();
  const insert = (name, loc, extra = {}) => interconnects.insert({
    project,
    interconnectResource: {
      name, location: location(loc), linkType: 'LINK_TYPE_ETHERNET_10G_LR', requestedLinkCount: 2,
      interconnectType: 'DEDICATED', customerName: 'Example', adminEnabled: true, ...extra,
    },
  });
  const op = done(await insert('ngce-ic-a', 'iad-zone1-1', {
    labels: { tier: 'gold' }, requestedFeatures: ['IF_MACSEC'], macsecEnabled: true,
    macsec: { failOpen: true, preSharedKeys: [{ name: 'key1', startTime: '2026-01-01T00:00:00Z' }] },
  }), 'insert');
  assert.equal(JSON.parse(auth.last.body).requestedLinkCount, 2);
  done(await insert('ngce-ic-b', 'iad-zone2-1'), 'insert');
  done(await insert('ngce-ic-c', 'lax-zone1-8'), 'insert');

  const [ic] = await interconnects.get({ project, interconnect: 'ngce-ic-a' });
  assert.equal(ic.kind, 'compute#interconnect');
  assert.equal(ic.id, op.targetId);
  assert.equal(ic.requestedLinkCount, 2);
  assert.equal(ic.provisionedLinkCount, 2);
  assert.equal(ic.circuitInfos.length, 2);
  assert.deepEqual(ic.labels, { tier: 'gold' });
  assert.deepEqual(ic.requestedFeatures, ['IF_MACSEC']);
  assert.equal(ic.macsecEnabled, true);
  assert.equal(ic.macsec.preSharedKeys[0].name, 'key1');
  assert.match(ic.location, /\/global\/interconnectLocations\/iad-zone1-1$/);
  assert.equal(ic.interconnectType, 'DEDICATED');

  // patch and setLabels (the fingerprint written back).
  done(await interconnects.patch({ project, interconnect: 'ngce-ic-a', interconnectResource: { description: 'primary', nocContactEmail: 'noc@example.com' } }), 'patch');
  assert.equal(auth.last.method, 'PATCH');
  assert.deepEqual(JSON.parse(auth.last.body).labels, {}, 'the transport writes the empty map');
  const [patched] = await interconnects.get({ project, interconnect: 'ngce-ic-a' });
  assert.equal(patched.description, 'primary');
  assert.equal(patched.nocContactEmail, 'noc@example.com');
  assert.deepEqual(patched.labels, { tier: 'gold' }, 'a patch that names no label keeps them');
  assert.equal(patched.labelFingerprint, ic.labelFingerprint);
  // What get returned, sent back whole (ids and int64s as strings), changes nothing.
  done(await interconnects.patch({ project, interconnect: 'ngce-ic-a', interconnectResource: patched }), 'patch');
  assert.equal(JSON.parse(auth.last.body).id, patched.id);
  const [unchanged] = await interconnects.get({ project, interconnect: 'ngce-ic-a' });
  assert.deepEqual(plain(unchanged), plain(patched));
  done(await interconnects.setLabels({
    project, resource: 'ngce-ic-a', globalSetLabelsRequestResource: { labels: { tier: 'silver', env: 'prod' }, labelFingerprint: patched.labelFingerprint },
  }), 'setLabels');
  const [relabelled] = await interconnects.get({ project, interconnect: 'ngce-ic-a' });
  assert.deepEqual(relabelled.labels, { tier: 'silver', env: 'prod' });
  const stale = await googleError(interconnects.setLabels({
    project, resource: 'ngce-ic-a', globalSetLabelsRequestResource: { labels: {}, labelFingerprint: patched.labelFingerprint },
  }), 412);
  assert.equal(stale.code, Status.FAILED_PRECONDITION);

  // getDiagnostics and getMacsecConfig.
  const [diag] = await interconnects.getDiagnostics({ project, interconnect: 'ngce-ic-a' });
  assert.equal(diag.result.links.length, 2);
  assert.equal(diag.result.bundleOperationalStatus, 'BUNDLE_OPERATIONAL_STATUS_UP');
  assert.equal(typeof diag.result.links[0].receivingOpticalPower.value, 'number');
  const [macsec] = await interconnects.getMacsecConfig({ project, interconnect: 'ngce-ic-a' });
  assert.ok(macsec.etag);
  assert.equal(macsec.result.preSharedKeys[0].name, 'key1');
  assert.match(macsec.result.preSharedKeys[0].cak, /^[0-9a-f]{32}$/i);

  // Lists.
  assert.deepEqual(await pages(interconnects.list.bind(interconnects), { project, maxResults: 2 }), [['ngce-ic-a', 'ngce-ic-b'], ['ngce-ic-c']]);
  assert.deepEqual(names(await collect(interconnects.listAsync({ project, filter: 'labels.env = prod' }))), ['ngce-ic-a']);
  assert.deepEqual(names(await collect(interconnects.listAsync({ project, orderBy: 'creationTimestamp desc' }))), ['ngce-ic-c', 'ngce-ic-b', 'ngce-ic-a']);
  const [all] = await interconnects.list({ project, maxResults: 1, returnPartialSuccess: true });
  assert.deepEqual(names(all), ['ngce-ic-a', 'ngce-ic-b', 'ngce-ic-c']);

  // A link type the catalog does not know is 400; delete, then 404.
  const bad = await googleError(insert('ngce-ic-bad', 'iad-zone1-1', { linkType: 'LINK_TYPE_CARRIER_PIGEON' }), 400);
  assert.equal(bad.code, Status.INVALID_ARGUMENT);
  const del = done(await interconnects.delete({ project, interconnect: 'ngce-ic-c' }), 'delete');
  assert.equal((await globalOps.wait({ project, operation: del.name }))[0].status, 'DONE');
  assert.equal((await googleError(interconnects.get({ project, interconnect: 'ngce-ic-c' }), 404)).code, Status.NOT_FOUND);
});

// interconnect is the URL of an interconnect of the project.
const interconnectURL = (name) => `${googleapis}/global/interconnects/${name}`;

// newInterconnect inserts a 10G dedicated interconnect at a catalog location.
async function newInterconnect(c, name, loc) {
  done(await c.interconnects.insert({
    project,
    interconnectResource: { name, location: location(loc), linkType: 'LINK_TYPE_ETHERNET_10G_LR', requestedLinkCount: 1, interconnectType: 'DEDICATED' },
  }), 'insert');
}

test('Google compute (Node SDK): interconnect attachments and region operations', async () => {
  const c = clients();
  const { attachments, regionOps, auth } = c;
  await newInterconnect(c, 'ngce-att-ic', 'iad-zone1-1');
  let vlan = 100;
  const insert = (name, r = region, extra = {}) => attachments.insert({
    project, region: r,
    interconnectAttachmentResource: {
      name, type: 'DEDICATED', interconnect: interconnectURL('ngce-att-ic'), router: `${googleapis}/regions/${r}/routers/router-1`,
      vlanTag8021q: ++vlan, candidateSubnets: ['169.254.10.0/29'], ...extra,
    },
  });

  // validateOnly: decided, committed nothing; the answer is an operation with only its kind.
  const [dry] = await attachments.insert({
    project, region, validateOnly: true,
    interconnectAttachmentResource: { name: 'ngce-att-v', type: 'DEDICATED', interconnect: interconnectURL('ngce-att-ic'), router: `${googleapis}/regions/${region}/routers/r`, vlanTag8021q: 3001 },
  });
  assert.equal(dry.latestResponse.kind, 'compute#operation');
  for (const member of ['name', 'id', 'selfLink', 'targetLink', 'operationType', 'status', 'progress', 'insertTime']) {
    assert.equal(dry.latestResponse[member] ?? undefined, undefined, member);
  }
  assert.equal(auth.last.url.searchParams.get('validateOnly'), 'true');
  assert.equal((await googleError(attachments.get({ project, region, interconnectAttachment: 'ngce-att-v' }), 404)).code, Status.NOT_FOUND);

  const op = done(await insert('ngce-att-a', region, { labels: { env: 'prod' }, mtu: 1500, bandwidth: 'BPS_10G' }), 'insert');
  assert.match(op.region, new RegExp(`/regions/${region}$`));
  assert.match(op.selfLink, new RegExp(`/regions/${region}/operations/${op.name}$`));
  done(await insert('ngce-att-b', region, { candidateSubnets: ['169.254.20.0/29'] }), 'insert');
  done(await insert('ngce-att-c', 'us-east1', { candidateSubnets: ['169.254.30.0/29'] }), 'insert');

  const [att] = await attachments.get({ project, region, interconnectAttachment: 'ngce-att-a' });
  assert.equal(att.kind, 'compute#interconnectAttachment');
  assert.equal(att.id, op.targetId);
  assert.equal(att.cloudRouterIpAddress, '169.254.10.1/29');
  assert.equal(att.customerRouterIpAddress, '169.254.10.2/29');
  assert.equal(att.vlanTag8021q, 101);
  assert.equal(att.mtu, 1500);
  assert.equal(att.bandwidth, 'BPS_10G');
  assert.equal(att.encryption, 'NONE');
  assert.deepEqual(att.labels, { env: 'prod' });
  assert.equal(att.privateInterconnectInfo.tag8021q, 101);
  assert.match(att.dataplaneVersion.toString(), /^\d+$/);

  // patch and setLabels (regional, with a requestId).
  const patchOp = done(await attachments.patch({ project, region, interconnectAttachment: 'ngce-att-a', interconnectAttachmentResource: { description: 'patched', mtu: 8896 } }), 'patch');
  assert.match(patchOp.region, new RegExp(`/regions/${region}$`));
  const [patched] = await attachments.get({ project, region, interconnectAttachment: 'ngce-att-a' });
  assert.equal(patched.description, 'patched');
  assert.equal(patched.mtu, 8896);
  assert.deepEqual(patched.labels, { env: 'prod' }, 'a patch that names no label keeps them');
  done(await attachments.patch({ project, region, interconnectAttachment: 'ngce-att-a', interconnectAttachmentResource: patched }), 'patch');
  assert.deepEqual(plain((await attachments.get({ project, region, interconnectAttachment: 'ngce-att-a' }))[0]), plain(patched), 'what get returned, sent back, changes nothing');
  const requestId = '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b';
  const first = done(await attachments.setLabels({
    project, region, resource: 'ngce-att-a', requestId,
    regionSetLabelsRequestResource: { labels: { env: 'dev', owner: 'net' }, labelFingerprint: patched.labelFingerprint },
  }), 'setLabels');
  const [again] = await attachments.setLabels({
    project, region, resource: 'ngce-att-a', requestId,
    regionSetLabelsRequestResource: { labels: { env: 'other' }, labelFingerprint: patched.labelFingerprint },
  });
  assert.equal(again.latestResponse.name, first.name, 'a retry with the requestId is the first operation');
  const [relabelled] = await attachments.get({ project, region, interconnectAttachment: 'ngce-att-a' });
  assert.deepEqual(relabelled.labels, { env: 'dev', owner: 'net' });

  // Lists: regional pages, the aggregated list by scope, filter and order.
  assert.deepEqual(await pages(attachments.list.bind(attachments), { project, region, maxResults: 1 }), [['ngce-att-a'], ['ngce-att-b']]);
  assert.deepEqual(names(await collect(attachments.listAsync({ project, region, filter: 'labels.owner = net' }))), ['ngce-att-a']);
  assert.deepEqual(names(await collect(attachments.listAsync({ project, region, orderBy: 'creationTimestamp desc' }))), ['ngce-att-b', 'ngce-att-a']);
  // A page per attachment: each page has every scope, with its items or a warning.
  const before = auth.requests.length;
  const pairs = await collect(attachments.aggregatedListAsync({ project, maxResults: 1, includeAllScopes: true, returnPartialSuccess: true }));
  assert.equal(auth.requests.length - before, 3);
  const items = {};
  const warned = {};
  for (const [scope, list] of pairs) {
    items[scope] = [...(items[scope] ?? []), ...names(list.interconnectAttachments)];
    if (list.warning) warned[scope] = (warned[scope] ?? 0) + 1;
    if (list.warning) assert.equal(list.warning.code, 'NO_RESULTS_ON_PAGE');
  }
  assert.deepEqual(items['regions/us-east1'], ['ngce-att-c']);
  assert.deepEqual(items[`regions/${region}`], ['ngce-att-a', 'ngce-att-b']);
  assert.deepEqual(items.global, []);
  assert.equal(warned.global, 3, 'includeAllScopes: global, empty, on each page');
  assert.equal(warned['regions/europe-west3'], 3);
  assert.equal(warned[`regions/${region}`], 1);
  const beforeFiltered = auth.requests.length;
  const filtered = await collect(attachments.aggregatedListAsync({ project, maxResults: 2, filter: 'name != ngce-att-b' }));
  assert.equal(auth.requests.length - beforeFiltered, 1, 'one page');
  assert.deepEqual(filtered.flatMap(([, l]) => names(l.interconnectAttachments)), ['ngce-att-c', 'ngce-att-a']);

  // Region operations: get, list (paged, filtered), wait, delete.
  const [got] = await regionOps.get({ project, region, operation: op.name });
  assert.equal(got.status, 'DONE');
  assert.equal(got.id, op.id);
  assert.match(got.targetId, /^\d+$/);
  const [waited] = await regionOps.wait({ project, region, operation: patchOp.name });
  assert.equal(waited.operationType, 'patch');
  const ops = await collect(regionOps.listAsync({ project, region, maxResults: 2 }));
  assert.ok(ops.length >= 4, `${ops.length} operations`);
  assert.deepEqual(ops.map((o) => o.region.split('/').pop()), ops.map(() => region));
  const inserts = await collect(regionOps.listAsync({ project, region, filter: 'operationType = insert' }));
  assert.ok(inserts.every((o) => o.operationType === 'insert'));
  assert.deepEqual((await pages(regionOps.list.bind(regionOps), { project, region, maxResults: 3 })).flat(), ops.map((o) => o.name));
  const [deleted] = await regionOps.delete({ project, region, operation: op.name });
  assert.deepEqual(deleted, {});
  assert.equal(auth.last.method, 'DELETE');
  assert.equal((await googleError(regionOps.get({ project, region, operation: op.name }), 404)).code, Status.NOT_FOUND);

  // delete an attachment; a region outside the location's is 400.
  done(await attachments.delete({ project, region: 'us-east1', interconnectAttachment: 'ngce-att-c' }), 'delete');
  assert.equal((await googleError(attachments.get({ project, region: 'us-east1', interconnectAttachment: 'ngce-att-c' }), 404)).code, Status.NOT_FOUND);
  const wrongRegion = await googleError(insert('ngce-att-x', 'europe-west3'), 400);
  assert.equal(wrongRegion.code, Status.INVALID_ARGUMENT);
});

// iamChecks runs the IAM trio of a kind of group on resource: the empty policy, a set with
// and without the etag (a stale one is 409 ABORTED), a conditional binding read by a
// version 1 caller, and testIamPermissions.
async function iamChecks(client, resource, permission) {
  const [empty] = await client.getIamPolicy({ project, resource });
  assert.equal(empty.version, 1);
  assert.equal(empty.etag, 'ACAB');
  assert.deepEqual(empty.bindings, []);

  const [set] = await client.setIamPolicy({
    project, resource,
    globalSetPolicyRequestResource: {
      policy: {
        version: 3, etag: empty.etag,
        bindings: [
          { role: 'roles/compute.viewer', members: ['user:ana@example.com', 'user:ana@example.com', 'group:net@example.com'] },
          { role: 'roles/compute.networkAdmin', members: ['serviceAccount:ops@p.iam.gserviceaccount.com'], condition: { title: 'soon', expression: 'request.time < timestamp("2030-01-01T00:00:00Z")' } },
        ],
      },
    },
  });
  assert.equal(set.version, 3);
  assert.match(set.etag, /^BwX/);
  assert.deepEqual(set.bindings.map((b) => b.role), ['roles/compute.networkAdmin', 'roles/compute.viewer']);
  assert.deepEqual(set.bindings[1].members, ['user:ana@example.com', 'group:net@example.com'], 'deduplicated');
  assert.equal(set.bindings[0].condition.title, 'soon');

  const [v3] = await client.getIamPolicy({ project, resource, optionsRequestedPolicyVersion: 3 });
  assert.deepEqual(v3, set);
  const [v1] = await client.getIamPolicy({ project, resource, optionsRequestedPolicyVersion: 1 });
  assert.equal(v1.version, 1);
  assert.match(v1.bindings[0].role, /^roles\/compute\.networkAdmin_withcond_/);
  assert.equal(v1.bindings[0].condition, undefined);

  const conflict = await googleError(client.setIamPolicy({
    project, resource, globalSetPolicyRequestResource: { policy: { etag: empty.etag, bindings: [] } },
  }), 409);
  assert.equal(conflict.code, Status.ABORTED);
  const badMember = await googleError(client.setIamPolicy({
    project, resource, globalSetPolicyRequestResource: { policy: { bindings: [{ role: 'roles/compute.viewer', members: ['nobody'] }] } },
  }), 400);
  assert.equal(badMember.code, Status.INVALID_ARGUMENT);

  const [perms] = await client.testIamPermissions({
    project, resource, testPermissionsRequestResource: { permissions: [permission, 'compute.instances.get'] },
  });
  assert.deepEqual(perms.permissions, [permission]);
}

test('Google compute (Node SDK): interconnect attachment groups', async () => {
  const c = clients();
  const { attachments, attachmentGroups: groups, auth } = c;
  await newInterconnect(c, 'ngce-iag-ic1', 'iad-zone1-1');
  await newInterconnect(c, 'ngce-iag-ic2', 'iad-zone2-1');
  const attachment = async (name, ic, vlan) => {
    done(await attachments.insert({
      project, region,
      interconnectAttachmentResource: { name, type: 'DEDICATED', interconnect: interconnectURL(ic), router: `${googleapis}/regions/${region}/routers/r`, vlanTag8021q: vlan },
    }), 'insert');
    return `${googleapis}/regions/${region}/interconnectAttachments/${name}`;
  };
  const a1 = await attachment('ngce-iag-a1', 'ngce-iag-ic1', 501);
  const a2 = await attachment('ngce-iag-a2', 'ngce-iag-ic2', 502);

  const op = done(await groups.insert({
    project,
    interconnectAttachmentGroupResource: { name: 'ngce-iag', description: 'pair', intent: { availabilitySla: 'PRODUCTION_NON_CRITICAL' }, attachments: { z1: { attachment: a1 } } },
  }), 'insert');
  assert.deepEqual(JSON.parse(auth.last.body).attachments, { z1: { attachment: a1 } });
  done(await groups.insert({ project, interconnectAttachmentGroupResource: { name: 'ngce-iag-b', intent: { availabilitySla: 'NO_SLA' } } }), 'insert');

  const [g] = await groups.get({ project, interconnectAttachmentGroup: 'ngce-iag' });
  assert.equal(g.kind, 'compute#interconnectAttachmentGroup');
  assert.equal(g.id, op.targetId);
  assert.ok(g.etag);
  assert.match(g.attachments.z1.attachment, /\/interconnectAttachments\/ngce-iag-a1$/);
  assert.equal(g.configured.availabilitySla.effectiveSla, 'NO_SLA');
  assert.ok(g.configured.availabilitySla.intendedSlaBlockers.length > 0);
  assert.equal(g.logicalStructure.regions[0].region.split('/').pop(), region);

  // patch: a merge patch adding an attachment, with the etag; updateMask; a stale etag is 412.
  done(await groups.patch({
    project, interconnectAttachmentGroup: 'ngce-iag',
    interconnectAttachmentGroupResource: { etag: g.etag, attachments: { z2: { attachment: a2 } } },
  }), 'patch');
  const [both] = await groups.get({ project, interconnectAttachmentGroup: 'ngce-iag' });
  assert.deepEqual(Object.keys(both.attachments).sort(), ['z1', 'z2']);
  assert.equal(both.configured.availabilitySla.effectiveSla, 'PRODUCTION_NON_CRITICAL');
  assert.deepEqual(both.configured.availabilitySla.intendedSlaBlockers, []);
  done(await groups.patch({
    project, interconnectAttachmentGroup: 'ngce-iag', updateMask: 'description',
    interconnectAttachmentGroupResource: { description: 'both zones' },
  }), 'patch');
  assert.equal(auth.last.url.searchParams.get('updateMask'), 'description');
  const [described] = await groups.get({ project, interconnectAttachmentGroup: 'ngce-iag' });
  assert.equal(described.description, 'both zones');
  assert.deepEqual(Object.keys(described.attachments).sort(), ['z1', 'z2'], 'the empty map the SDK sends leaves the attachments');
  done(await groups.patch({ project, interconnectAttachmentGroup: 'ngce-iag', interconnectAttachmentGroupResource: described }), 'patch');
  const { etag: _e1, ...resent } = plain((await groups.get({ project, interconnectAttachmentGroup: 'ngce-iag' }))[0]);
  const { etag: _e2, ...read } = plain(described);
  assert.deepEqual(resent, read, 'what get returned, sent back, changes nothing (but the etag: every patch moves it)');
  const stale = await googleError(groups.patch({
    project, interconnectAttachmentGroup: 'ngce-iag', interconnectAttachmentGroupResource: { etag: g.etag, description: 'x' },
  }), 412);
  assert.equal(stale.code, Status.FAILED_PRECONDITION);

  // getOperationalStatus.
  const [status] = await groups.getOperationalStatus({ project, interconnectAttachmentGroup: 'ngce-iag' });
  assert.ok(status.etag);
  assert.equal(status.result.groupStatus, 'FULLY_UP');
  assert.equal(status.result.attachmentStatuses.length, 2);
  assert.ok(status.result.attachmentStatuses.every((s) => s.isActive === 'ACTIVE' && s.status === 'CONNECTION_UP' && s.adminEnabled === true));
  assert.equal(status.result.operational.availabilitySla.effectiveSla, 'PRODUCTION_NON_CRITICAL');

  await iamChecks(groups, 'ngce-iag', 'compute.interconnectAttachmentGroups.get');

  // Lists, delete.
  assert.deepEqual(await pages(groups.list.bind(groups), { project, maxResults: 1 }), [['ngce-iag'], ['ngce-iag-b']]);
  assert.deepEqual(names(await collect(groups.listAsync({ project, filter: 'intent.availabilitySla = NO_SLA' }))), ['ngce-iag-b']);
  assert.deepEqual(names(await collect(groups.listAsync({ project, orderBy: 'creationTimestamp desc', returnPartialSuccess: true }))), ['ngce-iag-b', 'ngce-iag']);
  done(await groups.delete({ project, interconnectAttachmentGroup: 'ngce-iag-b' }), 'delete');
  assert.equal((await googleError(groups.get({ project, interconnectAttachmentGroup: 'ngce-iag-b' }), 404)).code, Status.NOT_FOUND);
  // A missing attachment: the insert is accepted and its DONE operation carries the error.
  const [failed] = await groups.insert({
    project, interconnectAttachmentGroupResource: { name: 'ngce-iag-d', intent: { availabilitySla: 'NO_SLA' }, attachments: { x: { attachment: `${googleapis}/regions/${region}/interconnectAttachments/ngce-none` } } },
  });
  const failedOp = failed.latestResponse;
  assert.equal(failedOp.status, 'DONE');
  assert.equal(failedOp.error.errors[0].code, 'RESOURCE_NOT_FOUND');
  assert.match(failedOp.error.errors[0].message, /ngce-none/);
  assert.equal(failedOp.httpErrorStatusCode, 404);
  assert.equal(failedOp.httpErrorMessage, 'NOT FOUND');
  assert.equal((await googleError(groups.get({ project, interconnectAttachmentGroup: 'ngce-iag-d' }), 404)).code, Status.NOT_FOUND);
  const noIntent = await googleError(groups.insert({ project, interconnectAttachmentGroupResource: { name: 'ngce-iag-c', intent: { availabilitySla: 'BEST' } } }), 400);
  assert.equal(noIntent.code, Status.INVALID_ARGUMENT);
});

test('Google compute (Node SDK): interconnect groups', async () => {
  const c = clients();
  const { interconnects, groups, auth } = c;
  await newInterconnect(c, 'ngce-icg-1', 'lax-zone1-8');

  const op = done(await groups.insert({
    project,
    interconnectGroupResource: { name: 'ngce-icg', intent: { topologyCapability: 'PRODUCTION_NON_CRITICAL' }, interconnects: { first: { interconnect: interconnectURL('ngce-icg-1') } } },
  }), 'insert');
  done(await groups.insert({ project, interconnectGroupResource: { name: 'ngce-icg-b', intent: { topologyCapability: 'NO_SLA' } } }), 'insert');
  const [g] = await groups.get({ project, interconnectGroup: 'ngce-icg' });
  assert.equal(g.kind, 'compute#InterconnectGroup', 'the discovery document\'s spelling');
  assert.equal(g.id, op.targetId);
  assert.equal(g.configured.topologyCapability.supportedSla, 'NO_SLA');
  assert.equal(g.configured.topologyCapability.intendedCapabilityBlockers[0].blockerType, 'NO_INTERCONNECTS_IN_METRO_AND_ZONE');
  assert.equal(g.physicalStructure.metros[0].metro, 'lax');

  // createMembers: interconnects made and added in one step, spread over the zones.
  done(await groups.createMembers({
    project, interconnectGroup: 'ngce-icg',
    interconnectGroupsCreateMembersRequestResource: {
      request: {
        templateInterconnect: { facility: 'lax-8', linkType: 'LINK_TYPE_ETHERNET_10G_LR', requestedLinkCount: 1, interconnectType: 'DEDICATED' },
        interconnects: [{ name: 'ngce-icg-2', facility: 'lax-zone2-19' }],
      },
    },
  }), 'createMembers');
  const [member] = await interconnects.get({ project, interconnect: 'ngce-icg-2' });
  assert.match(member.location, /lax-zone2-19$/);
  assert.deepEqual(member.interconnectGroups.map((u) => u.split('/').pop()), ['ngce-icg']);
  const [full] = await groups.get({ project, interconnectGroup: 'ngce-icg' });
  assert.deepEqual(Object.keys(full.interconnects).sort(), ['first', 'ngce-icg-2']);
  assert.equal(full.configured.topologyCapability.supportedSla, 'PRODUCTION_NON_CRITICAL');

  // patch (merge and updateMask), a stale etag.
  done(await groups.patch({ project, interconnectGroup: 'ngce-icg', interconnectGroupResource: { etag: full.etag, description: 'lax pair' } }), 'patch');
  const [patched] = await groups.get({ project, interconnectGroup: 'ngce-icg' });
  assert.equal(patched.description, 'lax pair');
  done(await groups.patch({ project, interconnectGroup: 'ngce-icg', interconnectGroupResource: patched }), 'patch');
  const { etag: _e1, ...resent } = plain((await groups.get({ project, interconnectGroup: 'ngce-icg' }))[0]);
  const { etag: _e2, ...read } = plain(patched);
  assert.deepEqual(resent, read, 'what get returned, sent back, changes nothing (but the etag: every patch moves it)');
  assert.deepEqual(Object.keys(patched.interconnects).sort(), ['first', 'ngce-icg-2']);
  done(await groups.patch({ project, interconnectGroup: 'ngce-icg', updateMask: 'intent', interconnectGroupResource: { intent: { topologyCapability: 'NO_SLA' } } }), 'patch');
  assert.equal((await groups.get({ project, interconnectGroup: 'ngce-icg' }))[0].intent.topologyCapability, 'NO_SLA');
  const stale = await googleError(groups.patch({ project, interconnectGroup: 'ngce-icg', interconnectGroupResource: { etag: full.etag } }), 412);
  assert.equal(stale.code, Status.FAILED_PRECONDITION);

  // getOperationalStatus.
  const [status] = await groups.getOperationalStatus({ project, interconnectGroup: 'ngce-icg' });
  assert.equal(status.result.groupStatus, 'FULLY_UP');
  assert.equal(status.result.interconnectStatuses.length, 2);
  assert.ok(status.result.interconnectStatuses.every((s) => s.isActive === 'ACTIVE' && s.adminEnabled === true));
  assert.ok(status.result.interconnectStatuses[0].diagnostics.links.length > 0);

  await iamChecks(groups, 'ngce-icg', 'compute.interconnectGroups.update');

  // Lists, delete.
  assert.deepEqual(await pages(groups.list.bind(groups), { project, maxResults: 1 }), [['ngce-icg'], ['ngce-icg-b']]);
  assert.deepEqual(names(await collect(groups.listAsync({ project, filter: 'description = "lax pair"' }))), ['ngce-icg']);
  done(await groups.delete({ project, interconnectGroup: 'ngce-icg-b' }), 'delete');
  assert.equal(auth.last.method, 'DELETE');
  assert.equal((await googleError(groups.get({ project, interconnectGroup: 'ngce-icg-b' }), 404)).code, Status.NOT_FOUND);
});

test('Google compute (Node SDK): global operations', async () => {
  const c = clients();
  const { rules, globalOps, auth } = c;
  const ops = [];
  for (const n of ['ngce-op-a', 'ngce-op-b', 'ngce-op-c']) {
    ops.push(done(await rules.insert({ project, forwardingRuleResource: { name: n, portRange: '9000' } }), 'insert'));
  }

  const [op] = await globalOps.get({ project, operation: ops[0].name });
  assert.equal(op.id, ops[0].id);
  assert.equal(op.status, 'DONE');
  assert.match(op.targetLink, /\/global\/forwardingRules\/ngce-op-a$/);
  assert.equal(op.region, undefined);
  const [waited] = await globalOps.wait({ project, operation: ops[1].name });
  assert.equal(waited.status, 'DONE');
  assert.equal(auth.last.method, 'POST');
  assert.equal(auth.last.url.pathname, `/compute/v1/projects/${project}/global/operations/${ops[1].name}/wait`);

  const listed = await collect(globalOps.listAsync({ project, maxResults: 2, filter: 'targetLink eq ".*/ngce-op-.*"' }));
  assert.deepEqual(listed.map((o) => o.name).sort(), ops.map((o) => o.name).sort());
  const paged = await pages(globalOps.list.bind(globalOps), { project, maxResults: 2, filter: 'targetLink eq ".*/ngce-op-.*"' });
  assert.deepEqual(paged.map((p) => p.length), [2, 1]);
  const newest = await collect(globalOps.listAsync({ project, orderBy: 'creationTimestamp desc', maxResults: 50 }));
  assert.ok(newest.length >= 3);

  // aggregatedList: global and regional operations by scope.
  const scopes = Object.fromEntries(await collect(globalOps.aggregatedListAsync({ project, maxResults: 100, returnPartialSuccess: true })));
  assert.ok(scopes.global.operations.some((o) => o.name === ops[2].name));
  assert.ok(scopes[`regions/${region}`].operations.length > 0, 'the attachments test, run before (in file order), left region operations');
  assert.ok(scopes[`regions/${region}`].operations.every((o) => o.region.endsWith(`/regions/${region}`)));
  const before = auth.requests.length;
  const onePerPage = await collect(globalOps.aggregatedListAsync({ project, maxResults: 1, filter: 'targetLink eq ".*/ngce-op-.*"' }));
  assert.equal(auth.requests.length - before, 3, 'a page per operation');
  assert.deepEqual(onePerPage.flatMap(([, l]) => l.operations.map((o) => o.name)).sort(), ops.map((o) => o.name).sort());

  // delete: the answer is empty, and the operation is gone.
  const [deleted] = await globalOps.delete({ project, operation: ops[2].name });
  assert.deepEqual(deleted, {});
  assert.equal((await googleError(globalOps.get({ project, operation: ops[2].name }), 404)).code, Status.NOT_FOUND);
  assert.equal((await googleError(globalOps.wait({ project, operation: ops[2].name }), 404)).code, Status.NOT_FOUND);
});

test('Google compute (Node SDK): the system parameters of numericEnums and minifyJson', async () => {
  const c = clients({ numericEnums: true, minifyJson: true });
  const [ins] = await c.rules.insert({ project, forwardingRuleResource: { name: 'ngce-sys', portRange: '7000' } });
  const sent = c.auth.last;
  assert.equal(sent.url.searchParams.get('$alt'), 'json;enum-encoding=int');
  assert.equal(sent.url.searchParams.get('$prettyPrint'), '0');
  assert.equal(ins.latestResponse.status, 'DONE');
  const [rule] = await c.rules.get({ project, forwardingRule: 'ngce-sys' });
  assert.equal(rule.portRange, '7000-7000');
  const [op] = await c.globalOps.get({ project, operation: ins.latestResponse.name });
  assert.equal(op.status, 'DONE');
  assert.deepEqual(names(await collect(c.rules.listAsync({ project, filter: 'name = ngce-sys' }))), ['ngce-sys']);
  const missing = await googleError(c.rules.get({ project, forwardingRule: 'ngce-sys-none' }), 404);
  assert.equal(missing.code, Status.NOT_FOUND);
});

// Every operation of the spec has been sent through the SDK method that maps to it (an
// aggregatedList through aggregatedListAsync, the SDK's only one), except those the SDK
// does not have: interconnects.setName is newer than @google-cloud/compute 6.15.0.
test('Google compute (Node SDK): every operation of specs/compute.yaml was called', async () => {
  const spec = await readFile(new URL('../../../specs/compute.yaml', import.meta.url), 'utf8');
  const operations = [...spec.matchAll(/^ {6}operationId: (\S+)$/gm)].map((m) => m[1]);
  assert.equal(operations.length, 63);
  const clientOf = Object.fromEntries(Object.values(resources));
  const notInSDK = [];
  const notCalled = [];
  for (const op of operations) {
    const [resource, method] = op.split('.');
    const sdkMethod = method === 'aggregatedList' ? 'aggregatedListAsync' : method;
    assert.ok(clientOf[resource], `no client for ${op}`);
    if (typeof clientOf[resource].prototype[sdkMethod] !== 'function') notInSDK.push(op);
    else if (!called.has(`${resource}.${sdkMethod}`)) notCalled.push(op);
  }
  assert.deepEqual(notInSDK, ['interconnects.setName']);
  assert.deepEqual(notCalled, []);
});
