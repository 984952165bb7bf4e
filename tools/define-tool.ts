/**
 * `defineTool`: the only way a Sentinel tool comes into existence.
 *
 * A tool must say what kind of tool it is (`risk`), and its MCP annotations are derived from that
 * declaration and nothing else. Input schemas must be strict zod objects so a misspelled argument
 * (`dryrun`, `to_revison`) is an error instead of being silently dropped — a dropped `dry_run` would
 * turn a preview into a change.
 */
import type { Cluster } from '../core/index.ts';
import { z } from 'zod';
import { SentinelError } from './errors.ts';
import { withCallSignal } from './kube/cancellation.ts';
import type { KubeReader, KubeWriter } from './kube/types.ts';

/** What the worst call of a tool can do. No default: every tool must say. */
export type Risk = 'read' | 'write' | 'destructive';

export const RISKS: readonly Risk[] = ['read', 'write', 'destructive'];

/** MCP tool annotations as Sentinel publishes them (derived from `risk`, never written by hand). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The cluster a call runs against; goes into every tool result and every approval. */
/** kubeconfig context name (`in-cluster` inside a Pod) and API server URL: core's `Cluster`. */
export type ClusterIdentity = Cluster;

/** What a handler returns: compact text for the model, structured content for programs. */
export interface ToolOutput<O = Record<string, unknown>> {
  text: string;
  structured?: O;
}

/**
 * Per-call context a handler receives, built by the server for each `tools/call`.
 * `kube` has no mutating methods; `writer` is present only for write/destructive tools executing a
 * real call — never for read tools and never when `dry_run` is true — so a preview cannot change
 * anything whatever its code does.
 */
export interface ToolContext {
  kube: KubeReader;
  writer?: KubeWriter;
  cluster: ClusterIdentity;
  /**
   * Aborted when the MCP request is cancelled or times out. For a call without a writer (a read
   * tool, a dry run), the Kubernetes reads it makes are then aborted (`cancelled`); an execution
   * runs to the end (tools/kube/cancellation.ts).
   */
  signal: AbortSignal;
  /** Set when the call executes an approved request; stamped on the change in the cluster. */
  approvalRequestId?: string;
  /** Whether this call is a preview (`dry_run: true` on a tool that supports it). */
  dryRun: boolean;
  /**
   * Set on a preview whose only job is re-checking an approved call before it executes (the gate's
   * stale check): the approver already read the warnings of the preview they decided on, so reads
   * that only feed warnings may be skipped. The resolved arguments and the effect must be exactly a
   * full preview's.
   */
  recheck?: boolean;
}

declare const strictInputBrand: unique symbol;

/**
 * A strict zod object made by `toolInput`: unknown keys are rejected. The brand exists because zod's
 * `$strip` and `$strict` configs are structurally identical types; without it `z.object()` (which
 * silently drops unknown keys) would type-check as a tool input.
 */
export type StrictObjectSchema<S extends z.ZodRawShape = z.ZodRawShape> = z.ZodObject<S, z.core.$strict> & {
  readonly [strictInputBrand]: true;
};

/**
 * The input schema of a tool: `z.strictObject(shape)`, branded so only strict objects type-check.
 * Every field should `.describe()` its unit, range and default.
 */
export function toolInput<S extends z.ZodRawShape>(shape: S): StrictObjectSchema<S> {
  return z.strictObject(shape) as StrictObjectSchema<S>;
}

export interface ToolSpec<I extends StrictObjectSchema, O extends Record<string, unknown>> {
  /** snake_case, 3–64 characters, e.g. `rollback_deployment`. */
  name: string;
  /** Short human title, e.g. `Roll back a Deployment`. */
  title: string;
  /** What the tool does, its units, defaults and the kubectl command it mirrors. Non-empty. */
  description: string;
  /** Required and without a default: what the worst call of this tool can do. */
  risk: Risk;
  /** Strict object schema made with `toolInput`; every field documents its unit, range and default. */
  input: I;
  /** Optional schema of `structuredContent`. */
  output?: z.ZodType<O>;
  /** Whether the tool accepts `dry_run: true` and then changes nothing. Default false. */
  supportsDryRun?: boolean;
  /** Whether repeating the same call has no additional effect. Default: true for read tools, else false. */
  idempotent?: boolean;
  /** Runs the call. Throw `SentinelError` for expected failures; the server turns it into `isError`. */
  handler(args: z.infer<I>, ctx: ToolContext): Promise<ToolOutput<O>>;
}

