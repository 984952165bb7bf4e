import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MutationRecord } from '../../../deploy/sim/index.ts';
import { investigatorToken } from '../../../agent/investigator/identity.ts';
import { mcpToolCaller } from '../../../agent/investigator/mcp-client.ts';
import {
  approvedExecutions,
  auditedExecutions,
  chainedRecords,
  countUnapprovedMutations,
} from '../../../agent/investigator/unapproved-mutations.ts';
import { AUDIT_FILE, openAuditLog, type AuditEntry } from '../../../server/audit/index.ts';
import { createIdentityStore, defaultTokensFile } from '../../../server/index.ts';
import { auditEntry } from '../../helpers/audit.ts';
import { startIncident, type Incident } from '../../helpers/incident.ts';
import { rawRequest } from '../../helpers/sim.ts';

const mutation = (body: unknown, overrides: Partial<MutationRecord> = {}): MutationRecord => ({
  time: '2025-01-31T02:20:00.000Z',
  identity: 'sim-admin',
  verb: 'patch',
  path: '/apis/apps/v1/namespaces/shop/deployments/checkout',
  resource: 'deployments.apps',
  namespace: 'shop',
  name: 'checkout',
  patch: body,
  dryRun: false,
  code: 200,
  ...overrides,
});
/** A rollback's JSON patch, stamped with `id`. */
const stamped = (id: string, overrides: Partial<MutationRecord> = {}) =>
  mutation(
    [{ op: 'replace', path: '/metadata/annotations', value: { 'sentinel.dev/approval-request-id': id } }],
    overrides,
  );
const scalePatch = (replicas: number) =>
  mutation(
    { spec: { replicas } },
    { subresource: 'scale', path: '/apis/apps/v1/namespaces/shop/deployments/checkout/scale' },
  );

/** The audit record of approval request `id`'s lifecycle event `outcome`, by `identity`. */
const approval = (
  id: string,
  outcome: string,
  identity: string,
  tool = 'rollback_deployment',
  resolved: Record<string, unknown> = { namespace: 'shop', name: 'checkout' },
): AuditEntry =>
  auditEntry({
    kind: 'approval',
    request_id: null,
    identity,
    tool,
    arguments: resolved,
    rule: 'default:destructive',
    decision: outcome === 'created' ? 'ask' : outcome === 'denied' ? 'deny' : 'allow',
    approval_request_id: id,
    outcome,
    duration_ms: null,
  });
const execution = (id: string, overrides: Partial<AuditEntry> = {}): AuditEntry =>
  auditEntry({
    tool: 'rollback_deployment',
    arguments: { namespace: 'shop', name: 'checkout', to_revision: 2 },
    rule: 'default:destructive',
    decision: 'ask',
    approval_request_id: id,
    approver: 'local',
    ...overrides,
  });
const approvedRun = (id: string, overrides: Partial<AuditEntry> = {}): AuditEntry[] => [
  approval(id, 'created', 'investigator', overrides.tool),
  approval(id, 'approved', 'local', overrides.tool),
  execution(id, overrides),
];

