/**
 * Requests without a valid token (issue 13, finding 5) are counted in the metrics by route and
 * remote address and recorded in aggregate — at most one audit record per source per window, with
 * a count — so nobody can grow the log without limit; authenticated callers keep one record per call.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import {
  createUnauthenticatedAudit,
  MAX_SOURCES,
  OTHER_SOURCE,
  openAuditLog,
  type AuditLog,
} from '../../../server/audit/index.ts';
import { parseServeOptions } from '../../../server/config.ts';
import { gatePlugin } from '../../../server/gate/plugin.ts';
import { startServe } from '../../../server/serve.ts';
import { createOversightPlugin } from '../../../server/oversight.ts';
import { createRegistry } from '../../../tools/registry.ts';
import { fixtureTools } from '../gate/fixtures/tools.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';

describe('the aggregated unauthenticated record', () => {
  let dir: string;
  let cleanup: () => void;
  let log: AuditLog;
  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    log = openAuditLog(dir);
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    log.close();
    cleanup();
  });

  const at = (second: number) => new Date(Date.UTC(2025, 0, 31, 2, 10, second));

  it('writes one record per source per window, with the count and the routes', () => {
    const audit = createUnauthenticatedAudit(log, { windowMs: 60_000 });
    for (let i = 0; i < 500; i++) audit.record({ at: at(i % 60), source: '10.0.0.7', route: 'POST /mcp' });
    audit.record({ at: at(59), source: '10.0.0.7', route: 'GET /approvals' });
    audit.record({ at: at(3), source: '10.0.0.9', route: 'POST /mcp' });
    expect(log.records()).toEqual([]);
    vi.advanceTimersByTime(60_000);
    expect(log.records().map((r) => [r.kind, r.identity, r.outcome, r.unauthenticated])).toEqual([
      [
        'unauthenticated',
        '(unauthenticated)',
        'rejected',
        {
          source: '10.0.0.7',
          count: 501,
          first: at(0).toISOString(),
          last: at(59).toISOString(),
          routes: { 'GET /approvals': 1, 'POST /mcp': 500 },
        },
      ],
      [
        'unauthenticated',
        '(unauthenticated)',
        'rejected',
        {
          source: '10.0.0.9',
          count: 1,
          first: at(3).toISOString(),
          last: at(3).toISOString(),
          routes: { 'POST /mcp': 1 },
        },
      ],
    ]);
    vi.advanceTimersByTime(60_000); // a quiet window writes nothing
    audit.record({ at: at(30), source: '10.0.0.7', route: 'POST /mcp' });
    audit.close(); // shutdown flushes the open window
    expect(log.records().map((r) => r.unauthenticated?.count)).toEqual([501, 1, 1]);
    expect(log.verify().broken).toBeUndefined();
  });

  it('bounds the sources it remembers per window', () => {
    const audit = createUnauthenticatedAudit(log);
    for (let i = 0; i < MAX_SOURCES + 50; i++) {
      audit.record({ at: at(1), source: `10.1.${i >> 8}.${i & 255}`, route: 'POST /mcp' });
    }
    audit.flush();
    const records = log.records();
    expect(records).toHaveLength(MAX_SOURCES + 1);
    expect(records.at(-1)?.unauthenticated).toMatchObject({ source: OTHER_SOURCE, count: 50 });
  });
});

describe('a server flooded with requests without a valid token', { timeout: 120_000 }, () => {
  it('counts them by route and address, records one aggregate, and still records each authenticated call', async () => {
    const data = tempDataDir();
    const token = 'local-token-0123456789abcdef';
    try {
      const server = await startServe(
        parseServeOptions({ port: 0, dataDir: data.dir }),
        { stderr: () => {}, env: { SENTINEL_TOKEN: token } },
        {
          registry: createRegistry(fixtureTools),
          kube: { configured: false, reason: 'no cluster in this test' },
          logger: pino({ level: 'silent' }),
          // A window longer than the test: everything lands in the one flushed at shutdown.
          plugins: [createOversightPlugin({ unauthenticatedWindowMs: 3_600_000 }), gatePlugin],
        },
      );
      const url = server.url!;
      const post = (authorization?: string) =>
        fetch(`${url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(authorization && { authorization }),
          },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_version","arguments":{}}}',
        }).then((response) => response.status);
      const statuses = await Promise.all([
        ...Array.from({ length: 40 }, () => post('Bearer snt_not-a-token-of-anyone')),
        ...Array.from({ length: 10 }, () => post()),
        ...Array.from({ length: 5 }, () => fetch(`${url}/approvals`).then((r) => r.status)),
      ]);
      expect(new Set(statuses)).toEqual(new Set([401]));

      const before = openAuditLog(data.dir, { mustExist: true });
      expect(before.records().filter((r) => r.outcome === 'rejected')).toEqual([]);
      before.close();

      const metrics = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      const text = await metrics.text();
      const sample = (route: string) =>
        Number(
          new RegExp(
            `^sentinel_unauthenticated_requests_total\\{route="${route}",remote_address="[^"]*127\\.0\\.0\\.1"\\} (\\d+)$`,
            'm',
          ).exec(text)?.[1],
        );
      expect(sample('POST /mcp')).toBe(50);
      expect(sample('GET /approvals')).toBe(5);

      const client = await connectClient(url, token);
      for (let i = 0; i < 3; i++) await client.callTool({ name: 'get_version', arguments: {} });
      await client.close();
      await server.close();

      const log = openAuditLog(data.dir, { mustExist: true });
      try {
        const records = log.records();
        expect(records.filter((r) => r.tool === 'get_version' && r.identity === 'local')).toHaveLength(3);
        const aggregated = records.filter((r) => r.kind === 'unauthenticated');
        expect(aggregated).toHaveLength(1);
        expect(aggregated[0]!.unauthenticated).toMatchObject({
          source: expect.stringMatching(/127\.0\.0\.1$/),
          count: 55,
          routes: { 'GET /approvals': 5, 'POST /mcp': 50 },
        });
        expect(records.filter((r) => r.identity === '(unauthenticated)')).toHaveLength(1);
        expect(log.verify().broken).toBeUndefined();
      } finally {
        log.close();
      }
    } finally {
      data.cleanup();
    }
  });
});
