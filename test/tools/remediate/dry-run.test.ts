/**
 * Every remediation tool through the server's real tools/call pipeline: a dry run reaches the handler
 * without a writer and sends no mutating request; a real call gets the writer and sends exactly one
 * change (two for a scale: attribution, then the scale subresource).
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createToolCallPipeline } from '../../../server/pipeline.ts';
import { localIdentity } from '../../../server/identity.ts';
import { defineTool, type Tool, type ToolContext } from '../../../tools/define-tool.ts';
import { createRegistry } from '../../../tools/registry.ts';
import { remediationTools } from '../../../tools/remediate/index.ts';
import type { AsSent, Deployment, KubeWriter, ReplicaSet } from '../../../tools/kube/types.ts';
import { deployment, replicaSet } from '../../helpers/fixtures.ts';
import { fakeKube } from '../../helpers/server.ts';

const CALLS: Record<string, Record<string, unknown>> = {
  rollback_deployment: { namespace: 'shop', name: 'checkout' },
  restart_service: { namespace: 'shop', name: 'checkout' },
  scale_deployment: { namespace: 'shop', name: 'checkout', replicas: 5 },
  pause_rollout: { namespace: 'shop', name: 'checkout' },
  resume_rollout: { namespace: 'shop', name: 'checkout' },
  delete_pod: { namespace: 'shop', name: 'checkout-h2-abcde' },
};

function setup() {
  const dep = deployment({ name: 'checkout', image: 'shop/checkout:2', revision: 2 }) as Deployment;
  const sets = [1, 2].map((revision) =>
    replicaSet({
      deployment: dep as never,
      revision,
      hash: `h${revision}`,
      image: `shop/checkout:${revision}`,
    }),
  ) as ReplicaSet[];
  const paused = { ...dep, spec: { ...dep.spec!, paused: true } };
  const writes: string[] = [];
  const contexts: { tool: string; ctx: ToolContext }[] = [];
  const record =
    (method: keyof KubeWriter) =>
    async (..._args: unknown[]): Promise<never> => {
      writes.push(method);
      return (method === 'patchDeploymentScale' ? { spec: { replicas: 5 } } : dep) as never;
    };
  const kube = fakeKube(
    {
      // resume_rollout needs a paused Deployment to have something to do
      getDeployment: async () => (contexts.at(-1)?.tool === 'resume_rollout' ? paused : dep),
      listReplicaSets: async () => sets,
      getDeploymentAsSent: async () => dep as AsSent<Deployment>,
      listReplicaSetsAsSent: async () => sets as AsSent<ReplicaSet>[],
      listHorizontalPodAutoscalers: async () => [],
      getPod: async () => ({
        metadata: { namespace: 'shop', name: 'checkout-h2-abcde', uid: 'uid-pod' },
        status: { phase: 'Running' },
      }),
    },
    {
      deletePod: record('deletePod'),
      patchDeploymentJson: record('patchDeploymentJson'),
      patchDeploymentStrategic: record('patchDeploymentStrategic'),
      patchDeploymentScale: record('patchDeploymentScale'),
    },
  );
  // The real tools, with a handler that notes the context the pipeline built.
  const observed = remediationTools.map((tool) =>
    defineTool({
      ...(tool as Tool),
      handler: (args, ctx) => {
        contexts.push({ tool: tool.name, ctx });
        return tool.handler(args as never, ctx);
      },
    }),
  );
  const pipeline = createToolCallPipeline({
    registry: createRegistry(observed),
    kube: () => kube,
    middlewares: [],
    logger: pino({ level: 'silent' }),
  });
  const call = (name: string, args: Record<string, unknown>) =>
    pipeline({
      requestId: 'r',
      identity: localIdentity,
      name,
      arguments: args,
      signal: new AbortController().signal,
    });
  return { call, writes, contexts };
}

describe('remediation tools through the tools/call pipeline', () => {
  it('covers every remediation tool', () => {
    expect(remediationTools.map((t) => t.name).sort()).toEqual(Object.keys(CALLS).sort());
  });

  it.each(Object.entries(CALLS))(
    '%s with dry_run: true has no writer and sends nothing',
    async (name, args) => {
      const { call, writes, contexts } = setup();
      const result = await call(name, { ...args, dry_run: true });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(contexts).toHaveLength(1);
      expect(contexts[0]!.ctx.writer).toBeUndefined();
      expect(contexts[0]!.ctx.dryRun).toBe(true);
      expect(writes).toEqual([]);
      expect(result.structuredContent).toMatchObject({ tool: name, dry_run: true, status: 'preview' });
    },
  );

  it.each(Object.entries(CALLS))(
    '%s without dry_run gets the writer and sends its change',
    async (name, args) => {
      const { call, writes, contexts } = setup();
      const result = await call(name, { ...args, reason: 'incident 42' });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(contexts[0]!.ctx.writer).toBeDefined();
      expect(result.structuredContent).toMatchObject({ tool: name, dry_run: false, status: 'applied' });
      expect(writes).toEqual(
        name === 'scale_deployment'
          ? ['patchDeploymentStrategic', 'patchDeploymentScale']
          : [
              name === 'rollback_deployment'
                ? 'patchDeploymentJson'
                : name === 'delete_pod'
                  ? 'deletePod'
                  : 'patchDeploymentStrategic',
            ],
      );
    },
  );
});
