/**
 * The tool registry: a name-indexed, immutable set of tools built only from `defineTool` results.
 */
import { SentinelError } from './errors.ts';
import type { Risk, Tool } from './define-tool.ts';

export interface ToolRegistry {
  /** Tools in registration order. */
  readonly tools: readonly Tool[];
  /** The tool with this exact name, or undefined (the gate denies unknown tools). */
  get(name: string): Tool | undefined;
  /** Names of tools with the given risks, in registration order. */
  namesWithRisk(...risks: Risk[]): string[];
}

/**
 * Builds a registry. Throws `SentinelError('invalid_input')` naming the tool when two tools share a
 * name or a tool did not come from `defineTool` (no derived annotations).
 */
export function createRegistry(tools: readonly Tool[]): ToolRegistry {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (!tool || typeof tool !== 'object' || !('annotations' in tool) || !Object.isFrozen(tool)) {
      throw new SentinelError('invalid_input', 'Registry accepts only tools created with defineTool().', {
        field: 'tools',
      });
    }
    if (byName.has(tool.name)) {
      throw new SentinelError(
        'invalid_input',
        `Tool name '${tool.name}' is registered twice; tool names must be unique.`,
        {
          field: 'name',
        },
      );
    }
    byName.set(tool.name, tool);
  }
  const list = Object.freeze([...byName.values()]);
  return {
    tools: list,
    get: (name) => byName.get(name),
    namesWithRisk: (...risks) => list.filter((t) => risks.includes(t.risk)).map((t) => t.name),
  };
}
