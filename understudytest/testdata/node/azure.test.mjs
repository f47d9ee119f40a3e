// Every operation of the authorization API (specs/authorization.yaml) through Azure's own
// Node SDK, @azure/arm-authorization, built as recipes.mjs's azureAuthorization builds it,
// against the server at UNDERSTUDY_URL as TestNodeRecipes starts it.
//
// The SDK's groups that map to the spec (roleAssignments, roleDefinitions, permissions,
// denyAssignments) all send api-version 2022-04-01; the versions test sends every other
// version the spec serves through a policy. Deny assignments, which ARM's API only reads,
// are made through the admin API, as the platform makes them in ARM. The SDK's other
// groups (classicAdministrators, globalAdministrator, providerOperationsMetadataOperations,
// eligibleChildResources and the roleAssignmentSchedule*, roleEligibilitySchedule*,
// roleManagementPolic* groups) are no operation of the spec.
//
// The files of this directory run at once against one server: every test here works in a
// subscription of its own (…-00000000d0NN), names its roles "Node SDK …", and deletes what
// it makes at the root and at management groups, which every list below them shows.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import { getContinuationToken } from '@azure/arm-authorization';

import { azureAuthorization } from './recipes.mjs';

// The SDK's errors are RestError of its pipeline package (one copy in package-lock.json), as
// the SDK, a CommonJS module, loads it: its ES module build is another class.
const { RestError } = createRequire(import.meta.url)('@azure/core-rest-pipeline');

const baseURL = process.env.UNDERSTUDY_URL;
assert.ok(baseURL, 'UNDERSTUDY_URL is not set');

// The caller: the SDK sends the recipe's token, which is no JWT, so the server takes the
// default principal (--authz-default-principal).
const caller = '00000000-0000-0000-0000-00000000c0de';
const readerGUID = 'acdd72a7-3385-48ef-bd42-f606fba81ae7';
const contributorGUID = 'b24988ac-6180-42a0-ab88-20f7382dd24c';
const blobDataReaderGUID = '2a2b9908-6ea1-4ae2-8e65-a410df84e7d1';
const provider = '/providers/Vendor.Authorization';

const subID = (n) => `a2b0de00-0000-4000-8000-00000000d0${String(n).padStart(2, '0')}`;
const guid = (prefix, n) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const name = (n) => guid('a2b0de01', n); // role assignment names
const principal = (n) => guid('a2b0de02', n);
const roleGUID = (n) => guid('a2b0de03', n); // custom role names

// A role id as a request names it (the recipe renames the provider) and as ARM answers it
// (docs/authorization.md: role definition ids are tenant-level).
const roleRef = (g, sub) => `/subscriptions/${sub}/providers/Microsoft.Authorization/roleDefinitions/${g}`;
const roleID = (g) => `${provider}/roleDefinitions/${g}`;

async function all(iter) {
  const out = [];
  for await (const x of iter) out.push(x);
  return out;
}

// status returns options whose onResponse keeps the HTTP status in st.status.
function status() {
  const st = { status: 0 };
  return [st, { onResponse: (raw) => { st.status = raw.status; } }];
}

// rejects awaits p and checks it fails as the SDK fails on an ARM error.
async function rejects(p, statusCode, code) {
  await assert.rejects(p, (err) => {
    assert.ok(err instanceof RestError, `not a RestError: ${err}`);
    assert.equal(err.statusCode, statusCode, err.message);
    assert.equal(err.code, code, err.message);
    assert.equal(err.details?.error?.code, code);
    assert.ok(err.details.error.message, 'the envelope has a message');
    return true;
  });
}

// escapeID escapes each segment of an id, as a caller must before the SDK's by-id
// methods: the REST spec marks {scope}, {roleAssignmentId} and {roleId}
// x-ms-skip-url-encoding, so the SDK puts them in the URL as given ('?' and '#' would end
// the path, '%' start an escape). Node's URL escapes spaces itself.
const escapeID = (id) => id.split('/').map(encodeURIComponent).join('/');

// checkAssignment holds an assignment to the members RoleAssignment declares.
function checkAssignment(ra, { scope, n, principalId, role, principalType = 'User' }) {
  const scopeID = scope === '/' ? '' : scope;
  assert.equal(ra.id, `${scopeID}${provider}/roleAssignments/${n}`);
  assert.equal(ra.name, n);
  assert.equal(ra.type, 'Vendor.Authorization/roleAssignments');
  assert.equal(ra.scope, scope);
  assert.equal(ra.roleDefinitionId, roleID(role));
  assert.equal(ra.principalId, principalId);
  assert.equal(ra.principalType, principalType);
  assert.ok(ra.createdOn instanceof Date && !isNaN(ra.createdOn), `createdOn ${ra.createdOn}`);
  assert.ok(ra.updatedOn instanceof Date && ra.updatedOn >= ra.createdOn, `updatedOn ${ra.updatedOn}`);
  assert.equal(ra.createdBy, caller);
  assert.equal(ra.updatedBy, caller);
}

