/**
 * Calling a tool the way the server does, without a server: parse the arguments with the tool's
 * strict input schema, run the handler, and check `structured` against the output schema.
 */
import { expect } from 'vitest';
import type { Tool, ToolContext, ToolOutput } from '../../tools/define-tool.ts';
import { SentinelError } from '../../tools/errors.ts';

/** Runs `tool` with `args`; fails the test if the structured output does not match the output schema. */
export async function callTool(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolOutput> {
  const parsed = tool.input.parse(args);
  const output = await tool.handler(parsed, ctx);
  if (tool.output) {
    const check = tool.output.safeParse(output.structured);
    expect(check.success, check.success ? '' : JSON.stringify(check.error.issues, null, 2)).toBe(true);
  }
  return output;
}

/** Runs `tool` expecting a `SentinelError`; returns it. */
export async function callToolError(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<SentinelError> {
  const error = await callTool(tool, args, ctx).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SentinelError);
  return error as SentinelError;
}