/** A registered tool: the spec plus the annotations derived from its risk. */
export interface Tool<
  I extends StrictObjectSchema = StrictObjectSchema,
  O extends Record<string, unknown> = Record<string, unknown>,
> extends Readonly<ToolSpec<I, O>> {
  readonly annotations: Readonly<ToolAnnotations>;
  readonly supportsDryRun: boolean;
  readonly idempotent: boolean;
}

const TOOL_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/**
 * The MCP annotations for a risk level (DESIGN.md, "Structural"): read → readOnlyHint true,
 * destructiveHint false; write → both false; destructive → readOnlyHint false, destructiveHint
 * true. openWorldHint is always true: a live cluster is an external system.
 */
export function annotationsFor(risk: Risk, title: string, idempotent: boolean): ToolAnnotations {
  return {
    title,
    readOnlyHint: risk === 'read',
    destructiveHint: risk === 'destructive',
    idempotentHint: idempotent,
    openWorldHint: true,
  };
}

/** True when `schema` is a zod object that rejects unknown keys. */
export function isStrictObject(schema: unknown): boolean {
  if (!(schema instanceof z.ZodObject)) return false;
  const catchall = schema._zod.def.catchall;
  return catchall !== undefined && catchall._zod.def.type === 'never';
}

/**
 * Defines a tool. Throws `SentinelError('invalid_input')` when the name is not snake_case, the
 * description is empty, the risk is not one of `read | write | destructive`, or the input schema is
 * not a strict object. `risk` is a required property with no default; there is no overload without it.
 */
export function defineTool<
  I extends StrictObjectSchema,
  O extends Record<string, unknown> = Record<string, unknown>,
>(spec: ToolSpec<I, O>): Tool<I, O> {
  const fail = (field: string, rule: string): never => {
    throw new SentinelError('invalid_input', `Tool '${String(spec.name)}': ${field} ${rule}.`, { field });
  };
  if (typeof spec.name !== 'string' || !TOOL_NAME.test(spec.name) || spec.name.length > 64) {
    fail(
      'name',
      'must be snake_case (lowercase letters, digits and single underscores), at most 64 characters',
    );
  }
  if (typeof spec.title !== 'string' || spec.title.trim() === '') fail('title', 'must be a non-empty string');
  if (typeof spec.description !== 'string' || spec.description.trim() === '') {
    fail('description', 'must be a non-empty string');
  }
  if (!RISKS.includes(spec.risk)) fail('risk', "must be one of 'read', 'write', 'destructive'");
  if (!isStrictObject(spec.input))
    fail('input', 'must be a strict zod object (toolInput) so unknown arguments are rejected');
  if (spec.supportsDryRun && !('dry_run' in spec.input.shape)) {
    fail('input', "must declare a 'dry_run' field when supportsDryRun is true");
  }
  const idempotent = spec.idempotent ?? spec.risk === 'read';
  return Object.freeze({
    ...spec,
    // A read or a preview stops its Kubernetes reads when its MCP request is cancelled; an execution
    // (a call holding a writer) runs to the end, so a change is never left half-made.
    handler: (args: z.infer<I>, ctx: ToolContext) =>
      ctx.writer ? spec.handler(args, ctx) : withCallSignal(ctx.signal, () => spec.handler(args, ctx)),
    supportsDryRun: spec.supportsDryRun ?? false,
    idempotent,
    annotations: Object.freeze(annotationsFor(spec.risk, spec.title, idempotent)),
  });
}
