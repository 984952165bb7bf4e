import { describe, expect, it } from 'vitest';
import { listPods, type ListPodsOutput } from '../../../tools/investigate/list-pods.ts';
import { NOW, deployment, pod, replicaSet } from '../../helpers/fixtures.ts';
import { mockApi, useMockedCluster } from '../../helpers/kube.ts';
import { callTool, callToolError } from '../../helpers/tools.ts';

const kube = useMockedCluster({ now: NOW });

const web = deployment({ name: 'web', image: 'shop/web:3', revision: 11 });
const rsNew = replicaSet({ deployment: web, revision: 11, hash: 'new', image: 'shop/web:3', replicas: 2 });
const rsOld = replicaSet({ deployment: web, revision: 10, hash: 'old', image: 'shop/web:2', replicas: 1 });
const other = deployment({ name: 'web-canary', uid: 'uid-canary' });
const rsOther = replicaSet({ deployment: other, revision: 1, hash: 'can', image: 'shop/web:canary' });

const pods = [
  pod({
    name: 'web-new-a',
    owner: rsNew,
    containers: [
      {
        name: 'app',
        waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' },
        restarts: 7,
        last: { reason: 'OOMKilled', exitCode: 137, finishedMinutesAgo: 3 },
      },
      { name: 'proxy' },
    ],
    initContainers: [{ name: 'migrate', terminated: { reason: 'Completed', exitCode: 0 } }],
  }),
  pod({
    name: 'web-new-b',
    owner: rsNew,
    phase: 'Pending',
    containers: [
      {
        name: 'app',
        waiting: { reason: 'CreateContainerConfigError', message: 'secret "db" not found; password=hunter2' },
      },
    ],
  }),
  pod({
    name: 'web-new-c',
    owner: rsNew,
    phase: 'Pending',
    initContainers: [
      {
        name: 'migrate',
        waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "migrate:bad"' },
      },
    ],
    containers: [{ name: 'app', waiting: { reason: 'PodInitializing' } }],
  }),
  pod({ name: 'web-old-a', owner: rsOld, createdMinutesAgo: 600 }),
  pod({ name: 'web-canary-a', owner: rsOther, labels: { app: 'web' } }),
];

