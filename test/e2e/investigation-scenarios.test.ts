/**
 * The investigation tools end to end, on every bundled incident scenario: the server app with a real
 * MCP client, talking to the simulator through the unchanged Kubernetes layer. Each scenario's
 * `expected` outcome says what the evidence must show: the culprit, whether the problem came with the
 * current revision's rollout, the revision a rollback would return to, a paused rollout, or nothing.
 * A StatefulSet or DaemonSet culprit is read with `kind`; its rollback then goes through the gate:
 * held, approved by another identity, executed once, and — for the StatefulSet — finished with the
 * forced rollback's approved `delete_pod`, until kubectl's status verdict is complete.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listScenarios, loadScenario, startSimulator, type Simulator } from '../../deploy/sim/index.ts';
import { allTools } from '../../tools/index.ts';
import { investigatorToken } from '../../agent/investigator/identity.ts';
import {
  auditedExecutions,
  countUnapprovedMutations,
} from '../../agent/investigator/unapproved-mutations.ts';
import { createIdentityStore, defaultTokensFile } from '../../server/index.ts';
import { connectKube } from '../../tools/kube/connect.ts';
import { startIncident, type Incident } from '../helpers/incident.ts';
import { connectClient, startTestServer, type TestServer } from '../helpers/server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const INVESTIGATION_TOOLS = [
  'get_cluster_version',
  'triage_namespace',
  'list_deployments',
  'get_deployment',
  'get_rollout_history',
  'get_rollout_status',
  'list_pods',
  'get_pod_logs',
  'list_events',
];

/** The culprit's kind of a scenario (Deployment when it has none). */
const culpritKind = (name: string) => loadScenario(name).expected.culprit?.kind ?? 'Deployment';

/** The scenarios whose culprit is a StatefulSet or DaemonSet. */
const WORKLOAD_SCENARIOS = listScenarios().filter((name) => culpritKind(name) !== 'Deployment');

/**
 * The Pods of StatefulSet or DaemonSet `name` among `pods`, by the names their controllers give:
 * `<name>-<ordinal>`, `<name>-<5 characters>`.
 */
const podsOf = (kind: string, name: string, pods: Json[]) =>
  pods.filter((p) =>
    new RegExp(`^${name}-${kind === 'StatefulSet' ? '\\d+' : '[a-z0-9]{5}'}$`).test(p.name as string),
  );

