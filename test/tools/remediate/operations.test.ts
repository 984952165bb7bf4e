/**
 * The remediation tools call exactly the Kubernetes methods they declare (REMEDIATION_KUBE_METHODS,
 * which the remediation Role is checked against): every path — dry run, execution, a Service name,
 * a 409 — is run against a recording client.
 */
import { describe, expect, it } from 'vitest';
import { SentinelError } from '../../../tools/errors.ts';
import type { Tool, ToolContext } from '../../../tools/define-tool.ts';
import type { AsSent, Deployment, KubeReader, KubeWriter, ReplicaSet } from '../../../tools/kube/types.ts';
import { remediationTools } from '../../../tools/remediate/index.ts';
import { REMEDIATION_KUBE_METHODS, remediationOperations } from '../../../tools/remediate/operations.ts';
import { deployment, replicaSet } from '../../helpers/fixtures.ts';
import { fakeKube } from '../../helpers/server.ts';
import { controllerRevision, workload } from '../../helpers/workloads.ts';

type Scenario = {
  args: Record<string, unknown>;
  dryRun?: boolean;
  serviceOnly?: boolean;
  conflict?: boolean;
};

const SCENARIOS: Record<string, Scenario[]> = {
  rollback_deployment: [
    { args: {}, dryRun: true },
    { args: {} },
    { args: {}, conflict: true },
    { args: { kind: 'StatefulSet' }, dryRun: true },
    { args: { kind: 'StatefulSet' } },
    { args: { kind: 'DaemonSet' } },
  ],
  restart_service: [
    { args: {}, dryRun: true },
    { args: {} },
    { args: {}, serviceOnly: true },
    { args: { kind: 'StatefulSet' } },
    { args: { kind: 'DaemonSet' }, dryRun: true },
    { args: { kind: 'DaemonSet' } },
  ],
  scale_deployment: [
    { args: { replicas: 1 }, dryRun: true },
    { args: { replicas: 1, reason: 'r' } },
    { args: { replicas: 2, kind: 'StatefulSet', reason: 'r' } },
  ],
  pause_rollout: [{ args: {}, dryRun: true }, { args: {} }],
  resume_rollout: [{ args: {}, dryRun: true }, { args: {} }],
  delete_pod: [{ args: {}, dryRun: true }, { args: { grace_period_seconds: 5 } }],
};

const workloadOf = (kind: 'StatefulSet' | 'DaemonSet') =>
  workload({ kind, name: 'web', image: 'shop/web:2', replicas: 1 });
const revisionsOf = (name: string) => {
  const owner = workload({ kind: 'StatefulSet', name, image: 'shop/web:2' });
  return [1, 2].map((n) => controllerRevision(owner, n, `shop/web:${n}`));
};

async function callsOf(tool: Tool, scenario: Scenario): Promise<Set<string>> {
  const calls = new Set<string>();
  const dep = deployment({ name: 'web', revision: 2, paused: tool.name === 'resume_rollout' }) as Deployment;
  const sets = [1, 2].map((revision) =>
    replicaSet({ deployment: dep as never, revision, hash: `h${revision}`, image: `shop/web:${revision}` }),
  ) as ReplicaSet[];
  sets[1]!.spec!.template = structuredClone(dep.spec!.template) as never;
  const notFound = () => new SentinelError('not_found', 'not found');
  const reader: Partial<KubeReader> = {
    getDeployment: async () => {
      if (scenario.serviceOnly) throw notFound();
      return dep;
    },
    listReplicaSets: async () => sets,
    getDeploymentAsSent: async () => dep as AsSent<Deployment>,
    listReplicaSetsAsSent: async () => sets as AsSent<ReplicaSet>[],
    getService: async () => ({ metadata: { name: 'web' }, spec: { selector: { app: 'web' } } }),
    listDeployments: async () => [dep],
    listHorizontalPodAutoscalers: async () => [],
    getStatefulSet: async () => workloadOf('StatefulSet') as never,
    listStatefulSets: async () => [],
    listDaemonSets: async () => [],
    getDaemonSet: async () => workloadOf('DaemonSet') as never,
    listControllerRevisions: async () => revisionsOf(dep.metadata!.name!) as never,
    getPod: async () => ({
      metadata: {
        namespace: 'shop',
        name: 'web-0',
        uid: 'uid-web-0',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'uid-web', controller: true },
        ],
      },
    }),
  };
  const writer: Partial<KubeWriter> = {
    patchDeploymentJson: async () => {
      if (scenario.conflict) throw new SentinelError('conflict', '409');
      return dep;
    },
    patchDeploymentStrategic: async () => dep,
    patchDeploymentScale: async () => ({ spec: { replicas: 1 } }),
    patchStatefulSetStrategic: async () => workloadOf('StatefulSet') as never,
    patchStatefulSetScale: async () => ({ spec: { replicas: 1 } }),
    patchDaemonSetStrategic: async () => workloadOf('DaemonSet') as never,
    deletePod: async () => ({ metadata: { name: 'web-0' } }),
  };
  const record = <T extends object>(impl: T): T =>
    Object.fromEntries(
      Object.entries(impl).map(([name, fn]) => [
        name,
        (...args: unknown[]) => {
          calls.add(name);
          return (fn as (...a: unknown[]) => unknown)(...args);
        },
      ]),
    ) as T;
  const kube = fakeKube(record(reader), record(writer));
  const ctx: ToolContext = {
    kube: kube.reader,
    cluster: kube.cluster,
    signal: new AbortController().signal,
    dryRun: scenario.dryRun === true,
    ...(!scenario.dryRun && { writer: kube.writer }),
  };
  const args = tool.input.parse({
    namespace: 'shop',
    name: 'web',
    ...scenario.args,
    dry_run: scenario.dryRun,
  });
  await tool.handler(args, ctx).catch((error: unknown) => {
    if (!(scenario.conflict && error instanceof SentinelError && error.code === 'conflict')) throw error;
  });
  return calls;
}

describe('Kubernetes calls of the remediation tools', () => {
  it('declares every tool', () => {
    expect(Object.keys(REMEDIATION_KUBE_METHODS).sort()).toEqual(remediationTools.map((t) => t.name).sort());
  });

  it.each(remediationTools.map((tool) => [tool.name, tool] as const))(
    '%s calls exactly the methods it declares',
    async (name, tool) => {
      const seen = new Set<string>();
      for (const scenario of SCENARIOS[name]!) {
        const calls = await callsOf(tool as Tool, scenario);
        if (scenario.dryRun) {
          // a dry run reads only
          expect([...calls].filter((method) => /^(patch|delete)/.test(method))).toEqual([]);
        }
        for (const call of calls) seen.add(call);
      }
      const declared = REMEDIATION_KUBE_METHODS[name as keyof typeof REMEDIATION_KUBE_METHODS];
      expect([...seen].sort()).toEqual([...declared.reader, ...declared.writer].sort());
    },
  );

  it('needs these API operations', () => {
    expect(remediationOperations().map((op) => `${op.verb} ${op.group || 'core'}/${op.resource}`)).toEqual([
      'delete core/pods',
      'get core/pods',
      'get core/services',
      'list apps/controllerrevisions',
      'get apps/daemonsets',
      'list apps/daemonsets',
      'patch apps/daemonsets',
      'get apps/deployments',
      'list apps/deployments',
      'patch apps/deployments',
      'patch apps/deployments/scale',
      'list apps/replicasets',
      'get apps/statefulsets',
      'list apps/statefulsets',
      'patch apps/statefulsets',
      'patch apps/statefulsets/scale',
      'list autoscaling/horizontalpodautoscalers',
    ]);
  });
});
