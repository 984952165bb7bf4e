/**
 * The one way a tool handler runs: the pipeline (`tools/call`), the gate's preview for
 * `POST /approvals` (`previewWith`) and the tests all call `runTool`, so every run gets the same
 * context and the same output-schema check, and answers the same MCP result shape.
 *
 * Also the reads one `tools/call` shares between its preview and its execution (`CallReads`): the
 * gate previews a change, compares the effect, then executes; the execution's plan is built from
 * the reads the preview just made (each replayed once, for the same method and arguments) instead
 * of asking the API server again. Whatever changed in between is caught by the write's own
 * precondition (the rollback's `resourceVersion`) and any read after a write goes to the cluster.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type Tool,
  type ToolContext,
  sanitizedCopy,
  unsanitized,
  type KubeReader,
  type KubeWriter,
  withCloseNames,
} from '../tools/index.ts';
import { SentinelError } from '../core/index.ts';

/**
 * Runs `tool`'s handler on `args` (already parsed by the tool's schema) with `context`, handing it
 * `options.writer` when given (only an execution of a write/destructive call gets one). Checks the
 * structured output against the tool's output schema. Returns the MCP result (text content plus
 * `structuredContent`). Throws what the handler throws (a `not_found` for a Deployment or Service
 * with the close names of its namespace appended, `withCloseNames`), and `SentinelError('internal')`
 * when its output does not match its schema.
 */
export async function runTool(
  tool: Tool,
  args: Record<string, unknown>,
  context: Omit<ToolContext, 'writer'>,
  options: { writer?: KubeWriter | undefined } = {},
): Promise<CallToolResult> {
  const output = await tool
    .handler(args, {
      ...context,
      ...(options.writer && { writer: options.writer }),
    })
    .catch(async (error: unknown) => {
      // A Deployment or Service that is not there: say which names close to it are.
      throw await withCloseNames(error, context.kube);
    });
  let structured = output.structured;
  if (tool.output) {
    const parsed = tool.output.safeParse(structured);
    if (!parsed.success) {
      throw new SentinelError(
        'internal',
        `Tool '${tool.name}' produced output that does not match its schema.`,
        {
          cause: parsed.error,
        },
      );
    }
    structured = parsed.data;
  }
  return {
    content: [{ type: 'text', text: output.text }],
    ...(structured !== undefined && { structuredContent: structured }),
  };
}

/**
 * The reads of one `tools/call`: `recording(reader)` for a preview remembers what each read
 * answered; `replaying(reader)` for the execution answers each remembered read (the newest answer, a copy) once, then
 * reads live. `forget()` drops what is remembered (after a write nothing is replayed).
 */
export interface CallReads {
  recording(reader: KubeReader): KubeReader;
  replaying(reader: KubeReader): KubeReader;
  forget(): void;
}

const keyOf = (method: string, args: unknown[]): string => `${method}:${JSON.stringify(args)}`;

/**
 * A copy of one object a read answered. A sanitized copy of what the API server sent
 * (tools/kube/sanitize.ts) is copied as such — the original copied and sanitized again — so the
 * replayed object still leads back to what was sent (`unsanitized`), as a fresh read's would.
 */
function copyOne(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const sent = unsanitized(value);
  return sent === value ? structuredClone(value) : sanitizedCopy(structuredClone(sent));
}

/** A copy of a read's answer, or undefined when it cannot be copied (then it is not replayed). */
export function copyOf(value: unknown): { value: unknown } | undefined {
  try {
    return { value: Array.isArray(value) ? value.map(copyOne) : copyOne(value) };
  } catch {
    return undefined;
  }
}

/** Every property name of `object` and its prototypes (short of `Object.prototype`). */
export function propertyNames(object: object): string[] {
  const names = new Set<string>();
  for (let at: object | null = object; at && at !== Object.prototype; at = Object.getPrototypeOf(at)) {
    for (const name of Object.getOwnPropertyNames(at)) if (name !== 'constructor') names.add(name);
  }
  return [...names];
}

/**
 * A copy of `object` whose methods run through `around(method, args, call)` (`call` runs the
 * original). A plain object, so a frozen client can be wrapped; other properties are copied.
 */
function wrapMethods<T extends object>(
  object: T,
  around: (method: string, args: unknown[], call: () => unknown) => unknown,
): T {
  const wrapped: Record<string, unknown> = {};
  for (const name of propertyNames(object)) {
    const value: unknown = (object as Record<string, unknown>)[name];
    wrapped[name] =
      typeof value === 'function'
        ? (...args: unknown[]) =>
            around(name, args, () => (value as (...a: unknown[]) => unknown).apply(object, args))
        : value;
  }
  return wrapped as T;
}

export function createCallReads(): CallReads {
  // The newest answer of each read; a replay uses it up.
  let remembered = new Map<string, { value: unknown }>();
  return {
    recording: (reader) =>
      wrapMethods(reader, async (method, args, call) => {
        const value = await call();
        const copy = copyOf(value);
        if (copy) remembered.set(keyOf(method, args), copy);
        return value;
      }),
    replaying: (reader) =>
      wrapMethods(reader, async (method, args, call) => {
        const key = keyOf(method, args);
        const answer = remembered.get(key);
        if (!answer) return call();
        remembered.delete(key);
        return answer.value;
      }),
    forget() {
      remembered = new Map();
    },
  };
}

/**
 * `writer` with every method forgetting `reads` (and `also`, e.g. the server's read snapshots)
 * first: after a write, reads go to the cluster.
 */
export function forgettingWriter(
  writer: KubeWriter,
  reads: CallReads,
  ...also: readonly { forget(): void }[]
): KubeWriter {
  return wrapMethods(writer, (_method, _args, call) => {
    reads.forget();
    for (const other of also) other.forget();
    return call();
  });
}
