/**
 * Simulator fidelity through the real `kubectl` (issue 16): `delete --dry-run=server` deletes
 * nothing, `--cascade=orphan|foreground`, canonical quantities and omitempty (ReplicaSet reuse and
 * revision numbers as on a cluster), paused-Deployment scaling, Events without timestamps and
 * events.k8s.io/v1 create/patch, `logs -f`, and the audit log. The clock is frozen: the tests move
 * it with `sim.clock.advance`, so nothing depends on timing.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SCENARIOS_DIR, startSimulator } from '../../../deploy/sim/index.ts';
import { generateScenario } from '../../../deploy/sim/scenario/generate.ts';
import type { AuditEvent, Simulator } from '../../../deploy/sim/index.ts';
import type { ReplicaSet } from '../../../deploy/sim/types.ts';
import { rawRequest } from '../../helpers/sim.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const run = promisify(execFile);

describeWithTool('kubectl', 'simulator fidelity via kubectl', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-fidelity-'));
    env = { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'cache') };
    sim = await startSimulator({
      scenario: 'healthy',
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
      auditLogPath: join(dir, 'audit.log'),
    });
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function kubectl(...args: string[]): Promise<string> {
    const { stdout } = await run(kubectlPath, ['--kubeconfig', sim.kubeconfigPath!, '-n', 'shop', ...args], {
      timeout: 120_000,
      env,
    });
    return stdout;
  }

  /** kubectl with YAML on stdin (`-f -`). */
  function kubectlStdin(input: string, ...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        kubectlPath,
        ['--kubeconfig', sim.kubeconfigPath!, '-n', 'shop', ...args],
        { timeout: 120_000, env },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      );
      child.stdin!.end(input);
    });
  }

  /** A Deployment as `kubectl create deployment` makes it (that command sends protobuf, which is not served). */
  async function createDeployment(name: string, replicas = 2): Promise<void> {
    const manifest = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, labels: { app: name } },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1.25', resources: {} }] },
        },
      },
    };
    await kubectlStdin(JSON.stringify(manifest), 'create', '--validate=false', '-f', '-');
    sim.clock.advance(60_000);
  }

  function replicaSets(app: string): { name: string; replicas: number; revision: string; owners: number }[] {
    return sim.cluster.store
      .list<ReplicaSet>('replicasets', 'shop')
      .filter((rs) => rs.metadata.labels?.['app'] === app)
      .map((rs) => ({
        name: rs.metadata.name,
        replicas: rs.spec.replicas ?? 1,
        revision: rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? '',
        owners: rs.metadata.ownerReferences?.length ?? 0,
      }));
  }

  it('delete --dry-run=server deletes nothing (dryRun in the DeleteOptions body)', async () => {
    const before = sim.cluster.store.get('deployments', 'shop', 'checkout')!.metadata.resourceVersion;
    const revision = sim.cluster.store.revision;
    expect(await kubectl('delete', 'deployment', 'checkout', '--dry-run=server')).toContain(
      'deployment.apps "checkout" deleted (server dry run)',
    );
    expect(await kubectl('delete', 'pods', '-l', 'app=checkout', '--dry-run=server')).toContain(
      '(server dry run)',
    );
    expect(await kubectl('scale', 'deployment/checkout', '--replicas=7', '--dry-run=server')).toContain(
      'scaled (server dry run)',
    );
    expect(await kubectl('label', 'deployment/checkout', 'tier=web', '--dry-run=server')).toContain(
      'labeled (server dry run)',
    );
    sim.clock.advance(60_000);
    expect(sim.cluster.store.get('deployments', 'shop', 'checkout')!.metadata.resourceVersion).toBe(before);
    expect(sim.cluster.store.revision).toBe(revision);
    expect(await kubectl('get', 'deployment', 'checkout', '-o', 'jsonpath={.status.readyReplicas}')).toBe(
      '3',
    );
  });

  it('delete --cascade=orphan keeps the ReplicaSet and its Pods, without the owner reference', async () => {
    await createDeployment('orphaned');
    expect(replicaSets('orphaned')).toMatchObject([{ replicas: 2, owners: 1 }]);
    expect(await kubectl('delete', 'deployment', 'orphaned', '--cascade=orphan')).toContain('deleted');
    sim.clock.advance(120_000);
    expect(await kubectl('get', 'deployments', '-o', 'name')).not.toContain('orphaned');
    expect(replicaSets('orphaned')).toMatchObject([{ replicas: 2, owners: 0 }]);
    const pods = await kubectl(
      'get',
      'pods',
      '-l',
      'app=orphaned',
      '-o',
      'jsonpath={.items[*].status.phase}',
    );
    expect(pods).toBe('Running Running');
  });

  it('delete --cascade=foreground holds the Deployment with foregroundDeletion until its Pods are gone', async () => {
    await createDeployment('fg');
    expect(await kubectl('delete', 'deployment', 'fg', '--cascade=foreground', '--wait=false')).toContain(
      'deleted',
    );
    expect(await kubectl('get', 'deployment', 'fg', '-o', 'jsonpath={.metadata.finalizers}')).toBe(
      '["foregroundDeletion"]',
    );
    const rsName = replicaSets('fg')[0]!.name;
    expect(await kubectl('get', 'rs', rsName, '-o', 'jsonpath={.metadata.finalizers}')).toBe(
      '["foregroundDeletion"]',
    );
    const terminating = await kubectl(
      'get',
      'pods',
      '-l',
      'app=fg',
      '-o',
      'jsonpath={.items[*].metadata.deletionTimestamp}',
    );
    expect(terminating.split(' ')).toHaveLength(2);
    sim.clock.advance(60_000);
    expect(await kubectl('get', 'deployments,rs,pods', '-l', 'app=fg', '-o', 'name')).toBe('');
    expect(await kubectl('get', 'deployments', '-o', 'name')).not.toContain('deployment.apps/fg');
  });

  it('canonical quantities and omitempty: reverting cpu 0.2 → 0.1 reuses the 100m ReplicaSet', async () => {
    await createDeployment('canon', 1);
    const setCpu = (cpu: string) =>
      kubectl(
        'patch',
        'deployment',
        'canon',
        '--type=json',
        '-p',
        JSON.stringify([
          { op: 'add', path: '/spec/template/spec/containers/0/resources', value: { limits: { cpu } } },
        ]),
      );
    await setCpu('100m');
    sim.clock.advance(60_000);
    await setCpu('0.2');
    sim.clock.advance(60_000);
    await setCpu('0.1');
    sim.clock.advance(60_000);
    expect(
      await kubectl(
        'get',
        'deployment',
        'canon',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].resources.limits.cpu}',
      ),
    ).toBe('100m');
    // revisions 1 (no limits), 2 (100m) reused as 4, 3 (200m): three ReplicaSets, as on a cluster.
    expect(
      replicaSets('canon')
        .map((rs) => rs.revision)
        .sort(),
    ).toEqual(['1', '3', '4']);
    expect(await kubectl('rollout', 'history', 'deployment/canon')).toMatch(/\n1\s.*\n3\s.*\n4\s/);
    // env: [] is dropped (omitempty): an equal template, so no new revision.
    const generation = await kubectl('get', 'deployment', 'canon', '-o', 'jsonpath={.metadata.generation}');
    await kubectl(
      'patch',
      'deployment',
      'canon',
      '--type=json',
      '-p',
      JSON.stringify([{ op: 'add', path: '/spec/template/spec/containers/0/env', value: [] }]),
    );
    sim.clock.advance(60_000);
    expect(await kubectl('get', 'deployment', 'canon', '-o', 'jsonpath={.metadata.generation}')).toBe(
      generation,
    );
    expect(replicaSets('canon')).toHaveLength(3);
  });

  it('a paused Deployment scales its newest ReplicaSet when none is active (FindActiveOrLatest)', async () => {
    await createDeployment('held', 2);
    await kubectl('rollout', 'pause', 'deployment/held');
    await kubectl('scale', 'deployment/held', '--replicas=0');
    sim.clock.advance(60_000);
    await kubectl('set', 'image', 'deployment/held', 'nginx=nginx:1.26');
    sim.clock.advance(60_000);
    expect(replicaSets('held')).toMatchObject([{ replicas: 0 }]);
    await kubectl('scale', 'deployment/held', '--replicas=3');
    sim.clock.advance(60_000);
    expect(replicaSets('held')).toMatchObject([{ replicas: 3, revision: '1' }]);
    expect(await kubectl('get', 'deployment', 'held', '-o', 'jsonpath={.status.readyReplicas}')).toBe('3');
  });

  it('the audit log has one line per request: verb, requestURI, user, status, dryRun, bytes, latency', async () => {
    const events = () =>
      readFileSync(join(dir, 'audit.log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as AuditEvent);
    const before = events().length;
    await kubectl('get', 'pods');
    await kubectl('delete', 'service', 'cart', '--dry-run=server');
    const added = events().slice(before);
    const lists = added.filter((event) => event.verb === 'list' && event.objectRef?.resource === 'pods');
    expect(lists).toHaveLength(1);
    expect(lists[0]).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      stage: 'ResponseComplete',
      requestURI: expect.stringMatching(/^\/api\/v1\/namespaces\/shop\/pods\?/),
      user: { username: 'sim-admin' },
      objectRef: { resource: 'pods', namespace: 'shop', apiVersion: 'v1' },
      responseStatus: { code: 200 },
      dryRun: false,
      requestBytes: 0,
    });
    expect(lists[0]!.responseBytes).toBeGreaterThan(100);
    expect(lists[0]!.latencyMs).toBeGreaterThanOrEqual(0);
    const deletes = added.filter((event) => event.verb === 'delete');
    expect(deletes).toMatchObject([
      { dryRun: true, objectRef: { resource: 'services', name: 'cart' }, responseStatus: { code: 200 } },
    ]);
    expect(deletes[0]!.requestBytes).toBeGreaterThan(0);
    expect(sim.cluster.store.get('services', 'shop', 'cart')).toBeDefined();
  });

  it('an Event without any timestamp is served by both Event APIs (no 500)', async () => {
    const bare = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'bare' },
      involvedObject: { kind: 'Deployment', name: 'checkout', namespace: 'shop', apiVersion: 'apps/v1' },
      reason: 'Manual',
      message: 'recorded without timestamps',
      type: 'Normal',
    };
    await kubectlStdin(JSON.stringify(bare), 'create', '--validate=false', '-f', '-');
    expect(await kubectl('get', 'events')).toMatch(
      /<unknown>\s+Normal\s+Manual\s+deployment\/checkout\s+recorded without timestamps/,
    );
    const listed = JSON.parse(await kubectl('get', 'events.events.k8s.io', '-o', 'json')) as {
      items: Record<string, unknown>[];
    };
    expect(
      listed.items.find((event) => (event['metadata'] as { name: string }).name === 'bare'),
    ).toMatchObject({
      eventTime: null,
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
      note: 'recorded without timestamps',
    });
    expect(await kubectl('get', 'events.events.k8s.io')).toContain('recorded without timestamps');
  });

  it('events.k8s.io/v1 create and patch keep series; the create rules are enforced', async () => {
    const micro = (offset: number) =>
      new Date(sim.clock.now() + offset).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    const event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'synced' },
      eventTime: micro(-60_000),
      reportingController: 'example.com/syncer',
      reportingInstance: 'syncer-1',
      action: 'Sync',
      reason: 'Synced',
      regarding: { kind: 'Deployment', name: 'checkout', namespace: 'shop', apiVersion: 'apps/v1' },
      note: 'synced twice',
      type: 'Normal',
      series: { count: 2, lastObservedTime: micro(-30_000) },
    };
    expect(await kubectlStdin(JSON.stringify(event), 'create', '--validate=false', '-f', '-')).toContain(
      'event.events.k8s.io/synced created',
    );
    expect(
      await kubectl('get', 'events.events.k8s.io', 'synced', '-o', 'jsonpath={.series.count} {.action}'),
    ).toBe('2 Sync');
    await kubectl(
      'patch',
      'events.events.k8s.io',
      'synced',
      '--type=merge',
      '-p',
      JSON.stringify({ series: { count: 3, lastObservedTime: micro(0) } }),
    );
    expect(await kubectl('get', 'events.events.k8s.io', 'synced', '-o', 'jsonpath={.series.count}')).toBe(
      '3',
    );
    // The core view of the same Event carries the series and the reporting controller.
    expect(
      await kubectl(
        'get',
        'event',
        'synced',
        '-o',
        'jsonpath={.series.count} {.reportingComponent} {.message}',
      ),
    ).toBe('3 example.com/syncer synced twice');
    const incomplete = {
      ...event,
      metadata: { name: 'incomplete' },
      action: undefined,
      series: { count: 1 },
    };
    await expect(
      kubectlStdin(JSON.stringify(incomplete), 'create', '--validate=false', '-f', '-'),
    ).rejects.toThrow(
      /The Event "incomplete" is invalid: \n\* action: Required value\n\* series.count: Invalid value: "": should be at least 2\n\* series.lastObservedTime: Required value/,
    );
  });

  it('logs -f streams new lines as they are written and ends when the container stops', async () => {
    const raw = parseYaml(readFileSync(join(SCENARIOS_DIR, 'healthy.yaml'), 'utf8')) as { fates: unknown[] };
    raw.fates.unshift({
      match: { image: 'busybox:follow' },
      fate: { kind: 'readinessFailure', logs: ['starting'], failureLogs: ['not ready yet'] },
    });
    const followed = await startSimulator({
      scenario: raw,
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig-follow'),
    });
    try {
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'follow-me' },
        spec: {
          containers: [{ name: 'app', image: 'busybox:follow', readinessProbe: { httpGet: { port: 80 } } }],
        },
      };
      expect((await rawRequest(followed, 'POST', '/api/v1/namespaces/shop/pods', { body: pod })).status).toBe(
        201,
      );
      followed.clock.advance(15_000);
      const child = spawn(
        kubectlPath,
        ['--kubeconfig', followed.kubeconfigPath!, '-n', 'shop', 'logs', '-f', 'follow-me'],
        {
          env,
        },
      );
      let output = '';
      const waiters: (() => void)[] = [];
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        output += chunk;
        for (const wake of waiters.splice(0)) wake();
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const lines = () => output.split('\n').filter(Boolean);
      const until = async (predicate: () => boolean) => {
        while (!predicate()) await new Promise<void>((resolve) => waiters.push(resolve));
      };
      await until(() => output.includes('starting'));
      const seen = lines().length;
      expect(lines()[0]).toBe('starting');
      followed.clock.advance(30_000);
      await until(() => lines().length > seen);
      expect(lines().at(-1)).toBe('not ready yet');
      expect(child.exitCode).toBeNull();
      // Deleting the Pod stops the container: the stream ends and kubectl exits cleanly.
      expect((await rawRequest(followed, 'DELETE', '/api/v1/namespaces/shop/pods/follow-me')).status).toBe(
        200,
      );
      followed.clock.advance(60_000);
      expect(await exited).toBe(0);
    } finally {
      await followed.close();
    }
  });

  it('a generated 500-Pod scenario with 3 days of history starts and kubectl lists it in pages', async () => {
    const large = await startSimulator({
      scenario: generateScenario({ pods: 500, history: '3d' }),
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig-large'),
      auditLogPath: join(dir, 'audit-large.log'),
    });
    try {
      const { stdout } = await run(
        kubectlPath,
        [
          '--kubeconfig',
          large.kubeconfigPath!,
          '-n',
          'bench',
          'get',
          'pods',
          '--chunk-size=200',
          '--no-headers',
        ],
        { timeout: 120_000, env, maxBuffer: 16 * 1024 * 1024 },
      );
      const rows = stdout.trim().split('\n');
      // 500 desired, plus the Pods of svc-0's rollout still surging beside its crash-looping new ones.
      expect(rows.length).toBeGreaterThanOrEqual(500);
      expect(rows.filter((row) => /\sRunning\s/.test(row)).length).toBeGreaterThanOrEqual(475);
      expect(rows.some((row) => /^svc-0-\S+\s+0\/1\s+(CrashLoopBackOff|Error)/.test(row))).toBe(true);
      const lists = readFileSync(join(dir, 'audit-large.log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as AuditEvent)
        .filter((event) => event.verb === 'list' && event.objectRef?.resource === 'pods');
      expect(lists.length).toBe(Math.ceil(rows.length / 200));
    } finally {
      await large.close();
    }
  });
});
