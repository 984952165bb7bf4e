/**
 * The check behind "every write/destructive tool pauses for a human in the harness": the spec's
 * Sentinel entry must gate each such tool by its annotations *and* by its literal name (so it stays
 * gated if annotations are lost in transit), and every literal name must be a real write/destructive
 * tool.
 */
import type { Tool } from '../tools/index.ts';
import type { McpServerEntry } from './schema.ts';
import { literalToolNames, requiresApproval } from './selectors.ts';

export interface CoverageOptions {
  /**
   * Literal names allowed before their tool is registered (work in progress). A name here that IS
   * registered is itself a problem, so the allowance cannot outlive the tool's arrival.
   */
  notYetRegistered?: readonly string[];
}

/**
 * Problems with how `entry` gates `tools`, as sentences; empty when every write/destructive tool is
 * gated under the harness's selector semantics with and without annotations, `@write` and
 * `@destructive` are listed, and the literal names are exactly the write/destructive tools.
 */
export function approvalCoverageProblems(
  tools: readonly Tool[],
  entry: McpServerEntry,
  options: CoverageOptions = {},
): string[] {
  const selectors = entry.require_approval_for_tools;
  const problems: string[] = [];
  if (selectors === undefined) {
    return [
      `mcp_servers '${entry.name}' has no require_approval_for_tools; the harness default does not gate unannotated tools.`,
    ];
  }
  for (const tag of ['@write', '@destructive']) {
    if (!selectors.includes(tag)) problems.push(`require_approval_for_tools must include '${tag}'.`);
  }
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const tool of tools) {
    if (tool.risk === 'read') continue;
    if (!requiresApproval(tool.name, tool.annotations, selectors)) {
      problems.push(`${tool.name} (${tool.risk}) is not gated by its annotations.`);
    }
    if (!requiresApproval(tool.name, undefined, selectors)) {
      problems.push(
        `${tool.name} (${tool.risk}) is not listed by literal name, so it would run unapproved if its annotations were lost.`,
      );
    }
  }
  const pending = new Set(options.notYetRegistered ?? []);
  for (const name of literalToolNames(selectors)) {
    const tool = byName.get(name);
    if (tool === undefined && !pending.has(name))
      problems.push(`'${name}' is listed but is not a registered tool.`);
    if (tool?.risk === 'read') problems.push(`'${name}' is listed but is a read tool.`);
    if (tool !== undefined && pending.has(name)) {
      problems.push(`'${name}' is registered now; remove it from the not-yet-registered list.`);
    }
  }
  return problems;
}
