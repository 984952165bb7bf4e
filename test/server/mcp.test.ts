/**
 * Per-request MCP servers share what does not depend on the request (issue 17): one `Server` and
 * transport per request as the SDK's stateless model requires, but the `tools/list` result and the
 * JSON Schema validator (the SDK builds an Ajv instance per `Server` otherwise) are built once.
 */
import { describe, expect, it } from 'vitest';
import { createMcpServer, listTools } from '../../server/mcp.ts';
import { allTools, createRegistry } from '../../tools/index.ts';

describe('createMcpServer', () => {
  const registry = createRegistry(allTools);
  const options = {
    registry,
    pipeline: () => Promise.reject(new Error('not called')),
    caller: () => {
      throw new Error('not called');
    },
    version: '0.0.0',
  };

  it('gives every per-request server the same JSON Schema validator and tools/list result', () => {
    const a = createMcpServer(options) as unknown as { _jsonSchemaValidator: unknown };
    const b = createMcpServer(options) as unknown as { _jsonSchemaValidator: unknown };
    expect(a).not.toBe(b);
    expect(a._jsonSchemaValidator).toBeDefined();
    expect(a._jsonSchemaValidator).toBe(b._jsonSchemaValidator);
    expect(listTools(registry)).toBe(listTools(registry));
  });
});