describe('list_pods', () => {
  it('shows kubectl STATUS, READY, RESTARTS, owner revision and per-container problems', async () => {
    mockApi()
      .get('/api/v1/namespaces/shop/pods')
      .query({ limit: '500' })
      .reply(200, { items: pods })
      .get('/apis/apps/v1/namespaces/shop/replicasets')
      .query({ limit: '500' })
      .reply(200, { items: [rsNew, rsOld, rsOther] });
    const output = await callTool(listPods, { namespace: 'shop' }, kube.context());
    const lines = output.text.split('\n');
    expect(lines[0]).toContain("5 Pod(s) in namespace 'shop'");
    expect(lines[1]!.split(/\s{2,}/)).toEqual([
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'NODE',
      'REPLICASET',
      'REV',
      'CONTAINER PROBLEMS',
    ]);
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `))!.split(/\s{2,}/);
    expect(row('web-new-a')).toEqual([
      'web-new-a',
      '1/2',
      'CrashLoopBackOff',
      '7 (3m ago)',
      '60m',
      'node-1',
      'web-new',
      '11',
      'app: CrashLoopBackOff (last: OOMKilled, exit 137)',
    ]);
    expect(row('web-new-b').slice(1, 3)).toEqual(['0/1', 'CreateContainerConfigError']);
    expect(row('web-new-c')).toEqual([
      'web-new-c',
      '0/1',
      'Init:ImagePullBackOff',
      '0',
      '60m',
      'node-1',
      'web-new',
      '11',
      'init migrate: ImagePullBackOff',
    ]);
    expect(row('web-old-a').slice(0, 8)).toEqual([
      'web-old-a',
      '1/1',
      'Running',
      '0',
      '10h',
      'node-1',
      'web-old',
      '10',
    ]);

    const s = output.structured as ListPodsOutput;
    const a = s.pods.find((p) => p.name === 'web-new-a')!;
    expect(a.containers.map((c) => [c.type, c.name, c.state, c.reason])).toEqual([
      ['init', 'migrate', 'terminated', 'Completed'],
      ['app', 'app', 'waiting', 'CrashLoopBackOff'],
      ['app', 'proxy', 'running', null],
    ]);
    expect(a.containers[1]!.last_termination).toEqual({
      reason: 'OOMKilled',
      exit_code: 137,
      finished_at: new Date(NOW - 3 * 60_000).toISOString(),
    });
    expect(a).toMatchObject({
      replica_set: 'web-new',
      revision: 11,
      restarts: 7,
      ready_containers: 1,
      total_containers: 2,
    });

    // Kubelet messages are untrusted and redacted.
    const block = output.text.slice(output.text.indexOf('----- BEGIN UNTRUSTED DATA'));
    expect(block).toContain('web-new-b/app: secret "db" not found; password=[REDACTED]');
    expect(block).toContain('web-new-c/migrate: Back-off pulling image "migrate:bad"');
    expect(output.text).not.toContain('hunter2');
  });

  it('with deployment, lists exactly the Pods of that Deployment’s ReplicaSets (owner references)', async () => {
    mockApi()
      .get('/apis/apps/v1/namespaces/shop/deployments/web')
      .reply(200, web)
      .get('/api/v1/namespaces/shop/pods')
      .query({ limit: '500', labelSelector: 'app=web' })
      .reply(200, { items: pods })
      .get('/apis/apps/v1/namespaces/shop/replicasets')
      .query({ limit: '500', labelSelector: 'app=web' })
      .reply(200, { items: [rsNew, rsOld, rsOther] });
    const output = await callTool(listPods, { namespace: 'shop', deployment: 'web' }, kube.context());
    const s = output.structured as ListPodsOutput;
    expect(s.pods.map((p) => p.name)).toEqual(['web-new-a', 'web-new-b', 'web-new-c', 'web-old-a']);
    expect(s.deployment).toBe('web');
    expect(output.text.split('\n')[0]).toContain("4 Pod(s) in namespace 'shop' of Deployment 'web'");
  });

  it('fetches only the ReplicaSets that own the listed Pods (by pod-template-hash), not every ReplicaSet', async () => {
    const owned = pods.filter((p) => p.metadata?.name?.startsWith('web-'));
    mockApi()
      .get('/api/v1/namespaces/shop/pods')
      .query({ limit: '500', labelSelector: 'tier=web' })
      .reply(200, { items: owned.filter((p) => p.metadata?.name !== 'web-canary-a') })
      .get('/apis/apps/v1/namespaces/shop/replicasets')
      .query({ limit: '500', labelSelector: 'pod-template-hash in (new,old)' })
      .reply(200, { items: [rsNew, rsOld] });
    const output = await callTool(
      listPods,
      { namespace: 'shop', label_selector: 'tier=web' },
      kube.context(),
    );
    const s = output.structured as ListPodsOutput;
    expect(s.pods.map((p) => [p.name, p.replica_set, p.revision])).toEqual([
      ['web-new-a', rsNew.metadata?.name, 11],
      ['web-new-b', rsNew.metadata?.name, 11],
      ['web-new-c', rsNew.metadata?.name, 11],
      ['web-old-a', rsOld.metadata?.name, 10],
    ]);
  });

  it("gives a StatefulSet's and a DaemonSet's Pods the revision their controller-revision-hash names, fetching only those revisions", async () => {
    // As the controllers label them: a StatefulSet Pod names its revision `<set>-<hash>`, whose own
    // label holds the bare hash in controller.kubernetes.io/hash; a DaemonSet Pod and its revision
    // carry the bare hash in controller-revision-hash (the revision named `<ds>-<hash>`).
    const owned = (name: string, kind: string, owner: string, hash: string) => {
      const p = pod({ name, labels: { app: owner, 'controller-revision-hash': hash } });
      p.metadata!.ownerReferences = [
        { apiVersion: 'apps/v1', kind, name: owner, uid: `uid-${owner}`, controller: true },
      ];
      return p;
    };
    const revision = (owner: string, kind: string, hash: string, number: number, label: string) => ({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: `${owner}-${hash}`,
        namespace: 'shop',
        labels: { app: owner, [label]: hash },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind, name: owner, uid: `uid-${owner}`, controller: true },
        ],
      },
      data: {},
      revision: number,
    });
    const mixed = [
      owned('db-0', 'StatefulSet', 'db', 'db-aaa'),
      owned('db-1', 'StatefulSet', 'db', 'db-aaa'),
      owned('db-2', 'StatefulSet', 'db', 'db-bbb'),
      owned('agent-x1y2z', 'DaemonSet', 'agent', 'ccc'),
      pods[3]!,
    ];
    // Another StatefulSet's revision with the same hash is not db's.
    const foreign = {
      ...revision('db', 'StatefulSet', 'aaa', 9, 'controller.kubernetes.io/hash'),
      metadata: {
        ...revision('db', 'StatefulSet', 'aaa', 9, 'controller.kubernetes.io/hash').metadata,
        name: 'other-aaa',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'other', uid: 'uid-other', controller: true },
        ],
      },
    };
    mockApi()
      .get('/api/v1/namespaces/shop/pods')
      .query({ limit: '500' })
      .reply(200, { items: mixed })
      .get('/apis/apps/v1/namespaces/shop/replicasets')
      .query({ limit: '500', labelSelector: 'pod-template-hash in (old)' })
      .reply(200, { items: [rsOld] })
      .get('/apis/apps/v1/namespaces/shop/controllerrevisions')
      .query({ limit: '500', labelSelector: 'controller.kubernetes.io/hash in (aaa,bbb)' })
      .reply(200, {
        items: [
          foreign,
          revision('db', 'StatefulSet', 'aaa', 4, 'controller.kubernetes.io/hash'),
          revision('db', 'StatefulSet', 'bbb', 3, 'controller.kubernetes.io/hash'),
        ],
      })
      .get('/apis/apps/v1/namespaces/shop/controllerrevisions')
      .query({ limit: '500', labelSelector: 'controller-revision-hash in (ccc)' })
      .reply(200, { items: [revision('agent', 'DaemonSet', 'ccc', 2, 'controller-revision-hash')] });
    const output = await callTool(listPods, { namespace: 'shop' }, kube.context());
    const s = output.structured as ListPodsOutput;
    expect(s.pods.map((p) => [p.name, p.replica_set, p.revision])).toEqual([
      ['agent-x1y2z', null, 2],
      ['db-0', null, 4],
      ['db-1', null, 4],
      ['db-2', null, 3],
      ['web-old-a', rsOld.metadata?.name, 10],
    ]);
    const row = (name: string) =>
      output.text
        .split('\n')
        .find((l) => l.startsWith(`${name} `))!
        .split(/\s{2,}/);
    expect(row('db-2').slice(6, 8)).toEqual(['<none>', '3']);
  });

  it('makes no ControllerRevision request when no Pod names one', async () => {
    const bare = pod({ name: 'bare', labels: { app: 'bare', 'controller-revision-hash': 'zzz' } });
    mockApi()
      .get('/api/v1/namespaces/shop/pods')
      .query({ limit: '500' })
      .reply(200, { items: [bare] });
    const output = await callTool(listPods, { namespace: 'shop' }, kube.context());
    expect((output.structured as ListPodsOutput).pods.map((p) => [p.name, p.revision])).toEqual([
      ['bare', null],
    ]);
  });

  it('refuses label_selector and deployment together before any API call', async () => {
    const error = await callToolError(
      listPods,
      { namespace: 'shop', deployment: 'web', label_selector: 'app=web' },
      kube.context(),
    );
    expect(error).toMatchObject({ code: 'invalid_input', field: 'deployment' });
  });

  it('bounds the list at 50 Pods with an "N more" line', async () => {
    const many = Array.from({ length: 75 }, (_, i) => pod({ name: `p-${String(i).padStart(3, '0')}` }));
    mockApi().get('/api/v1/namespaces/shop/pods').query(true).reply(200, { items: many });
    const output = await callTool(listPods, { namespace: 'shop' }, kube.context());
    expect(output.text.split('\n').at(-1)).toBe(
      "… 25 more Pods in namespace 'shop' not shown (narrow with label_selector or deployment).",
    );
    expect((output.structured as ListPodsOutput).pods).toHaveLength(50);
    expect(output.structured).toMatchObject({ total: 75, omitted: 25 });
  });
});
