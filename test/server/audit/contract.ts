/**
 * The contract every audit log engine passes (SQLite and PostgreSQL), through `AsyncAuditLog`:
 * a linear hash chain that survives reopening, append-only through SQL, detection of an edited or
 * removed record, `since`, one linear chain with concurrent appenders on several handles
 * (processes, replicas), and group commit: appends of one event-loop turn share one transaction, a
 * caller's append resolves only once its record is committed, and a failed transaction fails every
 * caller in it and writes none of them. Each test gets a fresh, empty log.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENESIS_HASH, hashRecord } from '../../../server/audit/index.ts';
import type { AsyncAuditLog } from '../../../server/audit/async-log.ts';
import { auditEntry as entry } from '../../helpers/audit.ts';

/** One empty log of an engine: open handles on it, and change it behind the log's back. */
export interface AuditBackend {
  /** Opens another handle on the same log (as another process or replica would). */
  open(): Promise<AsyncAuditLog>;
  /** Runs SQL on the log's database directly, with the append-only guard removed first. */
  tamper(sql: string, params?: (string | number)[]): Promise<void>;
  /** Runs SQL on the database directly (guards in place); rejects as the engine does. */
  exec(sql: string): Promise<void>;
  /** Makes the database refuse (raise an error for) every insert whose json contains `marker`. */
  refuseInserts(marker: string): Promise<void>;
  cleanup(): Promise<void>;
}

export function describeAuditLogContract(name: string, create: () => Promise<AuditBackend>): void {
  describe(`audit log contract: ${name}`, () => {
    let backend: AuditBackend;
    const opened: AsyncAuditLog[] = [];
    const open = async () => {
      const log = await backend.open();
      opened.push(log);
      return log;
    };
    beforeEach(async () => {
      backend = await create();
    });
    afterEach(async () => {
      for (const log of opened.splice(0)) await log.close();
      await backend.cleanup();
    });

    it('chains records across reopening: each carries the previous hash and a hash of its own content', async () => {
      const log = await open();
      const first = await log.append(entry());
      const second = await log.append(entry({ time: '2025-01-31T02:11:00.000Z', tool: 'get_pod' }));
      expect(first.seq).toBe(1);
      expect(first.prev_hash).toBe(GENESIS_HASH);
      expect(second.prev_hash).toBe(first.hash);
      expect(second.hash).toBe(hashRecord(second));
      await log.close();
      const again = await open();
      const third = await again.append(entry({ tool: 'get_node' }));
      expect(third).toMatchObject({ seq: 3, prev_hash: second.hash });
      expect((await again.records()).map((record) => record.tool)).toEqual([
        'list_pods',
        'get_pod',
        'get_node',
      ]);
      expect(await again.head()).toEqual({ seq: 3, hash: third.hash, time: third.time });
      expect(await again.verify()).toEqual({ records: 3, head: third.hash });
    });

    it('refuses UPDATE and DELETE through SQL', async () => {
      const log = await open();
      await log.append(entry());
      await expect(backend.exec("UPDATE audit_log SET json = '{}'")).rejects.toThrow(/append-only/);
      await expect(backend.exec('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
      expect(await log.verify()).toMatchObject({ records: 1 });
    });

    it('detects an edited record and a removed one', async () => {
      const log = await open();
      for (let i = 0; i < 4; i++) await log.append(entry({ tool: `tool_${i}` }));
      const edited = (await log.records())[2]!;
      await backend.tamper('UPDATE audit_log SET json = ? WHERE seq = 3', [
        JSON.stringify({ ...edited, outcome: 'failed' }),
      ]);
      expect((await log.verify()).broken).toEqual({
        seq: 3,
        reason: expect.stringMatching(/does not match its hash/),
      });
      await backend.tamper('DELETE FROM audit_log WHERE seq = 2');
      expect((await log.verify()).broken).toEqual({
        seq: 2,
        reason: expect.stringMatching(
          /^it is missing \(the record after record 1 is record 3\); a record was removed$/,
        ),
      });
    });

    it('filters by time with since', async () => {
      const log = await open();
      await log.append(entry({ time: '2025-01-31T01:00:00.000Z' }));
      await log.append(entry({ time: '2025-01-31T03:00:00.000Z' }));
      expect((await log.records({ since: '2025-01-31T02:00:00.000Z' })).map((r) => r.seq)).toEqual([2]);
      expect((await log.rows()).map((row) => row.seq)).toEqual([1, 2]);
    });

    it('keeps one linear chain with concurrent appenders on several handles, and verify passes', async () => {
      const handles = await Promise.all([1, 2, 3].map(() => open()));
      const written = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          handles[i % handles.length]!.append(entry({ request_id: `req-${i}` })),
        ),
      );
      const records = await handles[0]!.records();
      expect(records.map((record) => record.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      for (let i = 1; i < records.length; i++) expect(records[i]!.prev_hash).toBe(records[i - 1]!.hash);
      expect(new Set(written.map((record) => record.seq)).size).toBe(60);
      expect(new Set(records.map((record) => record.request_id))).toEqual(
        new Set(written.map((r) => r.request_id)),
      );
      expect(await handles[1]!.verify()).toEqual({ records: 60, head: records.at(-1)!.hash });
    });

    it('commits appends of one turn in one transaction: one refused record fails every caller in it, writes none, and the chain goes on', async () => {
      const log = await open();
      const first = await log.append(entry({ request_id: 'before' }));
      await backend.refuseInserts('poisoned-call');
      const batch = Array.from({ length: 5 }, (_, i) =>
        log.append(entry({ request_id: i === 2 ? 'poisoned-call' : `same-turn-${i}` })),
      );
      const settled = await Promise.allSettled(batch);
      expect(settled.map((one) => one.status)).toEqual(Array(5).fill('rejected'));
      const after = await log.append(entry({ request_id: 'after' }));
      expect(after).toMatchObject({ seq: 2, prev_hash: first.hash });
      expect((await log.records()).map((record) => record.request_id)).toEqual(['before', 'after']);
      expect(await log.verify()).toEqual({ records: 2, head: after.hash });
    });

    it('resolves an append only once its record is committed: another handle reads it then', async () => {
      const [writer, reader] = [await open(), await open()];
      const seen = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          writer.append(entry({ request_id: `req-${i}` })).then(async (record) => {
            const rows = await reader.rows();
            return rows.some((row) => row.seq === record.seq && row.hash === record.hash);
          }),
        ),
      );
      expect(seen).toEqual(Array(20).fill(true));
    });

    it('rejects an entry JSON cannot hold on its own, without failing the appends beside it', async () => {
      const log = await open();
      const results = await Promise.allSettled([
        log.append(entry({ request_id: 'a' })),
        log.append(entry({ request_id: 'b', arguments: { replicas: Number.NaN } })),
        log.append(entry({ request_id: 'c' })),
      ]);
      expect(results.map((one) => one.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((await log.records()).map((record) => record.request_id)).toEqual(['a', 'c']);
    });

    it('flushes: every append made before flush() is committed when it resolves, and close waits too', async () => {
      const log = await open();
      const appends = Array.from({ length: 10 }, (_, i) => log.append(entry({ request_id: `req-${i}` })));
      await log.flush();
      const other = await open();
      expect(await other.head()).toMatchObject({ seq: 10 });
      await Promise.all(appends);
      void log.append(entry({ request_id: 'last' }));
      await log.close();
      expect(await other.head()).toMatchObject({ seq: 11 });
    });
  });
}
