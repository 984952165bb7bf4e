/**
 * Calls refused before the middlewares — unknown tool, invalid arguments, no valid token — leave an
 * audit record too (outcome `rejected`), through `sentinel serve`'s real plugins; no argument value
 * and no token reaches the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAuditLog, type AuditRecord } from '../../../server/audit/index.ts';
import { startGateServer, type GateServer } from '../gate/fixtures/serve.ts';

describe('audit of rejected calls', () => {
  let s: GateServer;
  beforeAll(async () => {
    s = await startGateServer();
  });
  afterAll(() => s.close());

  /** POSTs one tools/call to /mcp with `token`; returns the HTTP status. */
  const call = async (token: string, name: string, args: Record<string, unknown>) => {
    const response = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });
    await response.text();
    return response.status;
  };

  /** The audit records written since `before` (a record count). */
  const recordsAfter = (before: number): AuditRecord[] => {
    const log = openAuditLog(s.dataDir, { mustExist: true });
    try {
      return log.records().slice(before);
    } finally {
      log.close();
    }
  };
  const count = () => recordsAfter(0).length;

  it('records an unknown tool with the caller, the name as sent and the error', async () => {
    const before = count();
    expect(await call(s.tokens.agent, 'drop_database', { really: true })).toBe(200);
    expect(recordsAfter(before)).toEqual([
      expect.objectContaining({
        kind: 'tool_call',
        identity: 'agent',
        tool: 'drop_database',
        arguments: {},
        outcome: 'rejected',
        rule: null,
        decision: null,
        error: {
          code: 'not_found',
          message: "Unknown tool 'drop_database'; tools/list shows the tools this server provides.",
        },
      }),
    ]);
  });

  it('records invalid arguments by field, never their values', async () => {
    const before = count();
    const secret = 'password=hunter2-do-not-log';
    await call(s.tokens.agent, 'scale_deployment', { namespace: 'shop', name: 'checkout', replicas: secret });
    const [record, ...rest] = recordsAfter(before);
    expect(rest).toEqual([]);
    expect(record).toMatchObject({
      identity: 'agent',
      tool: 'scale_deployment',
      arguments: {},
      outcome: 'rejected',
      error: { code: 'invalid_input', message: expect.stringContaining('arguments.replicas:') },
    });
    expect(JSON.stringify(record)).not.toContain('hunter2');
  });

  it('does not record a POST /mcp with an unknown token on its own (aggregated per source), nor the token', async () => {
    const before = count();
    const wrong = 'snt_wrong-token-that-must-not-be-stored';
    expect(await call(wrong, 'scale_deployment', { replicas: 1 })).toBe(401);
    expect(recordsAfter(before)).toEqual([]);
    expect(JSON.stringify(recordsAfter(0))).not.toContain(wrong);
  });

  it('keeps the chain intact', () => {
    const log = openAuditLog(s.dataDir, { mustExist: true });
    try {
      const report = log.verify();
      expect(report.broken).toBeUndefined();
      expect(report.records).toBeGreaterThanOrEqual(2);
    } finally {
      log.close();
    }
  });
});