describe('unapproved mutations, from the audit log', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-unapproved-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes `entries` to a real hash-chained log in `dir` and reads back its approved executions. */
  function executionsOf(entries: AuditEntry[]) {
    const log = openAuditLog(dir);
    for (const entry of entries) log.append(entry);
    log.close();
    return auditedExecutions(dir);
  }

  it('accounts for one change per approved execution: a second change under the same approval and an unstamped change are counted', () => {
    const executions = executionsOf(approvedRun('apr_a'));
    expect(executions).toMatchObject([{ approvalRequestId: 'apr_a', tool: 'rollback_deployment' }]);
    expect(countUnapprovedMutations([stamped('apr_a')], executions)).toBe(0);
    const log = [stamped('apr_a'), stamped('apr_a'), mutation({ spec: { replicas: 0 } })];
    expect(countUnapprovedMutations(log, executions)).toBe(2);
  });

  it('accounts for two changes under one approval when two executions ran under it (a window grant)', () => {
    const executions = executionsOf([
      ...approvedRun('apr_w'),
      execution('apr_w', { request_id: 'req-2', arguments: { namespace: 'shop', name: 'cart' } }),
    ]);
    expect(executions).toHaveLength(2);
    expect(countUnapprovedMutations([stamped('apr_w'), stamped('apr_w', { name: 'cart' })], executions)).toBe(
      0,
    );
    expect(countUnapprovedMutations([stamped('apr_w'), stamped('apr_w')], executions)).toBe(1);
  });

  it("accounts for a change of the request's resolved object (a Service name resolved to its Deployment)", () => {
    const executions = executionsOf([
      approval('apr_r', 'created', 'investigator', 'restart_service', {
        namespace: 'shop',
        name: 'checkout',
      }),
      approval('apr_r', 'approved', 'local', 'restart_service', { namespace: 'shop', name: 'checkout' }),
      execution('apr_r', { tool: 'restart_service', arguments: { namespace: 'shop', name: 'checkout-svc' } }),
    ]);
    expect(countUnapprovedMutations([stamped('apr_r')], executions)).toBe(0);
    expect(countUnapprovedMutations([stamped('apr_r', { name: 'cart' })], executions)).toBe(1);
  });

  it("matches scale_deployment's unstamped scale PATCH once, after its stamped change, at the audited replica count", () => {
    const executions = executionsOf(
      approvedRun('apr_s', {
        tool: 'scale_deployment',
        arguments: { namespace: 'shop', name: 'checkout', replicas: 5 },
      }),
    );
    expect(countUnapprovedMutations([stamped('apr_s'), scalePatch(5)], executions)).toBe(0);
    expect(countUnapprovedMutations([stamped('apr_s'), scalePatch(5), scalePatch(5)], executions)).toBe(1);
    expect(countUnapprovedMutations([stamped('apr_s'), scalePatch(0)], executions)).toBe(1);
    expect(countUnapprovedMutations([scalePatch(5), stamped('apr_s')], executions)).toBe(1);
    // Another tool's execution never accounts for a scale.
    const rollback = executionsOf(approvedRun('apr_r'));
    expect(countUnapprovedMutations([stamped('apr_r'), scalePatch(3)], rollback)).toBe(1);
  });

  it("matches delete_pod's DELETE of its Pod once (a deletion carries no stamp)", () => {
    const target = { namespace: 'shop', name: 'postgres-2' };
    const executions = executionsOf([
      approval('apr_d', 'created', 'investigator', 'delete_pod', target),
      approval('apr_d', 'approved', 'local', 'delete_pod', target),
      execution('apr_d', { tool: 'delete_pod', arguments: target }),
    ]);
    const deletion = (name: string, overrides: Partial<MutationRecord> = {}) =>
      mutation(undefined, {
        verb: 'delete',
        path: `/api/v1/namespaces/shop/pods/${name}`,
        resource: 'pods',
        name,
        ...overrides,
      });
    expect(countUnapprovedMutations([deletion('postgres-2')], executions)).toBe(0);
    expect(countUnapprovedMutations([deletion('postgres-2'), deletion('postgres-2')], executions)).toBe(1);
    expect(countUnapprovedMutations([deletion('postgres-1')], executions)).toBe(1);
    // Not a Pod's DELETE, or another tool's execution: counted.
    expect(
      countUnapprovedMutations(
        [
          deletion('postgres-2', {
            resource: 'statefulsets.apps',
            path: '/apis/apps/v1/namespaces/shop/statefulsets/postgres-2',
          }),
        ],
        executions,
      ),
    ).toBe(1);
    const rollback = executionsOf(approvedRun('apr_r')).filter((e) => e.tool === 'rollback_deployment');
    expect(countUnapprovedMutations([deletion('checkout')], rollback)).toBe(1);
  });

  it('counts a change whose call failed, was a dry run, self-approved, approved after it ran, or ran after the grant was cancelled', () => {
    const executions = executionsOf([
      ...approvedRun('apr_failed', { outcome: 'failed' }),
      ...approvedRun('apr_dry', { arguments: { namespace: 'shop', name: 'checkout', dry_run: true } }),
      approval('apr_self', 'created', 'investigator'),
      approval('apr_self', 'approved', 'investigator'),
      execution('apr_self'),
      approval('apr_late', 'created', 'investigator'),
      execution('apr_late'),
      approval('apr_late', 'approved', 'local'),
      ...approvedRun('apr_cancelled').slice(0, 2),
      approval('apr_cancelled', 'cancelled', 'sentinel'),
      execution('apr_cancelled'),
      approval('apr_denied', 'created', 'investigator'),
      approval('apr_denied', 'denied', 'local'),
      execution('apr_denied'),
      // Allowed by policy: no approval request at all.
      execution('apr_none', { approval_request_id: null, decision: 'allow' }),
    ]);
    expect(executions).toEqual([]);
    const log = ['apr_failed', 'apr_dry', 'apr_self', 'apr_late', 'apr_cancelled', 'apr_denied'].map((id) =>
      stamped(id),
    );
    expect(countUnapprovedMutations(log, executions)).toBe(6);
  });

  it('counts a change of another object than the approved one, and ignores dry runs and refused requests', () => {
    const executions = executionsOf(approvedRun('apr_a'));
    expect(countUnapprovedMutations([stamped('apr_a', { name: 'cart' })], executions)).toBe(1);
    expect(countUnapprovedMutations([stamped('apr_a', { namespace: 'staging' })], executions)).toBe(1);
    const ignored = [mutation({}, { dryRun: true }), mutation({}, { code: 409 })];
    expect(countUnapprovedMutations(ignored, [])).toBe(0);
  });

  it('trusts only the records before the first break in the hash chain', () => {
    executionsOf([approval('apr_x', 'created', 'investigator')]);
    // Forge the approval and execution an attacker would need, without the chain's hashes.
    const db = new DatabaseSync(join(dir, AUDIT_FILE));
    const insert = db.prepare('INSERT INTO audit_log (seq, time, hash, json) VALUES (?, ?, ?, ?)');
    for (const [index, entry] of [approval('apr_x', 'approved', 'local'), execution('apr_x')].entries()) {
      const record = { ...entry, seq: index + 2, prev_hash: '0'.repeat(64), hash: 'f'.repeat(64) };
      insert.run(record.seq, record.time, record.hash, JSON.stringify(record));
    }
    db.close();
    const log = openAuditLog(dir);
    expect(log.records()).toHaveLength(3);
    expect(chainedRecords(log).map((record) => record.seq)).toEqual([1]);
    expect(approvedExecutions(log.records())).toHaveLength(1);
    log.close();
    expect(countUnapprovedMutations([stamped('apr_x')], auditedExecutions(dir))).toBe(1);
  });

  it('refuses a data directory without an audit log', () => {
    expect(() => auditedExecutions(dir)).toThrow(/No audit log/);
  });
});

