/**
 * Fixture tools for server tests: what each handler saw is recorded so tests can assert the context
 * (writer present or not, dry run, approval request id) without a cluster.
 */
import { z } from 'zod';
import { defineTool, toolInput, type ToolContext } from '../../tools/define-tool.ts';
import { SentinelError } from '../../tools/errors.ts';
import { createRegistry } from '../../tools/registry.ts';

/** One handler invocation. */
export interface SeenCall {
  tool: string;
  args: Record<string, unknown>;
  hasWriter: boolean;
  dryRun: boolean;
  approvalRequestId: string | undefined;
  context: string;
}

/** Builds fixture tools that push what they saw into `seen`. */
export function fixtureTools(seen: SeenCall[] = []) {
  const record = (tool: string, args: Record<string, unknown>, ctx: ToolContext) =>
    seen.push({
      tool,
      args,
      hasWriter: ctx.writer !== undefined,
      dryRun: ctx.dryRun,
      approvalRequestId: ctx.approvalRequestId,
      context: ctx.cluster.context,
    });
  const target = {
    namespace: z.string().min(1).describe('Namespace of the Deployment.'),
    name: z.string().min(1).describe('Name of the Deployment.'),
  };
  const readThing = defineTool({
    name: 'read_thing',
    title: 'Read a thing',
    description: 'Fixture read tool.',
    risk: 'read',
    input: toolInput(target),
    handler: async (args, ctx) => {
      record('read_thing', args, ctx);
      return { text: `read ${args.namespace}/${args.name}`, structured: { namespace: args.namespace } };
    },
  });
  const pauseThing = defineTool({
    name: 'pause_thing',
    title: 'Pause a thing',
    description: 'Fixture write tool.',
    risk: 'write',
    input: toolInput(target),
    handler: async (args, ctx) => {
      record('pause_thing', args, ctx);
      return { text: 'paused' };
    },
  });
  const scaleThing = defineTool({
    name: 'scale_thing',
    title: 'Scale a thing',
    description: 'Fixture destructive tool with a dry-run mode.',
    risk: 'destructive',
    supportsDryRun: true,
    input: toolInput({
      ...target,
      replicas: z.number().int().min(0).max(100).describe('Desired replicas, 0-100.'),
      dry_run: z.boolean().default(false).describe('Preview only. Default false.'),
    }),
    output: z.object({ replicas: z.number(), dry_run: z.boolean() }),
    handler: async (args, ctx) => {
      record('scale_thing', args, ctx);
      return {
        text: `${args.dry_run ? 'would scale' : 'scaled'} to ${args.replicas}`,
        structured: { replicas: args.replicas, dry_run: args.dry_run },
      };
    },
  });
  const failingThing = defineTool({
    name: 'failing_thing',
    title: 'Fail',
    description: 'Fixture tool that fails in the expected way and in an unexpected way.',
    risk: 'read',
    input: toolInput({ unexpected: z.boolean().default(false) }),
    handler: async (args) => {
      if (args.unexpected) throw new Error('secret internal detail at /srv/app.ts:12');
      throw new SentinelError('not_found', "Deployment 'web' not found in namespace 'prod'.", {
        kind: 'Deployment',
        namespace: 'prod',
        name: 'web',
      });
    },
  });
  const badOutput = defineTool({
    name: 'bad_output',
    title: 'Bad output',
    description: 'Fixture tool whose structured output breaks its schema.',
    risk: 'read',
    input: toolInput({}),
    output: z.object({ count: z.number() }),
    handler: async () => ({ text: 'oops', structured: { count: 'many' } as unknown as { count: number } }),
  });
  const tools = [readThing, pauseThing, scaleThing, failingThing, badOutput];
  return { tools, registry: createRegistry(tools) };
}