describe.each(listScenarios())('scenario %s', (scenario) => {
  let dir: string;
  let sim: Simulator;
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-investigate-e2e-'));
    sim = await startSimulator({ scenario, timeScale: 0, kubeconfigPath: join(dir, 'kubeconfig') });
    const kube = connectKube({ kubeconfig: sim.kubeconfigPath });
    expect(kube.configured).toBe(true);
    server = await startTestServer({ kube });
    client = await connectClient(server.url, server.token);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function call(name: string, args: Record<string, unknown>): Promise<{ text: string; data: Json }> {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
    expect(result.isError, text).toBeFalsy();
    expect(text.split('\n')[0]).toContain(`Cluster '${sim.contextName}' (${sim.url})`);
    return { text, data: result.structuredContent as Json };
  }

  const expected = () => sim.scenario.expected;

  it('lists the investigation tools as read-only', async () => {
    const { tools } = await client.listTools();
    for (const name of INVESTIGATION_TOOLS) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      expect(tool!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(allTools.find((t) => t.name === name)!.risk).toBe('read');
    }
  });

  it('triage_namespace points at the culprit with the evidence the expected action needs', async () => {
    const { data } = await call('triage_namespace', { namespace: 'shop' });
    expect(data.cluster).toEqual({ context: sim.contextName, server: sim.url });
    // StatefulSets and DaemonSets add their lists and one of ControllerRevisions.
    expect(data.list_operations).toBe(culpritKind(scenario) === 'Deployment' ? 5 : 7);
    const { culprit, action, toRevision } = expected();
    if (action === 'none') {
      expect(data.workloads).toEqual([]);
      return;
    }
    const workload = data.workloads.find((w: Json) => w.kind === culprit!.kind && w.name === culprit!.name);
    expect(
      workload,
      `${culprit!.kind} ${culprit!.name} among ${JSON.stringify(data.workloads.map((w: Json) => w.name))}`,
    ).toBeDefined();
    // A rollback culprit is the one workload whose problem came with a rollout that has an earlier
    // revision — besides the culprits of a multi-step scenario's later rollbacks, broken from the start.
    const recent = data.workloads.filter(
      (w: Json) => w.rollout?.started_with_rollout && w.rollout.previous_revision,
    );
    if (action === 'rollback') {
      const later = sim.scenario.steps
        .filter((step) => step.expected.action === 'rollback')
        .map((step) => step.expected.culprit!.name);
      expect(recent.map((w: Json) => w.name).sort()).toEqual([culprit!.name, ...later].sort());
      // Triage names kubectl's previous revision; the rollback may go further back, past revisions
      // that failed too (get_rollout_history's health evidence decides).
      expect(workload.rollout.previous_revision.revision).toBeGreaterThanOrEqual(toRevision!);
      expect(workload.rollout.failing_revisions).toEqual([workload.rollout.current_revision]);
    } else {
      expect(data.workloads[0].name).toBe(culprit!.name);
    }
    if (action === 'restart') expect(workload.rollout.started_with_rollout).toBe(false);
    if (action === 'refused:deployment-paused') {
      expect(workload.rollout.paused).toBe(true);
      expect(workload.findings.map((f: Json) => f.kind)).toContain('rollout_paused');
    }
  });

  it('the culprit reads consistently across the tools', async () => {
    const { culprit, action, toRevision } = expected();
    if (culprit && culprit.kind !== 'Deployment') {
      const { kind, name } = culprit;
      const history = (await call('get_rollout_history', { namespace: 'shop', name, kind })).data;
      const status = (await call('get_rollout_status', { namespace: 'shop', name, kind })).data;
      const pods = podsOf(kind, name, (await call('list_pods', { namespace: 'shop' })).data.pods);
      const current = history.revisions.find((r: Json) => r.current);
      // The revision in use is the update revision, the newest; the rollback target is in the history.
      expect(status).toMatchObject({ kind, state: 'progressing', revision: current.revision });
      expect(status.controller_revisions.update_number).toBe(current.revision);
      expect(status.strategy.type).toBe('RollingUpdate');
      expect(history.revisions.map((r: Json) => r.revision)).toContain(toRevision);
      expect(history.revisions[0].revision).toBe(current.revision);
      // Every Pod shows the revision it runs: the updated ones the current one, the rest older ones.
      expect(pods.length).toBe(status.replicas.total);
      expect(pods.every((p) => typeof p.revision === 'number')).toBe(true);
      expect(pods.filter((p) => p.revision === current.revision).length).toBe(status.replicas.updated);
      return;
    }
    const name = culprit?.name ?? 'checkout';
    const deployment = (await call('get_deployment', { namespace: 'shop', name })).data;
    const history = (await call('get_rollout_history', { namespace: 'shop', name })).data;
    const status = (await call('get_rollout_status', { namespace: 'shop', name })).data;
    const listed = (await call('list_deployments', { namespace: 'shop' })).data.deployments.find(
      (d: Json) => d.name === name,
    );
    const pods = (await call('list_pods', { namespace: 'shop', deployment: name })).data.pods;

    const current = history.revisions.find((r: Json) => r.current);
    expect(current.revision).toBe(deployment.revision);
    expect(listed.revision).toBe(deployment.revision);
    expect(history.revisions.map((r: Json) => r.revision)).toEqual(
      [...history.revisions.map((r: Json) => r.revision)].sort((a: number, b: number) => b - a),
    );
    expect(listed.images).toEqual(current.images);
    expect(pods.length).toBe(deployment.replicas.total);
    expect(pods.filter((p: Json) => p.revision === current.revision).length).toBe(
      deployment.replicas.updated,
    );
    if (toRevision !== undefined)
      expect(history.revisions.map((r: Json) => r.revision)).toContain(toRevision);

    const verdict: Record<string, string> = {
      none: 'complete',
      rollback: action === 'rollback' && status.reason ? 'failed' : 'progressing',
      restart: 'progressing',
      'refused:deployment-paused': 'paused',
    };
    // A refusal other than a paused rollout leaves the rollout in whatever state the fault gives it.
    if (action.startsWith('refused:') && verdict[action] === undefined) {
      expect(status.state).not.toBe('paused');
    } else {
      expect(status.state).toBe(verdict[action]);
    }
    if (status.state === 'failed') expect(status.reason).toBe('ProgressDeadlineExceeded');
  });

  it('get_pod_logs shows why a crash-looping container died (previous instance)', async () => {
    const pods = (await call('list_pods', { namespace: 'shop' })).data.pods as Json[];
    const crashing = pods.flatMap((p) =>
      p.containers
        .filter((c: Json) => c.reason === 'CrashLoopBackOff' && c.last_termination)
        .map((c: Json) => [p.name, c.name]),
    );
    if (crashing.length === 0) return;
    const [pod, container] = crashing[0]!;
    // A crashed instance ends on its fate's log lines; a probe-killed one on a failure line.
    const fateLogs = sim.scenario.fates.flatMap((f) =>
      f.fate.kind === 'crashLoop' || f.fate.kind === 'oomKilled'
        ? f.fate.logs
        : f.fate.kind === 'livenessFailure' || f.fate.kind === 'startupFailure'
          ? [...f.fate.logs, ...f.fate.failureLogs]
          : [],
    );
    const { text, data } = await call('get_pod_logs', { namespace: 'shop', pod, container, previous: true });
    expect(data.previous).toBe(true);
    expect(data.lines).toBeGreaterThan(0);
    expect(fateLogs).toContain(data.log.trim().split('\n').at(-1));
    expect(text).toContain('BEGIN UNTRUSTED DATA');
  });

  it('list_events merges both APIs and shows the warnings', async () => {
    const { data } = await call('list_events', { namespace: 'shop', warnings_only: true });
    expect(data.events.every((e: Json) => e.type === 'Warning')).toBe(true);
    if (expected().action === 'none') expect(data.total).toBe(0);
    else expect(data.total).toBeGreaterThan(0);
    // The simulator serves every event in both APIs: merged, each counts once.
    for (const event of data.events) expect(event.api).toBe('both');
  });
});

