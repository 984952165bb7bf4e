import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { z } from 'zod';
import { defineTool, toolInput } from '../../tools/define-tool.ts';
import { createRegistry } from '../../tools/registry.ts';
import {
  createToolCallPipeline,
  type RejectedCall,
  type ToolCall,
  type ToolCallMiddleware,
} from '../../server/pipeline.ts';
import { localIdentity } from '../../server/identity.ts';
import { notConfigured } from '../../server/kube.ts';
import { SentinelError } from '../../tools/errors.ts';
import type { KubeConnection } from '../../tools/kube/types.ts';
import { fixtureTools, type SeenCall } from '../helpers/fixture-tools.ts';
import { fakeKube, TEST_CLUSTER } from '../helpers/server.ts';

function setup(middlewares: ToolCallMiddleware[] = [], kube: KubeConnection = fakeKube()) {
  const seen: SeenCall[] = [];
  const { registry } = fixtureTools(seen);
  const pipeline = createToolCallPipeline({
    registry,
    kube: () => kube,
    middlewares,
    logger: pino({ level: 'silent' }),
  });
  const call = (name: string, args?: Record<string, unknown>) =>
    pipeline({
      requestId: 'req-1',
      identity: localIdentity,
      name,
      arguments: args,
      signal: new AbortController().signal,
    });
  return { seen, call };
}

const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0]!.text;
const scaleArgs = { namespace: 'shop', name: 'web', replicas: 3 };