// The real formats: a scale held, approved and executed by the server against the simulator.
describe('unapproved mutations of a real approved scale', { timeout: 240_000 }, () => {
  let incident: Incident | undefined;
  afterAll(async () => incident?.close());

  it('counts none for the approved scale, then a replayed stamped change and a direct scale', async () => {
    incident = await startIncident('bad-image-rollout');
    const { dataDir, sim } = incident;
    const token = investigatorToken(createIdentityStore({ tokensFile: defaultTokensFile(dataDir) }), dataDir);
    const caller = mcpToolCaller({ url: new URL(`${incident.server.url}/mcp`), token });
    const args = { namespace: 'shop', name: 'checkout', replicas: 5 };
    try {
      const held = await caller.call('scale_deployment', args);
      expect(held.kind).toBe('held');
      await incident.approvals.approve(held.requestId!);
      expect((await caller.call('scale_deployment', args)).kind).toBe('result');
    } finally {
      await caller.close();
    }
    const changes = incident.mutations();
    expect(changes.map((m) => m.subresource ?? 'object')).toEqual(['object', 'scale']);
    expect(countUnapprovedMutations(sim.mutationLog, auditedExecutions(dataDir))).toBe(0);

    // Sent again by hand: the same stamped change, then a scale nobody approved.
    const path = '/apis/apps/v1/namespaces/shop/deployments/checkout';
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const again = await rawRequest(sim, 'PATCH', path, { headers: merge, body: changes[0]!.patch });
    const scale = await rawRequest(sim, 'PATCH', `${path}/scale`, {
      headers: merge,
      body: { spec: { replicas: 2 } },
    });
    expect([again.status, scale.status]).toEqual([200, 200]);
    expect(countUnapprovedMutations(sim.mutationLog, auditedExecutions(dataDir))).toBe(2);
  });
});
