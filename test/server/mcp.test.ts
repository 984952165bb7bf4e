/**
 * Per-request MCP servers share what does not depend on the request (issue 17): one `Server` and
 * transport per request as the SDK's stateless model requires, but the `tools/list` result and the
 * JSON Schema validator (the SDK builds an Ajv instance per `Server` otherwise) are built once.
 */
import { describe, expect, it, vi } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../../server/identity.ts';
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

  it('answers tools/call with the pipeline result itself: the SDK does not parse the request again nor copy the result', async () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: 'ok' }],
      structuredContent: { replicas: { desired: 3, ready: 3 } },
    };
    const seen: unknown[] = [];
    const server = createMcpServer({
      ...options,
      pipeline: (request) => {
        seen.push(request);
        return Promise.resolve(result);
      },
      caller: () => ({ identity: { name: 'agent' } as unknown as Identity, requestId: 'r1' }),
    });
    const sent: JSONRPCMessage[] = [];
    const [client, transport] = InMemoryTransport.createLinkedPair();
    client.onmessage = (message) => sent.push(message);
    await server.connect(transport);
    await client.start();
    await client.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'get_deployment', arguments: { namespace: 'shop', name: 'checkout' } },
    });
    await vi.waitFor(() => expect(sent).toHaveLength(1), { timeout: 10_000 });
    expect(seen).toEqual([
      expect.objectContaining({ name: 'get_deployment', arguments: { namespace: 'shop', name: 'checkout' } }),
    ]);
    // The very object the pipeline returned: no CallToolResultSchema round trip (a deep copy).
    expect((sent[0] as { result?: unknown }).result).toBe(result);
    await server.close();
  });

  it('still refuses a tools/call whose params do not match the MCP schema, before the pipeline', async () => {
    const server = createMcpServer({
      ...options,
      caller: () => ({ identity: {} as Identity, requestId: 'r' }),
    });
    const sent: JSONRPCMessage[] = [];
    const [client, transport] = InMemoryTransport.createLinkedPair();
    client.onmessage = (message) => sent.push(message);
    await server.connect(transport);
    await client.start();
    await client.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { arguments: {} } });
    await vi.waitFor(() => expect(sent).toHaveLength(1), { timeout: 10_000 });
    expect(sent[0]).toMatchObject({ id: 8, error: { code: expect.any(Number) } });
    await server.close();
  });
});