describe('tools/call pipeline', () => {
  it('answers an unknown tool with an isError result and runs nothing', async () => {
    const order: string[] = [];
    const { call } = setup([async (c, next) => (order.push('middleware'), next())]);
    const result = await call('drop_database', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "Unknown tool 'drop_database'; tools/list shows the tools this server provides.",
    );
    expect(order).toEqual([]);
  });

  it('names the nearest tool for a mistyped name', async () => {
    const { call } = setup([]);
    expect(text(await call('scale_thnig', scaleArgs))).toBe(
      "Unknown tool 'scale_thnig'; tools/list shows the tools this server provides. Did you mean 'scale_thing'?",
    );
  });

  it.each([
    [
      { ...scaleArgs, dryrun: true },
      /: arguments\.dryrun: unknown argument \(accepted: namespace, name, replicas, dry_run, idempotency_key, evidence, investigation\)\./,
    ],
    [{ ...scaleArgs, replicas: 1000 }, /: arguments\.replicas: must be at most 100\./],
    [{ namespace: 'shop', name: 'web' }, /: arguments\.replicas: required; must be a number\./],
    [{ ...scaleArgs, dry_run: 'yes' }, /: arguments\.dry_run: must be a boolean\./],
  ])('rejects %j naming the field and the rule before any middleware runs', async (args, message) => {
    const order: string[] = [];
    const { call, seen } = setup([async (_c, next) => (order.push('middleware'), next())]);
    const result = await call('scale_thing', args);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(message);
    expect(text(result)).toMatch(/^Invalid arguments for scale_thing: .*Nothing was run/);
    expect((result._meta?.error as { code: string }).code).toBe('invalid_input');
    expect(order).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('reports calls refused before the middlewares to onRejected, and only those', async () => {
    const rejected: RejectedCall[] = [];
    const { registry } = fixtureTools();
    const pipeline = createToolCallPipeline({
      registry,
      kube: () => fakeKube(),
      middlewares: [],
      logger: pino({ level: 'silent' }),
      onRejected: (rejection) => {
        rejected.push(rejection);
        throw new Error('a failing listener never fails the call');
      },
    });
    const call = (name: string, args: Record<string, unknown>) =>
      pipeline({
        requestId: 'req-9',
        identity: localIdentity,
        name,
        arguments: args,
        signal: new AbortController().signal,
      });
    expect((await call('drop_database', {})).isError).toBe(true);
    const invalid = await call('scale_thing', { namespace: 'shop', name: 'web' });
    expect(text(invalid)).toMatch(/arguments\.replicas: required/);
    expect((await call('scale_thing', scaleArgs)).isError).toBeUndefined();
    expect(
      rejected.map(({ requestId, identity, tool, reason, error }) => [
        requestId,
        identity,
        tool,
        reason,
        error.code,
      ]),
    ).toEqual([
      ['req-9', 'local', 'drop_database', 'unknown_tool', 'not_found'],
      ['req-9', 'local', 'scale_thing', 'invalid_arguments', 'invalid_input'],
    ]);
  });

  it('gives middlewares the parsed call with defaults applied, outermost first', async () => {
    const order: string[] = [];
    let observed: ToolCall | undefined;
    const { call } = setup([
      async (c, next) => {
        observed = c;
        order.push('outer in');
        const result = await next();
        order.push('outer out');
        return result;
      },
      async (_c, next) => {
        order.push('inner');
        return next();
      },
    ]);
    const result = await call('scale_thing', scaleArgs);
    expect(result.isError).toBeUndefined();
    expect(order).toEqual(['outer in', 'inner', 'outer out']);
    expect(observed).toMatchObject({
      requestId: 'req-1',
      identity: { name: 'local' },
      args: { ...scaleArgs, dry_run: false },
      cluster: TEST_CLUSTER,
    });
    expect(observed!.tool.name).toBe('scale_thing');
  });

  it('gives a writer only to write/destructive tools executing for real', async () => {
    const { call, seen } = setup();
    await call('read_thing', { namespace: 'shop', name: 'web' });
    await call('pause_thing', { namespace: 'shop', name: 'web' });
    await call('scale_thing', scaleArgs);
    await call('scale_thing', { ...scaleArgs, dry_run: true });
    expect(seen.map((s) => [s.tool, s.hasWriter, s.dryRun])).toEqual([
      ['read_thing', false, false],
      ['pause_thing', true, false],
      ['scale_thing', true, false],
      ['scale_thing', false, true],
    ]);
  });

  it('returns text and structured content', async () => {
    const { call } = setup();
    const result = await call('scale_thing', scaleArgs);
    expect(result).toEqual({
      content: [{ type: 'text', text: 'scaled to 3' }],
      structuredContent: { replicas: 3, dry_run: false },
    });
  });

  it('lets a middleware preview with dryRun and execute with an approval request id', async () => {
    const { call, seen } = setup([
      async (_c, next) => {
        const preview = await next({ dryRun: true });
        expect(text(preview)).toBe('would scale to 3');
        return next({ approvalRequestId: 'apr_1' });
      },
    ]);
    const result = await call('scale_thing', scaleArgs);
    expect(text(result)).toBe('scaled to 3');
    expect(seen.map((s) => [s.hasWriter, s.dryRun, s.args.dry_run, s.approvalRequestId])).toEqual([
      [false, true, true, undefined],
      [true, false, false, 'apr_1'],
    ]);
  });

  it('re-validates override args, and inner middlewares see them', async () => {
    let innerArgs: Record<string, unknown> | undefined;
    const inner: ToolCallMiddleware = async (c, next) => ((innerArgs = c.args), next());
    const { call, seen } = setup([async (c, next) => next({ args: { ...c.args, replicas: 5 } }), inner]);
    await call('scale_thing', scaleArgs);
    expect(innerArgs).toEqual({ ...scaleArgs, replicas: 5, dry_run: false });
    expect(seen[0]!.args.replicas).toBe(5);

    const bad = setup([async (c, next) => next({ args: { ...c.args, replicas: -1 } })]);
    const result = await bad.call('scale_thing', scaleArgs);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/arguments\.replicas: must be at least 0/);
    expect(bad.seen).toEqual([]);
  });

  it('never gives a writer when dry_run is true, whatever the overrides say', async () => {
    const { call, seen } = setup([async (_c, next) => next({ dryRun: false })]);
    await call('scale_thing', { ...scaleArgs, dry_run: true });
    expect(seen[0]).toMatchObject({ hasWriter: false, dryRun: true });
  });

  it('refuses a dry run of a tool without one', async () => {
    const { call, seen } = setup([async (_c, next) => next({ dryRun: true })]);
    const result = await call('pause_thing', { namespace: 'shop', name: 'web' });
    expect(text(result)).toBe("Tool 'pause_thing' has no dry-run mode, so it cannot be previewed.");
    expect(seen).toEqual([]);
  });

  it('turns a middleware SentinelError into an isError result', async () => {
    const { call, seen } = setup([
      async () => {
        throw new SentinelError('approval_denied', 'A human declined this exact call; it was not run.');
      },
    ]);
    const result = await call('scale_thing', scaleArgs);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('A human declined this exact call; it was not run.');
    expect((result._meta?.error as { code: string }).code).toBe('approval_denied');
    expect(seen).toEqual([]);
  });

  it('reports handler errors by message and hides unexpected ones', async () => {
    const { call } = setup();
    const expected = await call('failing_thing', {});
    expect(expected.isError).toBe(true);
    expect(text(expected)).toBe("Deployment 'web' not found in namespace 'prod'.");
    expect(expected._meta?.error).toMatchObject({ code: 'not_found', kind: 'Deployment', namespace: 'prod' });

    const unexpected = await call('failing_thing', { unexpected: true });
    expect(text(unexpected)).toBe('Sentinel hit an unexpected internal error; see the server log.');
    expect(JSON.stringify(unexpected)).not.toMatch(/secret internal detail|app\.ts/);
  });

  it('rejects structured output that breaks the tool output schema', async () => {
    const { call } = setup();
    const result = await call('bad_output', {});
    expect(result.isError).toBe(true);
    expect((result._meta?.error as { code: string }).code).toBe('internal');
  });

  it('without a cluster: middlewares still run, handlers answer unavailable with how to configure one', async () => {
    let cluster: unknown = 'unset';
    const { call, seen } = setup([async (c, next) => ((cluster = c.cluster), next())], notConfigured());
    const result = await call('read_thing', { namespace: 'shop', name: 'web' });
    expect(cluster).toBeUndefined();
    expect(result.isError).toBe(true);
    expect((result._meta?.error as { code: string }).code).toBe('unavailable');
    expect(text(result)).toMatch(/No Kubernetes cluster is configured.*--kubeconfig/);
    expect(seen).toEqual([]);
  });
});

describe('read snapshots (_meta.read_snapshot)', () => {
  /** A read tool and a change tool over one Deployment; the reader counts its GETs. */
  function snapshotSetup() {
    let gets = 0;
    const kube = fakeKube(
      {
        getDeployment: async (namespace: string, name: string) => {
          gets += 1;
          return { metadata: { namespace, name, generation: gets } };
        },
      },
      { patchDeploymentJson: async () => ({}) },
    );
    const target = { namespace: z.string(), name: z.string() };
    const readDeployment = defineTool({
      name: 'read_deployment',
      title: 'Read',
      description: 'Reads a Deployment.',
      risk: 'read',
      input: toolInput(target),
      handler: async (args, ctx) => {
        const d = await ctx.kube.getDeployment(args.namespace, args.name);
        return { text: `generation ${d.metadata?.generation}` };
      },
    });
    const touchDeployment = defineTool({
      name: 'touch_deployment',
      title: 'Touch',
      description: 'Reads a Deployment, then patches it unless a dry run.',
      risk: 'write',
      supportsDryRun: true,
      input: toolInput({ ...target, dry_run: z.boolean().default(false) }),
      handler: async (args, ctx) => {
        const d = await ctx.kube.getDeployment(args.namespace, args.name);
        if (ctx.writer)
          await ctx.writer.patchDeploymentJson(args.namespace, args.name, [], { fieldManager: 't' });
        return { text: `generation ${d.metadata?.generation}` };
      },
    });
    const pipeline = createToolCallPipeline({
      registry: createRegistry([readDeployment, touchDeployment]),
      kube: () => kube,
      middlewares: [],
      logger: pino({ level: 'silent' }),
    });
    const call = async (
      name: string,
      args: Record<string, unknown>,
      readSnapshot?: unknown,
      identity = localIdentity,
    ) =>
      pipeline({
        requestId: 'req-1',
        identity,
        name,
        arguments: args,
        signal: new AbortController().signal,
        ...(readSnapshot !== undefined && { readSnapshot }),
      });
    return { call, gets: () => gets };
  }
  const web = { namespace: 'shop', name: 'web' };

  it('shares reads between read tools and dry runs naming one snapshot; a change reads afresh', async () => {
    const { call, gets } = snapshotSetup();
    expect(text(await call('read_deployment', web, 'inv_1'))).toBe('generation 1');
    expect(text(await call('read_deployment', web, 'inv_1'))).toBe('generation 1');
    expect(text(await call('touch_deployment', { ...web, dry_run: true }, 'inv_1'))).toBe('generation 1');
    expect(gets()).toBe(1);
    // Without a snapshot, or with another one: the cluster.
    expect(text(await call('read_deployment', web))).toBe('generation 2');
    expect(text(await call('read_deployment', web, 'inv_2'))).toBe('generation 3');
    // A change never reads from a snapshot, and its write drops every snapshot.
    expect(text(await call('touch_deployment', web, 'inv_1'))).toBe('generation 4');
    expect(text(await call('read_deployment', web, 'inv_1'))).toBe('generation 5');
    expect(text(await call('read_deployment', web, 'inv_2'))).toBe('generation 6');
  });

  it('keeps each identity’s snapshot to itself: another identity naming the same id reads the cluster', async () => {
    const { call, gets } = snapshotSetup();
    const alice = { ...localIdentity, name: 'alice' };
    expect(text(await call('read_deployment', web, 'inv_1'))).toBe('generation 1');
    expect(text(await call('read_deployment', web, 'inv_1', alice))).toBe('generation 2');
    expect(text(await call('read_deployment', web, 'inv_1'))).toBe('generation 1');
    expect(gets()).toBe(2);
  });

  it.each([[''], ['has spaces'], [42], ['x'.repeat(129)]])(
    'refuses read_snapshot %j naming the field and the rule, before anything runs',
    async (readSnapshot) => {
      const { call, gets } = snapshotSetup();
      const result = await call('read_deployment', web, readSnapshot);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^_meta\.read_snapshot must be 1-128 letters/);
      expect(gets()).toBe(0);
    },
  );
});