test('roleAssignments: create, get, update, delete at a subscription', async () => {
  const sub = subID(1);
  const client = azureAuthorization(baseURL, sub);
  const scope = `/subscriptions/${sub}`;
  const condition = "@Resource[Microsoft.Storage/storageAccounts/blobServices/containers:name] StringEquals 'logs'";

  const [created, createOpts] = status();
  const ra = await client.roleAssignments.create(scope, name(1), {
    principalId: principal(1), roleDefinitionId: roleRef(readerGUID, sub), principalType: 'ServicePrincipal',
    description: 'Reads for the billing job', condition, conditionVersion: '2.0',
    delegatedManagedIdentityResourceId: `/subscriptions/${sub}/resourceGroups/rg1/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1`,
  }, createOpts);
  assert.equal(created.status, 201);
  checkAssignment(ra, { scope, n: name(1), principalId: principal(1), role: readerGUID, principalType: 'ServicePrincipal' });
  assert.equal(ra.description, 'Reads for the billing job');
  assert.equal(ra.condition, condition);
  assert.equal(ra.conditionVersion, '2.0');
  assert.equal(ra.delegatedManagedIdentityResourceId, `/subscriptions/${sub}/resourceGroups/rg1/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1`);

  const got = await client.roleAssignments.get(scope, name(1), { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47' });
  assert.deepEqual(got, ra);
  assert.deepEqual(await client.roleAssignments.getById(ra.id), ra);

  // The mutable members change; the rest cannot.
  const [updated, updateOpts] = status();
  const ra2 = await client.roleAssignments.create(scope, name(1), {
    principalId: principal(1), roleDefinitionId: roleRef(readerGUID, sub), principalType: 'ServicePrincipal', description: 'Reads, renamed',
  }, updateOpts);
  assert.equal(updated.status, 200);
  assert.equal(ra2.description, 'Reads, renamed');
  assert.equal(ra2.condition, undefined);
  assert.deepEqual(ra2.createdOn, ra.createdOn);
  assert.ok(ra2.updatedOn >= ra.updatedOn);
  await rejects(client.roleAssignments.create(scope, name(1), { principalId: principal(2), roleDefinitionId: roleRef(readerGUID, sub) }),
    400, 'RoleAssignmentUpdateNotPermitted');
  await rejects(client.roleAssignments.create(scope, name(2), { principalId: principal(1), roleDefinitionId: roleRef(readerGUID, sub) }),
    409, 'RoleAssignmentExists');

  const [deleted, deleteOpts] = status();
  const gone = await client.roleAssignments.delete(scope, name(1), { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47', ...deleteOpts });
  assert.equal(deleted.status, 200);
  assert.equal(gone.id, ra.id);
  assert.equal(gone.description, 'Reads, renamed');
  const [again, againOpts] = status();
  await client.roleAssignments.delete(scope, name(1), againOpts);
  assert.equal(again.status, 204);
  await rejects(client.roleAssignments.get(scope, name(1)), 404, 'RoleAssignmentNotFound');
  await rejects(client.roleAssignments.getById(ra.id), 404, 'RoleAssignmentNotFound');
});

test('roleAssignments: every scope form, by scope and by id', async () => {
  const sub = subID(2);
  const client = azureAuthorization(baseURL, sub);
  const rg = `/subscriptions/${sub}/resourceGroups/rg-scopes`;
  // Names as a caller sends them in {scope} (escaped where a URL needs it) and as ids
  // carry them (as they are).
  const forms = [
    { sent: '/', scope: '/' },
    { sent: '/providers/Microsoft.Management/managementGroups/mg-node-sdk', scope: '/providers/Microsoft.Management/managementGroups/mg-node-sdk' },
    { sent: `/subscriptions/${sub}`, scope: `/subscriptions/${sub}` },
    { sent: rg, scope: rg },
    { sent: `${rg}/providers/Microsoft.Storage/storageAccounts/acct1`, scope: `${rg}/providers/Microsoft.Storage/storageAccounts/acct1` },
    { sent: `${rg}/providers/Microsoft.Web/sites/site1/slots/staging`, scope: `${rg}/providers/Microsoft.Web/sites/site1/slots/staging` },
    { sent: `${rg}/providers/Microsoft.Insights/metricAlerts/High CPU`, scope: `${rg}/providers/Microsoft.Insights/metricAlerts/High CPU` },
    { sent: `${rg}/providers/Microsoft.Insights/metricAlerts/${encodeURIComponent('why? #1 50%')}`, scope: `${rg}/providers/Microsoft.Insights/metricAlerts/why? #1 50%` },
    { sent: `${rg}/providers/Microsoft.Web/sites/site1/providers/Microsoft.Insights/diagnosticSettings/ds1`, scope: `${rg}/providers/Microsoft.Web/sites/site1/providers/Microsoft.Insights/diagnosticSettings/ds1` },
  ];
  try {
    for (const [i, f] of forms.entries()) {
      const n = name(100 + i);
      const ra = await client.roleAssignments.create(f.sent, n, { principalId: principal(100 + i), roleDefinitionId: roleRef(readerGUID, sub) });
      checkAssignment(ra, { scope: f.scope, n, principalId: principal(100 + i), role: readerGUID });
      assert.deepEqual(await client.roleAssignments.get(f.sent, n), ra, f.scope);
      assert.deepEqual(await client.roleAssignments.getById(escapeID(ra.id)), ra, f.scope);
      // The same, by id.
      const n2 = name(200 + i);
      const id = `${f.scope === '/' ? '' : f.scope}${provider}/roleAssignments/${n2}`;
      const [st, opts] = status();
      const byID = await client.roleAssignments.createById(escapeID(id), { principalId: principal(200 + i), roleDefinitionId: roleRef(readerGUID, sub), principalType: 'Group' }, opts);
      assert.equal(st.status, 201);
      checkAssignment(byID, { scope: f.scope, n: n2, principalId: principal(200 + i), role: readerGUID, principalType: 'Group' });
      assert.equal(byID.id, id);
      const listed = await all(client.roleAssignments.listForScope(f.sent, { filter: 'atScope()' }));
      assert.ok(listed.some((r) => r.id === ra.id) && listed.some((r) => r.id === id), `${f.scope}: listed ${listed.map((r) => r.id)}`);
      const del = await client.roleAssignments.deleteById(escapeID(id), { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47' });
      assert.equal(del.id, id);
      const [gone, goneOpts] = status();
      await client.roleAssignments.deleteById(escapeID(id), goneOpts);
      assert.equal(gone.status, 204);
      await rejects(client.roleAssignments.getById(escapeID(id)), 404, 'RoleAssignmentNotFound');
    }
  } finally {
    // The root's and the management group's would show in the other files' lists.
    await client.roleAssignments.delete('/', name(100));
    await client.roleAssignments.delete(forms[1].sent, name(101));
  }
});

test('roleAssignments: the four lists, with their filters', async () => {
  const sub = subID(3);
  const client = azureAuthorization(baseURL, sub);
  const subScope = `/subscriptions/${sub}`;
  const rg = `${subScope}/resourceGroups/rg-lists`;
  const site = `${rg}/providers/Microsoft.Web/sites/site1`;
  const slot = `${site}/slots/High CPU`;
  const other = `${subScope}/resourceGroups/rg-other`;
  const made = [
    [subScope, principal(300)],
    [rg, principal(301)],
    [site, principal(300)],
    [slot, principal(302)],
    [other, principal(300)],
  ];
  for (const [i, [scope, p]] of made.entries()) {
    await client.roleAssignments.create(scope, name(300 + i), { principalId: p, roleDefinitionId: roleRef(readerGUID, sub) });
  }
  // Only this test's: a root assignment of another file would be listed too.
  const names = async (iter) => (await all(iter)).map((r) => r.name).filter((n) => n.startsWith('a2b0de01-')).sort();
  const want = (...is) => is.map((i) => name(300 + i)).sort();

  assert.deepEqual(await names(client.roleAssignments.listForSubscription()), want(0, 1, 2, 3, 4));
  assert.deepEqual(await names(client.roleAssignments.listForSubscription({ filter: 'atScope()', tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47' })), want(0));
  assert.deepEqual(await names(client.roleAssignments.listForSubscription({ filter: `principalId eq '${principal(300)}'` })), want(0, 2, 4));
  assert.deepEqual(await names(client.roleAssignments.listForSubscription({ filter: `assignedTo('${principal(302)}')` })), want(3));

  assert.deepEqual(await names(client.roleAssignments.listForResourceGroup('rg-lists')), want(0, 1, 2, 3));
  assert.deepEqual(await names(client.roleAssignments.listForResourceGroup('rg-lists', { filter: 'atScope()' })), want(0, 1));
  assert.deepEqual(await names(client.roleAssignments.listForResourceGroup('rg-lists', { filter: `principalId eq '${principal(300)}'` })), want(0, 2));

  assert.deepEqual(await names(client.roleAssignments.listForResource('rg-lists', 'Microsoft.Web', 'sites', 'site1')), want(0, 1, 2, 3));
  assert.deepEqual(await names(client.roleAssignments.listForResource('rg-lists', 'Microsoft.Web', 'sites', 'site1', { filter: 'atScope()' })), want(0, 1, 2));
  // A nested resource: 2022-04-01 has no parentResourcePath, the type carries it; the name
  // is not escaped by the SDK (x-ms-skip-url-encoding), Node's URL escapes the space.
  assert.deepEqual(await names(client.roleAssignments.listForResource('rg-lists', 'Microsoft.Web', 'sites/site1/slots', 'High CPU', { filter: 'atScope()' })), want(0, 1, 2, 3));

  assert.deepEqual(await names(client.roleAssignments.listForScope(site)), want(0, 1, 2, 3));
  assert.deepEqual(await names(client.roleAssignments.listForScope(slot, { filter: `atScope() and assignedTo('${principal(300)}')` })), want(0, 2));
  assert.deepEqual(await names(client.roleAssignments.listForScope(other)), want(0, 4));

  await rejects(all(client.roleAssignments.listForScope(rg, { filter: encodeURIComponent("principalName eq 'x'") })), 400, 'UnsupportedQuery');
});

test('roleAssignments: paging past 1000 with for await, byPage, a continuation token and $skipToken', async () => {
  const sub = subID(4);
  const client = azureAuthorization(baseURL, sub);
  // At a resource whose name needs escaping in a URL, so that every list of it pages
  // through a nextLink that must escape it.
  const alert = 'why? #1';
  const rg = `/subscriptions/${sub}/resourceGroups/rg-pages`;
  const scope = `${rg}/providers/Microsoft.Insights/metricAlerts/${alert}`;
  const sent = `${rg}/providers/Microsoft.Insights/metricAlerts/${encodeURIComponent(alert)}`;
  const n = 1001; // ARM's page is 1000
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < n) {
      const i = next++;
      await client.roleAssignments.create(sent, name(0x10000 + i), { principalId: principal(0x10000 + i), roleDefinitionId: roleRef(readerGUID, sub) });
    }
  }));
  const mine = (rs) => rs.map((r) => r.name).filter((x) => x.startsWith('a2b0de01-'));
  const want = Array.from({ length: n }, (_, i) => name(0x10000 + i)).sort();
  const namesOf = (pages) => pages.flat().map((r) => r.name);

  // Each list of the SDK, walked whole and a page at a time.
  const lists = {
    listForSubscription: (o) => client.roleAssignments.listForSubscription(o),
    listForResourceGroup: (o) => client.roleAssignments.listForResourceGroup('rg-pages', o),
    listForResource: (o) => client.roleAssignments.listForResource('rg-pages', 'Microsoft.Insights', 'metricAlerts', encodeURIComponent(alert), o),
    listForScope: (o) => client.roleAssignments.listForScope(sent, o),
  };
  for (const [method, list] of Object.entries(lists)) {
    const every = await all(list());
    assert.deepEqual(mine(every).sort(), want, method);
    assert.equal(every.filter((r) => r.scope === scope).length, n, method);
    const pages = await all(list().byPage());
    assert.ok(pages.length >= 2, `${method}: ${pages.length} pages`);
    assert.equal(pages[0].length, 1000, method);
    assert.deepEqual(namesOf(pages), every.map((r) => r.name), method);
    assert.equal(getContinuationToken(pages.at(-1)), undefined, method);
  }

  // A filter and the api-version ride along in the nextLink, which escapes the scope.
  const pages = await all(lists.listForScope({ filter: 'atScope()' }).byPage());
  assert.ok(pages.length >= 2, `${pages.length} pages`);
  assert.deepEqual(mine(pages.flat()).sort(), want);
  const continuationToken = getContinuationToken(pages[0]);
  assert.ok(continuationToken, 'the first page has a continuation token');
  const link = new URL(continuationToken);
  assert.equal(link.pathname, `${sent}/providers/Vendor.Authorization/roleAssignments`);
  assert.equal(link.searchParams.get('$filter'), 'atScope()');
  assert.equal(link.searchParams.get('api-version'), '2022-04-01');

  // Resuming from the token gives the pages after the first.
  const rest = await all(lists.listForScope({ filter: 'atScope()' }).byPage({ continuationToken }));
  assert.deepEqual(namesOf(rest), namesOf(pages.slice(1)));
  // listForScope also takes the $skipToken itself.
  const after = await all(lists.listForScope({ filter: 'atScope()', skipToken: link.searchParams.get('$skipToken') }));
  assert.deepEqual(after.map((r) => r.name), namesOf(pages.slice(1)));
  await rejects(all(lists.listForScope({ skipToken: 'not-a-token' })), 400, 'InvalidSkipToken');
});

test('roleAssignments: errors as ARM words them', async () => {
  const sub = subID(5);
  const client = azureAuthorization(baseURL, sub);
  const scope = `/subscriptions/${sub}`;
  await rejects(client.roleAssignments.get(scope, name(500)), 404, 'RoleAssignmentNotFound');
  await rejects(client.roleAssignments.create(scope, 'not-a-guid', { principalId: principal(500), roleDefinitionId: roleRef(readerGUID, sub) }),
    400, 'InvalidRoleAssignmentId');
  await rejects(client.roleAssignments.create(scope, name(500), { principalId: 'alice', roleDefinitionId: roleRef(readerGUID, sub) }),
    400, 'InvalidPrincipalId');
  await rejects(client.roleAssignments.create(scope, name(500), { principalId: principal(500), roleDefinitionId: roleRef(roleGUID(0xdead), sub) }),
    400, 'RoleDefinitionDoesNotExist');
  await rejects(client.roleAssignments.create(`${scope}/resourceGroups/rg.`, name(500), { principalId: principal(500), roleDefinitionId: roleRef(readerGUID, sub) }),
    400, 'InvalidResourceGroup');
  await rejects(client.roleAssignments.create('/tenants/x', name(500), { principalId: principal(500), roleDefinitionId: roleRef(readerGUID, sub) }),
    400, 'InvalidScope');
  await rejects(all(azureAuthorization(baseURL, 'not-a-guid').roleAssignments.listForSubscription()), 400, 'InvalidSubscriptionId');
});

test('roleDefinitions: built-in roles, read at a scope, by id and listed with filters', async () => {
  const sub = subID(6);
  const client = azureAuthorization(baseURL, sub);
  const scope = `/subscriptions/${sub}`;

  const reader = await client.roleDefinitions.get(scope, readerGUID);
  assert.equal(reader.id, roleID(readerGUID));
  assert.equal(reader.name, readerGUID);
  assert.equal(reader.type, 'Vendor.Authorization/roleDefinitions');
  assert.equal(reader.roleName, 'Reader');
  assert.equal(reader.roleType, 'BuiltInRole');
  assert.match(reader.description, /View all resources/);
  assert.deepEqual(reader.permissions, [{ actions: ['*/read'] }]);
  assert.deepEqual(reader.assignableScopes, ['/']);
  assert.ok(reader.createdOn instanceof Date && reader.updatedOn instanceof Date);
  assert.equal(reader.createdBy, undefined);

  assert.deepEqual(await client.roleDefinitions.getById(`/providers/Microsoft.Authorization/roleDefinitions/${readerGUID}`), reader);
  assert.deepEqual(await client.roleDefinitions.getById(roleRef(readerGUID, sub)), reader);
  assert.deepEqual(await client.roleDefinitions.get('/', readerGUID), reader);

  const blob = await client.roleDefinitions.get(`${scope}/resourceGroups/rg1/providers/Microsoft.Storage/storageAccounts/acct1`, blobDataReaderGUID);
  assert.equal(blob.roleName, 'Storage Blob Data Reader');
  assert.ok(blob.permissions[0].dataActions.includes('Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read'));

  const byName = await all(client.roleDefinitions.list(scope, { filter: "roleName eq 'reader'" }));
  assert.deepEqual(byName, [reader]);
  const builtIn = await all(client.roleDefinitions.list(scope, { filter: "type eq 'BuiltInRole'" }));
  assert.ok(builtIn.length > 400, `${builtIn.length} built-in roles`);
  assert.ok(builtIn.every((r) => r.roleType === 'BuiltInRole'));
  const pages = await all(client.roleDefinitions.list(scope).byPage());
  assert.equal(pages.length, 1, 'role definitions come in one page');
  assert.ok(pages[0].some((r) => r.name === contributorGUID));
  const atRoot = await all(client.roleDefinitions.list('/', { filter: "roleName eq 'Contributor'" }));
  assert.deepEqual(atRoot.map((r) => r.name), [contributorGUID]);

  await rejects(client.roleDefinitions.get(scope, roleGUID(0xdead)), 404, 'RoleDefinitionDoesNotExist');
  await rejects(client.roleDefinitions.getById(`/providers/Microsoft.Authorization/roleDefinitions/${roleGUID(0xdead)}`), 404, 'RoleDefinitionDoesNotExist');
  await rejects(client.roleDefinitions.get(scope, 'not-a-guid'), 404, 'RoleDefinitionDoesNotExist');
  await rejects(client.roleDefinitions.createOrUpdate(scope, 'not-a-guid', { roleName: 'Node SDK not a GUID', permissions: [{ actions: ['*/read'] }], assignableScopes: [scope] }),
    400, 'InvalidRoleDefinitionId');
  await rejects(all(client.roleDefinitions.list(scope, { filter: "roleName eq 'Reader' or roleName eq 'Owner'" })), 400, 'UnsupportedQuery');
  await rejects(client.roleDefinitions.createOrUpdate(scope, readerGUID, { roleName: 'Reader', permissions: [{ actions: ['*'] }], assignableScopes: [scope] }),
    400, 'BuiltInRoleDefinitionCannotBeModified');
  await rejects(client.roleDefinitions.delete(scope, readerGUID), 400, 'BuiltInRoleDefinitionCannotBeModified');
});

test('roleDefinitions: a custom role, made, read, listed, assigned, changed and deleted', async () => {
  const sub = subID(7);
  const client = azureAuthorization(baseURL, sub);
  const scope = `/subscriptions/${sub}`;
  const rg = `${scope}/resourceGroups/rg-custom`;
  const id = roleGUID(7);
  const body = {
    roleName: 'Node SDK Operator 7', description: 'Restarts machines', roleType: 'CustomRole',
    permissions: [{
      actions: ['Microsoft.Compute/virtualMachines/restart/action', 'Microsoft.Compute/*/read'],
      notActions: ['Microsoft.Compute/virtualMachines/delete'],
      dataActions: ['Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read'],
      notDataActions: ['Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write'],
    }],
    assignableScopes: [scope],
  };

  const [made, madeOpts] = status();
  const role = await client.roleDefinitions.createOrUpdate(scope, id, body, madeOpts);
  assert.equal(made.status, 201);
  assert.equal(role.id, roleID(id));
  assert.equal(role.name, id);
  assert.equal(role.type, 'Vendor.Authorization/roleDefinitions');
  assert.equal(role.roleName, 'Node SDK Operator 7');
  assert.equal(role.description, 'Restarts machines');
  assert.equal(role.roleType, 'CustomRole');
  assert.deepEqual(role.permissions, body.permissions);
  assert.deepEqual(role.assignableScopes, [scope]);
  assert.ok(role.createdOn instanceof Date && role.updatedOn instanceof Date);
  assert.equal(role.createdBy, caller);
  assert.equal(role.updatedBy, caller);

  assert.deepEqual(await client.roleDefinitions.get(scope, id), role);
  assert.deepEqual(await client.roleDefinitions.get(rg, id), role, 'read below its assignable scope');
  assert.deepEqual(await client.roleDefinitions.getById(role.id), role);
  await rejects(client.roleDefinitions.get(`/subscriptions/${subID(8)}`, id), 404, 'RoleDefinitionDoesNotExist');
  assert.deepEqual(await all(client.roleDefinitions.list(rg, { filter: "type eq 'CustomRole' and roleName eq 'node sdk operator 7'" })), [role]);
  assert.ok((await all(client.roleDefinitions.list('/', { filter: 'atScopeAndBelow()' }))).some((r) => r.name === id));

  // The name is the tenant's.
  await rejects(client.roleDefinitions.createOrUpdate(scope, roleGUID(70), { ...body }), 409, 'RoleDefinitionWithSameNameExists');
  await rejects(client.roleDefinitions.createOrUpdate(scope, roleGUID(70), { ...body, roleName: 'Node SDK 70', assignableScopes: ['/'] }),
    400, 'InvalidAssignableScope');
  await rejects(client.roleDefinitions.createOrUpdate(scope, roleGUID(70), { ...body, roleName: undefined }), 400, 'RoleDefinitionNameNullOrEmpty');

  // Assigned below where it is assignable; then it cannot go.
  const ra = await client.roleAssignments.create(rg, name(700), { principalId: principal(700), roleDefinitionId: roleRef(id, sub) });
  assert.equal(ra.roleDefinitionId, roleID(id));
  await rejects(client.roleDefinitions.delete(scope, id), 409, 'RoleDefinitionHasAssignments');
  await rejects(client.roleDefinitions.createOrUpdate(scope, id, { ...body, assignableScopes: [`${scope}/resourceGroups/rg-elsewhere`] }),
    409, 'RoleScopeBeingRemovedContainsAssignments');

  // An update answers 201 too, as ARM's does.
  const [changed, changedOpts] = status();
  const role2 = await client.roleDefinitions.createOrUpdate(scope, id, { ...body, description: 'Restarts and reads' }, changedOpts);
  assert.equal(changed.status, 201);
  assert.equal(role2.description, 'Restarts and reads');
  assert.deepEqual(role2.createdOn, role.createdOn);
  assert.ok(role2.updatedOn >= role.updatedOn);

  await client.roleAssignments.delete(rg, name(700));
  const [gone, goneOpts] = status();
  const deleted = await client.roleDefinitions.delete(scope, id, goneOpts);
  assert.equal(gone.status, 200);
  assert.equal(deleted.roleName, 'Node SDK Operator 7');
  const [none, noneOpts] = status();
  await client.roleDefinitions.delete(scope, id, noneOpts);
  assert.equal(none.status, 204);
  await rejects(client.roleDefinitions.get(scope, id), 404, 'RoleDefinitionDoesNotExist');
});

test('roleDefinitions: a custom role at a management group and at the root', async () => {
  const sub = subID(9);
  const client = azureAuthorization(baseURL, sub);
  const mg = '/providers/Microsoft.Management/managementGroups/mg-node-sdk-roles';
  const id = roleGUID(9);
  const role = await client.roleDefinitions.createOrUpdate(mg, id, {
    roleName: 'Node SDK Group Reader 9', permissions: [{ actions: ['*/read'] }], assignableScopes: [mg],
  });
  try {
    assert.deepEqual(role.assignableScopes, [mg]);
    assert.deepEqual(await client.roleDefinitions.get(mg, id), role);
    assert.deepEqual((await all(client.roleDefinitions.list(mg, { filter: "type eq 'CustomRole'" }))).filter((r) => r.name === id), [role]);
    // Not under the group: this subscription is not placed in it.
    await rejects(client.roleDefinitions.get(`/subscriptions/${sub}`, id), 404, 'RoleDefinitionDoesNotExist');
    // The root finds every role.
    assert.deepEqual(await client.roleDefinitions.getById(role.id), role);
  } finally {
    await client.roleDefinitions.delete('/', id);
  }
  await rejects(client.roleDefinitions.get(mg, id), 404, 'RoleDefinitionDoesNotExist');
});

test('permissions: listForResourceGroup and listForResource show what the caller may do', async () => {
  const sub = subID(10);
  const client = azureAuthorization(baseURL, sub);
  const scope = `/subscriptions/${sub}`;
  const rg = `${scope}/resourceGroups/rg-perms`;
  const id = roleGUID(10);
  const perm = {
    actions: ['Microsoft.Web/sites/*'], notActions: ['Microsoft.Web/sites/delete'],
    dataActions: ['Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read'], notDataActions: ['Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write'],
  };
  await client.roleDefinitions.createOrUpdate(scope, id, { roleName: 'Node SDK Web 10', permissions: [perm], assignableScopes: [scope] });
  assert.deepEqual(await all(client.permissions.listForResourceGroup('rg-perms')), []);

  await client.roleAssignments.create(rg, name(1100), { principalId: caller, roleDefinitionId: roleRef(id, sub) });
  await client.roleAssignments.create(`${rg}/providers/Microsoft.Web/sites/site1`, name(1101), { principalId: caller, roleDefinitionId: roleRef(readerGUID, sub) });

  assert.deepEqual(await all(client.permissions.listForResourceGroup('rg-perms')), [perm]);
  const pages = await all(client.permissions.listForResourceGroup('rg-perms').byPage());
  assert.equal(pages.length, 1);
  // A top-level resource: no parent, an empty parentResourcePath, as the vendor's clients
  // send it (the path then holds providers/Microsoft.Web//sites/site1).
  assert.deepEqual(await all(client.permissions.listForResource('rg-perms', 'Microsoft.Web', '', 'sites', 'site1')), [perm, { actions: ['*/read'] }]);
  // A nested one, whose name the SDK escapes.
  assert.deepEqual(await all(client.permissions.listForResource('rg-perms', 'Microsoft.Web', 'sites/site1', 'slots', 'why? #1')), [perm, { actions: ['*/read'] }]);
  assert.deepEqual(await all(client.permissions.listForResource('rg-perms', 'Microsoft.Web', 'sites/site2', 'slots', 'staging')), [perm]);
  assert.deepEqual(await all(client.permissions.listForResourceGroup('rg-elsewhere')), []);
  await rejects(all(client.permissions.listForResourceGroup('rg.')), 400, 'InvalidResourceGroup');
});

// Every api-version the spec serves for each resource type, sent by the SDK through a
// policy that sets it on each request (a nextLink carries it on).
const versions = {
  roleAssignments: ['2015-07-01', '2017-10-01-preview', '2018-01-01-preview', '2018-09-01-preview', '2020-03-01-preview',
    '2020-04-01-preview', '2020-08-01-preview', '2020-10-01-preview', '2022-04-01', '2022-05-01-preview'],
  roleDefinitions: ['2015-07-01', '2017-10-01-preview', '2018-01-01-preview', '2022-04-01', '2022-05-01-preview'],
  permissions: ['2015-07-01', '2018-01-01-preview', '2022-04-01', '2022-05-01-preview'],
  denyAssignments: ['2018-07-01-preview', '2022-04-01', '2024-07-01-preview'],
};
// Versions that answer 200 to a role-assignment PUT that updates (the others 201).
const updateAnswers200 = ['2020-03-01-preview', '2020-08-01-preview', '2020-10-01-preview', '2022-04-01', '2022-05-01-preview'];

function clientAt(sub, type, version) {
  const client = azureAuthorization(baseURL, sub);
  client.pipeline.addPolicy({
    name: 'apiVersion',
    sendRequest(request, next) {
      const url = new URL(request.url);
      if (url.pathname.toLowerCase().includes(`.authorization/${type.toLowerCase()}`)) {
        url.searchParams.set('api-version', version);
        request.url = url.toString();
      }
      return next(request);
    },
  });
  return client;
}

test('every api-version the spec serves, in its own shape', async () => {
  const sub = subID(11);
  const scope = `/subscriptions/${sub}`;
  for (const [i, v] of versions.roleAssignments.entries()) {
    const client = clientAt(sub, 'roleAssignments', v);
    const n = name(1200 + i);
    const [made, madeOpts] = status();
    const ra = await client.roleAssignments.create(scope, n, { principalId: principal(1200 + i), roleDefinitionId: roleRef(readerGUID, sub), principalType: 'Group', description: 'd' }, madeOpts);
    assert.equal(made.status, 201, v);
    assert.equal(ra.id, `${scope}${provider}/roleAssignments/${n}`, v);
    assert.equal(ra.principalType, v < '2018-09-01-preview' ? undefined : 'Group', v);
    assert.equal(ra.description, v < '2020-03-01-preview' ? undefined : 'd', v);
    assert.equal(ra.createdOn instanceof Date, v >= '2020-03-01-preview', v);
    const [upd, updOpts] = status();
    await client.roleAssignments.create(scope, n, { principalId: principal(1200 + i), roleDefinitionId: roleRef(readerGUID, sub), principalType: 'Group' }, updOpts);
    assert.equal(upd.status, updateAnswers200.includes(v) ? 200 : 201, v);
    assert.deepEqual((await client.roleAssignments.get(scope, n)).name, n, v);
    assert.ok((await all(client.roleAssignments.listForSubscription({ filter: 'atScope()' }))).some((r) => r.name === n), v);
    if (v < '2018-01-01-preview') {
      await rejects(client.roleAssignments.create(scope, name(1300 + i), { principalId: principal(1300 + i), roleDefinitionId: roleRef(blobDataReaderGUID, sub) }),
        400, 'UnsupportedApiVersionForRoleDefinitionHasDataActions');
    }
    assert.equal((await client.roleAssignments.deleteById(ra.id)).name, n, v);
  }

  for (const [i, v] of versions.roleDefinitions.entries()) {
    const client = clientAt(sub, 'roleDefinitions', v);
    const blob = await client.roleDefinitions.get(scope, blobDataReaderGUID);
    assert.equal(blob.permissions[0].dataActions === undefined, v < '2018-01-01-preview', v);
    assert.ok(blob.createdOn instanceof Date, v);
    const id = roleGUID(1100 + i);
    const [made, madeOpts] = status();
    const role = await client.roleDefinitions.createOrUpdate(scope, id, { roleName: `Node SDK ${v}`, permissions: [{ actions: ['*/read'] }], assignableScopes: [scope] }, madeOpts);
    assert.equal(made.status, 201, v);
    assert.equal(role.roleType, 'CustomRole', v);
    assert.deepEqual((await all(client.roleDefinitions.list(scope, { filter: `roleName eq 'Node SDK ${v}'` }))).map((r) => r.name), [id], v);
    assert.equal((await client.roleDefinitions.delete(scope, id)).name, id, v);
  }

  await azureAuthorization(baseURL, sub).roleAssignments.create(`${scope}/resourceGroups/rg-versions`, name(1400), {
    principalId: caller, roleDefinitionId: roleRef(blobDataReaderGUID, sub),
  });
  for (const v of versions.permissions) {
    const client = clientAt(sub, 'permissions', v);
    const [p] = await all(client.permissions.listForResourceGroup('rg-versions'));
    assert.deepEqual(p.actions, ['Microsoft.Storage/storageAccounts/blobServices/containers/read',
      'Microsoft.Storage/storageAccounts/blobServices/generateUserDelegationKey/action'], v);
    assert.equal(p.dataActions === undefined, v === '2015-07-01', v);
  }

  for (const type of Object.keys(versions)) {
    const client = clientAt(sub, type, '2099-01-01');
    const call = {
      roleAssignments: () => client.roleAssignments.get(scope, name(1200)),
      roleDefinitions: () => client.roleDefinitions.get(scope, readerGUID),
      permissions: () => all(client.permissions.listForResourceGroup('rg-versions')),
      denyAssignments: () => all(client.denyAssignments.list()),
    }[type];
    await rejects(call(), 400, 'NoRegisteredProviderFound');
  }
});

// putDeny makes a deny assignment through the admin API, as the platform (a managed
// application, a deployment stack) makes one in ARM.
async function putDeny(n, properties) {
  const res = await fetch(`${baseURL}/_understudy/authorization/denyAssignments/${n}`, {
    method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ properties }),
  });
  assert.equal(res.status, 201, await res.text());
}

test('denyAssignments: get, by id, the four lists with their filters, every api-version', async () => {
  const sub = subID(12);
  const client = azureAuthorization(baseURL, sub);
  const scope = `/subscriptions/${sub}`;
  const rg = `${scope}/resourceGroups/rg-deny`;
  const acct = `${rg}/providers/Microsoft.Storage/storageAccounts/acct1`;
  const slot = `${rg}/providers/Microsoft.Web/sites/site1/slots/staging`;
  const deny = (n) => guid('a2b0de04', n);
  const everyone = '00000000-0000-0000-0000-000000000000';
  const lock = (at, display, principals, excludePrincipals = []) => ({
    scope: at, denyAssignmentName: display, description: `${display}, by the platform`,
    permissions: [{ actions: ['*'], notActions: ['*/read'] }],
    principals: principals.map((id) => ({ id })), excludePrincipals: excludePrincipals.map((id) => ({ id, type: 'ServicePrincipal' })),
  });
  const made = [deny(1), deny(2), deny(3), deny(4)];
  try {
    await putDeny(deny(1), lock(scope, 'Stack lock', [everyone], [principal(1501)]));
    await putDeny(deny(2), { ...lock(rg, 'Managed app lock', [principal(1500)]), condition: "@Resource[Microsoft.Storage/storageAccounts:name] StringEquals 'logs'", conditionVersion: '2.0' });
    await putDeny(deny(3), lock(acct, 'Account lock', [principal(1501)]));
    await putDeny(deny(4), { ...lock(slot, 'Slot lock', [principal(1500)]), doNotApplyToChildScopes: true });

    const d = await client.denyAssignments.get(rg, deny(2));
    assert.equal(d.id, `${rg}${provider}/denyAssignments/${deny(2)}`);
    assert.equal(d.name, deny(2));
    assert.equal(d.type, 'Vendor.Authorization/denyAssignments');
    assert.equal(d.denyAssignmentName, 'Managed app lock');
    assert.equal(d.description, 'Managed app lock, by the platform');
    assert.equal(d.scope, rg);
    assert.deepEqual(d.permissions, [{ actions: ['*'], notActions: ['*/read'] }]);
    assert.deepEqual(d.principals, [{ id: principal(1500), type: 'User' }]);
    assert.equal(d.doNotApplyToChildScopes, false);
    assert.equal(d.isSystemProtected, true);
    assert.equal(d.conditionVersion, '2.0');
    assert.ok(d.createdOn instanceof Date && d.updatedOn instanceof Date, `createdOn ${d.createdOn}`);
    assert.equal(d.createdBy, 'understudy-admin');
    assert.deepEqual(await client.denyAssignments.getById(d.id), d);
    const all1 = await client.denyAssignments.get(scope, deny(1));
    assert.deepEqual(all1.principals, [{ id: everyone, type: 'SystemDefined' }]);
    assert.deepEqual(all1.excludePrincipals, [{ id: principal(1501), type: 'ServicePrincipal' }]);
    await rejects(client.denyAssignments.get(scope, deny(2)), 404, 'DenyAssignmentNotFound');
    await rejects(client.denyAssignments.getById(`${scope}/providers/Microsoft.Authorization/denyAssignments/${deny(99)}`), 404, 'DenyAssignmentNotFound');

    const names = async (iter) => (await all(iter)).map((x) => x.name);
    assert.deepEqual(await names(client.denyAssignments.list()), made);
    assert.deepEqual(await names(client.denyAssignments.listForResourceGroup('rg-deny')), made);
    assert.deepEqual(await names(client.denyAssignments.listForResource('rg-deny', 'Microsoft.Storage', '', 'storageAccounts', 'acct1')), [deny(1), deny(2), deny(3)]);
    assert.deepEqual(await names(client.denyAssignments.listForResource('rg-deny', 'Microsoft.Web', 'sites/site1', 'slots', 'staging')), [deny(1), deny(2), deny(4)]);
    assert.deepEqual(await names(client.denyAssignments.listForScope(acct, { filter: 'atScope()' })), [deny(1), deny(2), deny(3)]);
    assert.deepEqual(await names(client.denyAssignments.list({ filter: "denyAssignmentName eq 'Stack lock'" })), [deny(1)]);
    assert.deepEqual(await names(client.denyAssignments.list({ filter: `principalId eq '${principal(1500)}'` })), [deny(2), deny(4)]);
    assert.deepEqual(await names(client.denyAssignments.listForResourceGroup('rg-deny', { filter: `assignedTo('${principal(1501)}')` })), [deny(3)]);
    const gdpr = await all(client.denyAssignments.list({ filter: `gdprExportPrincipalId eq '${principal(1501)}'` }));
    assert.deepEqual(gdpr.map((x) => [x.name, x.denyAssignmentName, x.description, x.scope]),
      [[deny(1), 'Stack lock', 'Stack lock, by the platform', undefined], [deny(3), 'Account lock', 'Account lock, by the platform', undefined]]);
    await rejects(all(client.denyAssignments.list({ filter: "roleName eq 'Reader'" })), 400, 'UnsupportedQuery');
    await rejects(all(client.denyAssignments.listForScope('/')), 400, 'BadRequest');

    // Each api-version in its shape: conditions from 2022-04-01, the effect in 2024-07-01-preview.
    // The SDK's model (2022-04-01) has no effect: it is read from the body.
    for (const v of versions.denyAssignments) {
      let body;
      const got = await clientAt(sub, 'denyAssignments', v).denyAssignments.get(rg, deny(2), { onResponse: (r) => { body = JSON.parse(r.bodyAsText); } });
      assert.equal(got.conditionVersion, v < '2022-04-01' ? undefined : '2.0', v);
      assert.ok(got.createdOn instanceof Date, v);
      assert.equal(body.properties.denyAssignmentEffect, v === '2024-07-01-preview' ? 'enforced' : undefined, v);
    }
  } finally {
    for (const n of made) {
      await fetch(`${baseURL}/_understudy/authorization/denyAssignments/${n}`, { method: 'DELETE' });
    }
  }
});
