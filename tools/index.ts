/**
 * Public entry of the tools module: `defineTool`, the registry, errors, and the flat list of every
 * Sentinel tool (`allTools`). Add a tool by importing it here; the registry test pins the list.
 */
import type { Tool } from './define-tool.ts';
import { getClusterVersion } from './investigate/get-cluster-version.ts';

export { defineTool, toolInput, annotationsFor, isStrictObject, RISKS } from './define-tool.ts';
export type {
  Risk,
  Tool,
  ToolSpec,
  ToolContext,
  ToolOutput,
  ToolAnnotations,
  ClusterIdentity,
} from './define-tool.ts';
export { createRegistry, type ToolRegistry } from './registry.ts';
export { SentinelError, toSentinelError, type ErrorCode } from './errors.ts';

/** Every tool Sentinel serves, in the order they are listed to clients. */
export const allTools: readonly Tool[] = [getClusterVersion];
