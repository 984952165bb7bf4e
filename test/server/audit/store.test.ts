import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AUDIT_FILE,
  GENESIS_HASH,
  hashRecord,
  openAuditLog,
  verifyChain,
} from '../../../server/audit/index.ts';
import { auditEntry } from '../../helpers/audit.ts';
import { tempDataDir } from '../../helpers/server.ts';

const entry = auditEntry;

/** Rewrites stored rows behind the log's back (as an attacker with the file would). */
function tamper(dir: string, sql: string, ...params: (string | number)[]) {
  const db = new DatabaseSync(join(dir, AUDIT_FILE));
  db.exec('DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete;');
  db.prepare(sql).run(...params);
  db.close();
}

describe('audit log store', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDataDir()));
  afterEach(() => cleanup());

  it('chains records: each carries the previous hash and a hash of its own content', () => {
    const log = openAuditLog(dir);
    const first = log.append(entry());
    const second = log.append(entry({ time: '2025-01-31T02:11:00.000Z', tool: 'get_pod' }));
    expect(first.seq).toBe(1);
    expect(first.prev_hash).toBe(GENESIS_HASH);
    expect(second.prev_hash).toBe(first.hash);
    expect(second.hash).toBe(hashRecord(second));
    expect(second.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(log.verify()).toEqual({ records: 2, head: second.hash });
    log.close();
  });

  it('survives a restart and continues the chain', () => {
    const before = openAuditLog(dir);
    const first = before.append(entry());
    before.close();
    const after = openAuditLog(dir);
    const second = after.append(entry({ tool: 'get_pod' }));
    expect(second.seq).toBe(2);
    expect(second.prev_hash).toBe(first.hash);
    expect(after.records().map((record) => record.tool)).toEqual(['list_pods', 'get_pod']);
    expect(after.verify().broken).toBeUndefined();
    after.close();
  });

  it('refuses UPDATE and DELETE through SQL', () => {
    const log = openAuditLog(dir);
    log.append(entry());
    log.close();
    const db = new DatabaseSync(join(dir, AUDIT_FILE));
    expect(() => db.exec("UPDATE audit_log SET json = '{}'")).toThrow(/append-only/);
    expect(() => db.exec('DELETE FROM audit_log')).toThrow(/append-only/);
    db.close();
  });

  it('detects an edited record and reports the first broken one', () => {
    const log = openAuditLog(dir);
    for (let i = 0; i < 4; i++) log.append(entry({ tool: `tool_${i}` }));
    log.close();
    const edited = openAuditLog(dir).records()[2]!;
    tamper(
      dir,
      'UPDATE audit_log SET json = ? WHERE seq = 3',
      JSON.stringify({ ...edited, outcome: 'failed' }),
    );
    const report = openAuditLog(dir).verify();
    expect(report.broken?.seq).toBe(3);
    expect(report.broken?.reason).toMatch(/does not match its hash.*the record was edited/);
  });

  it('detects an edited record whose hash was recomputed, at the next record', () => {
    const log = openAuditLog(dir);
    for (let i = 0; i < 3; i++) log.append(entry({ tool: `tool_${i}` }));
    log.close();
    const original = openAuditLog(dir).records()[1]!;
    const forged = { ...original, identity: 'someone-else' };
    forged.hash = hashRecord(forged);
    tamper(dir, 'UPDATE audit_log SET json = ?, hash = ? WHERE seq = 2', JSON.stringify(forged), forged.hash);
    const report = openAuditLog(dir).verify();
    expect(report.broken).toEqual({
      seq: 3,
      reason: expect.stringMatching(/prev_hash .* is not the hash of record 2/),
    });
  });

  it('names a file SQLite cannot read as unreadable (corrupted or tampered), a conflict', () => {
    const log = openAuditLog(dir);
    log.append(entry({}));
    log.close();
    writeFileSync(join(dir, AUDIT_FILE), 'not a database at all, just bytes '.repeat(200));
    expect(() => openAuditLog(dir, { mustExist: true })).toThrow(
      expect.objectContaining({
        code: 'conflict',
        message: `The audit log ${join(dir, AUDIT_FILE)} is unreadable (file is not a database): the file is corrupted or was tampered with.`,
      }),
    );
  });

  it('detects a removed record', () => {
    const log = openAuditLog(dir);
    for (let i = 0; i < 3; i++) log.append(entry({ tool: `tool_${i}` }));
    log.close();
    tamper(dir, 'DELETE FROM audit_log WHERE seq = ?', 2);
    expect(openAuditLog(dir).verify().broken).toEqual({
      seq: 2,
      reason: expect.stringMatching(
        /^it is missing \(the record after record 1 is record 3\); a record was removed$/,
      ),
    });
  });

  it('reports records that are not JSON or break the schema', () => {
    const row = (json: string) => [{ seq: 1, json }];
    expect(verifyChain(row('{not json')).broken?.reason).toBe('it is not valid JSON');
    expect(verifyChain(row('{"seq":1}')).broken?.reason).toMatch(/^its field .* is invalid/);
  });

  it('filters by time with since', () => {
    const log = openAuditLog(dir);
    log.append(entry({ time: '2025-01-31T01:00:00.000Z' }));
    log.append(entry({ time: '2025-01-31T03:00:00.000Z' }));
    expect(log.records({ since: '2025-01-31T02:00:00.000Z' }).map((r) => r.seq)).toEqual([2]);
    log.close();
  });

  it('refuses to open a missing log for reading', () => {
    expect(() => openAuditLog(join(dir, 'nowhere'), { mustExist: true })).toThrow(
      /No audit log in .*nowhere/,
    );
  });
});