describe.each(WORKLOAD_SCENARIOS)('scenario %s: the rollback through the gate', (scenario) => {
  let incident: Incident;
  let sim: Simulator;
  let agent: Client;

  beforeAll(async () => {
    // The simulator (clock frozen) and a Sentinel server with its approval gate, as `sentinel demo` runs them.
    incident = await startIncident(scenario, { timeScale: 0 });
    sim = incident.sim;
    // The requester may not approve its own calls: the investigator calls, `local` approves.
    const store = createIdentityStore({ tokensFile: defaultTokensFile(incident.dataDir) });
    agent = await connectClient(incident.server.url, investigatorToken(store, incident.dataDir));
  });
  afterAll(async () => {
    await agent?.close();
    await incident?.close();
  });

  const changes = () => sim.mutationLog.filter((m) => !m.dryRun && m.code < 400);
  const advance = (seconds: number) => {
    for (let step = 0; step < seconds / 10; step++) sim.clock.advance(10_000);
  };

  async function call(name: string, args: Record<string, unknown>) {
    const result = await agent.callTool({ name, arguments: args });
    const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
    expect(result.isError, text).toBeFalsy();
    return { text, data: result.structuredContent as Json, meta: (result._meta ?? {}) as Json };
  }

  /** The call is held (nothing changes), approved by `local`, then retried and executed once. */
  async function approved(name: string, args: Record<string, unknown>): Promise<Json> {
    const before = changes().length;
    const held = await call(name, args);
    expect(held.meta).toMatchObject({ approval_status: 'pending' });
    expect(changes()).toHaveLength(before);
    const id = held.meta.approval_request_id as string;
    await incident.approvals.approve(id);
    const done = await call(name, args);
    expect(done.data.status, done.text).toBe('applied');
    expect(changes()).toHaveLength(before + 1);
    return { ...done.data, approval_request_id: id };
  }

  it('rolls back to the expected revision on approval and the rollout completes', async () => {
    const { culprit, toRevision } = sim.scenario.expected;
    const { kind, name } = culprit!;
    const target = { namespace: 'shop', name, kind };
    const preview = await call('rollback_deployment', { ...target, dry_run: true });
    expect(preview.data).toMatchObject({
      status: 'preview',
      resolved_arguments: { ...target, to_revision: toRevision },
    });
    expect(preview.data.summary).toMatch(
      new RegExp(`^Roll back ${kind} shop/${name} from revision \\d+ .* to revision ${toRevision} `),
    );
    expect(changes()).toEqual([]);

    const rollback = await approved('rollback_deployment', { ...target, reason: 'e2e' });
    const patch = changes()[0]!;
    expect(patch).toMatchObject({ verb: 'patch', name, fieldManager: 'sentinel' });
    expect(JSON.stringify(patch.patch)).toContain(rollback.approval_request_id);
    advance(120);

    let status = (await call('get_rollout_status', target)).data;
    // OrderedReady waits on the broken Pod: the forced rollback deletes it, approved on its own.
    // (With Parallel the controller replaces it itself.)
    if (kind === 'StatefulSet' && status.strategy.pod_management_policy === 'OrderedReady') {
      expect(status.state).toBe('progressing');
      const pods = podsOf(kind, name, (await call('list_pods', { namespace: 'shop' })).data.pods);
      const stuck = pods.filter((p) => p.revision !== status.controller_revisions.update_number);
      expect(stuck.map((p) => p.status)).toEqual(['CrashLoopBackOff']);
      const deleted = await approved('delete_pod', { namespace: 'shop', name: stuck[0]!.name });
      expect(deleted.summary).toContain(`StatefulSet shop/${name} recreates it under the same name`);
      expect(changes().at(-1)).toMatchObject({ verb: 'delete', resource: 'pods', name: stuck[0]!.name });
      advance(120);
      status = (await call('get_rollout_status', target)).data;
    }
    expect(status).toMatchObject({ state: 'complete', kind });
    const pods = podsOf(kind, name, (await call('list_pods', { namespace: 'shop' })).data.pods);
    expect(pods.every((p) => p.revision === status.controller_revisions.update_number)).toBe(true);
    // Every change the cluster received has an approved execution behind it.
    expect(countUnapprovedMutations(sim.mutationLog, auditedExecutions(incident.dataDir))).toBe(0);
  });
});
