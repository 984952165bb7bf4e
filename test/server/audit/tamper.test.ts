/**
 * Tampering with the stored audit log (issue 13, finding 2): every edit an attacker with the file can
 * make is detected by `verify`, and named by the sequence number of the offending record.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import {
  AUDIT_FILE,
  canonicalJson,
  GENESIS_HASH,
  hashRecord,
  openAuditLog,
  type AuditRecord,
} from '../../../server/audit/index.ts';
import { auditEntry } from '../../helpers/audit.ts';
import { tempDataDir } from '../../helpers/server.ts';

/** Runs SQL on the stored rows behind the log's back (as an attacker with the file would). */
function tamper(dir: string, run: (db: DatabaseSync) => void): void {
  const db = new DatabaseSync(join(dir, AUDIT_FILE));
  db.exec('DROP TRIGGER IF EXISTS audit_log_no_update; DROP TRIGGER IF EXISTS audit_log_no_delete;');
  run(db);
  db.close();
}

const storedJson = (dir: string, seq: number): string => {
  const db = new DatabaseSync(join(dir, AUDIT_FILE));
  const row = db.prepare('SELECT json FROM audit_log WHERE seq = ?').get(seq) as { json: string };
  db.close();
  return row.json;
};

const setJson = (dir: string, seq: number, json: string) =>
  tamper(dir, (db) => db.prepare('UPDATE audit_log SET json = ? WHERE seq = ?').run(json, seq));

/** Re-signs records `from`..end after `edit` changed record `from`: a consistent rewritten chain. */
function rewriteFrom(dir: string, from: number, edit: (record: AuditRecord) => AuditRecord): void {
  const records = openAuditLog(dir).records();
  tamper(dir, (db) => {
    let previous = from === 1 ? GENESIS_HASH : records[from - 2]!.hash;
    for (const original of records.slice(from - 1)) {
      const changed = original.seq === from ? edit(original) : original;
      const unsigned = { ...changed, prev_hash: previous };
      const record = { ...unsigned, hash: hashRecord(unsigned) };
      db.prepare('UPDATE audit_log SET json = ?, hash = ?, time = ? WHERE seq = ?').run(
        canonicalJson(record),
        record.hash,
        record.time,
        record.seq,
      );
      previous = record.hash;
    }
  });
}

const verify = (dir: string, options?: Parameters<ReturnType<typeof openAuditLog>['verify']>[0]) => {
  const log = openAuditLog(dir, { mustExist: true });
  try {
    return log.verify(options);
  } finally {
    log.close();
  }
};

describe('audit verify over the stored bytes', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    const log = openAuditLog(dir);
    for (let i = 1; i <= 5; i++) {
      log.append(
        auditEntry({
          time: `2025-01-31T02:1${i}:00.000Z`,
          tool: `tool_${i}`,
          error: { code: 'failed', message: `boom ${i}` },
        }),
      );
    }
    log.close();
  });
  afterEach(() => cleanup());

  it('accepts the untouched log', () => {
    expect(verify(dir).broken).toBeUndefined();
  });

  it('detects a key added to the nested cluster object', () => {
    setJson(dir, 3, storedJson(dir, 3).replace('"cluster":{', '"cluster":{"approved_by":"security-team",'));
    expect(verify(dir).broken).toEqual({ seq: 3, reason: expect.stringMatching(/cluster/) });
  });

  it('detects a key added to the nested error object', () => {
    setJson(dir, 2, storedJson(dir, 2).replace('"error":{', '"error":{"approved_by":"security-team",'));
    expect(verify(dir).broken).toEqual({ seq: 2, reason: expect.stringMatching(/error/) });
  });

  it('detects a key added at the top level', () => {
    setJson(dir, 4, storedJson(dir, 4).replace('{', '{"approved_by":"security-team",'));
    expect(verify(dir).broken?.seq).toBe(4);
  });

  it('detects a duplicate key placed first (JSON.parse keeps the last one)', () => {
    // A reader that keeps the first occurrence would see another approver; the hash covers the last.
    setJson(dir, 3, storedJson(dir, 3).replace('{', '{"approver":"security-team",'));
    expect(JSON.parse(storedJson(dir, 3)).approver).toBeNull();
    expect(verify(dir).broken).toEqual({ seq: 3, reason: expect.stringMatching(/not the canonical/) });
  });

  it('detects a duplicate key inside a nested object', () => {
    setJson(dir, 5, storedJson(dir, 5).replace('"arguments":{', '"arguments":{"namespace":"kube-system",'));
    expect(verify(dir).broken).toEqual({ seq: 5, reason: expect.stringMatching(/not the canonical/) });
  });

  it('detects an edited time column (what export --since filters on)', () => {
    tamper(dir, (db) =>
      db.prepare("UPDATE audit_log SET time = '2020-01-01T00:00:00.000Z' WHERE seq = 2").run(),
    );
    expect(verify(dir).broken).toEqual({ seq: 2, reason: expect.stringMatching(/time column/) });
  });

  it('detects an edited hash column', () => {
    tamper(dir, (db) => db.prepare(`UPDATE audit_log SET hash = '${'a'.repeat(64)}' WHERE seq = 4`).run());
    expect(verify(dir).broken).toEqual({ seq: 4, reason: expect.stringMatching(/hash column/) });
  });

  it('detects an edited seq column', () => {
    tamper(dir, (db) => db.prepare('UPDATE audit_log SET seq = 9 WHERE seq = 5').run());
    expect(verify(dir).broken?.seq).toBe(9);
  });

  it('detects added whitespace', () => {
    setJson(dir, 2, storedJson(dir, 2).replace('","', '", "'));
    expect(verify(dir).broken).toEqual({ seq: 2, reason: expect.stringMatching(/not the canonical/) });
    setJson(dir, 2, JSON.stringify(JSON.parse(storedJson(dir, 2)), null, 2));
    expect(verify(dir).broken?.seq).toBe(2);
  });

  it('detects a \\u escape of an ordinary character', () => {
    setJson(dir, 3, storedJson(dir, 3).replace('"tool_3"', '"tool\\u005f3"'));
    expect(JSON.parse(storedJson(dir, 3)).tool).toBe('tool_3');
    expect(verify(dir).broken).toEqual({ seq: 3, reason: expect.stringMatching(/not the canonical/) });
  });

  it('detects a number spelled differently and keys out of order', () => {
    setJson(dir, 4, storedJson(dir, 4).replace('"duration_ms":12.5', '"duration_ms":12.50'));
    expect(verify(dir).broken?.seq).toBe(4);
    setJson(dir, 4, storedJson(dir, 4).replace('"duration_ms":12.50', '"duration_ms":12.5'));
    expect(verify(dir).broken).toBeUndefined();
    const record = JSON.parse(storedJson(dir, 4)) as Record<string, unknown>;
    const { arguments: args, ...rest } = record;
    setJson(dir, 4, JSON.stringify({ ...rest, arguments: args }));
    expect(verify(dir).broken?.seq).toBe(4);
  });
});

describe('audit verify against a checkpoint', () => {
  let dir: string;
  let cleanup: () => void;
  let head: AuditRecord;
  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    const log = openAuditLog(dir);
    for (let i = 1; i <= 6; i++) head = log.append(auditEntry({ tool: `tool_${i}` }));
    log.close();
  });
  afterEach(() => cleanup());

  const checkpoint = () => ({ seq: head.seq, hash: head.hash });

  it('holds for the log it was taken of, and after more records were appended', () => {
    expect(verify(dir, { checkpoints: [checkpoint()] }).broken).toBeUndefined();
    const log = openAuditLog(dir);
    log.append(auditEntry({ tool: 'later' }));
    log.close();
    expect(verify(dir, { checkpoints: [checkpoint()] }).broken).toBeUndefined();
    expect(verify(dir, { checkpoints: [{ hash: head.hash }] }).broken).toBeUndefined();
  });

  it('detects a truncated tail', () => {
    tamper(dir, (db) => db.prepare('DELETE FROM audit_log WHERE seq >= 5').run());
    expect(verify(dir).broken).toBeUndefined(); // the chain alone cannot tell
    expect(verify(dir, { checkpoints: [checkpoint()] }).broken).toEqual({
      seq: 5,
      reason: expect.stringMatching(/4 records.*checkpoint.*record 6.*truncated/),
    });
  });

  it('names the whole missing range up to the newest checkpoint, not the first one it contradicts', () => {
    // Fresh-user finding: with checkpoints at 5 and 6 and records 5.. deleted, it said "5-5".
    tamper(dir, (db) => db.prepare('DELETE FROM audit_log WHERE seq >= 5').run());
    const atFive = { seq: 5, hash: 'x'.repeat(64) };
    expect(verify(dir, { checkpoints: [atFive, checkpoint()] }).broken).toEqual({
      seq: 5,
      reason: expect.stringMatching(/4 records.*checkpoint.*record 6.*records 5-6 are missing/),
    });
  });

  it('detects a log emptied of every record', () => {
    tamper(dir, (db) => db.prepare('DELETE FROM audit_log').run());
    expect(verify(dir)).toEqual({ records: 0, head: GENESIS_HASH });
    expect(verify(dir, { checkpoints: [checkpoint()] }).broken).toEqual({
      seq: 1,
      reason: expect.stringMatching(/0 records.*emptied/),
    });
  });

  for (const from of [1, 3, 6]) {
    it(`detects the chain rewritten from record ${from}`, () => {
      rewriteFrom(dir, from, (record) => ({ ...record, identity: 'someone-else' }));
      expect(verify(dir).broken).toBeUndefined(); // consistent on its own
      const broken = verify(dir, { checkpoints: [checkpoint()] }).broken;
      expect(broken).toEqual({ seq: 6, reason: expect.stringMatching(/rewritten at or before record 6/) });
    });
  }

  it('narrows a rewrite down with the checkpoints before it', () => {
    const log = openAuditLog(dir);
    const records = log.records();
    log.close();
    const checkpoints = records.map((record) => ({ seq: record.seq, hash: record.hash }));
    rewriteFrom(dir, 4, (record) => ({ ...record, outcome: 'failed' }));
    expect(verify(dir, { checkpoints }).broken).toEqual({
      seq: 4,
      reason: expect.stringMatching(/rewritten at or before record 4 \(after record 3/),
    });
  });

  it('detects a rewrite given the head hash alone', () => {
    rewriteFrom(dir, 2, (record) => ({ ...record, tool: 'other' }));
    expect(verify(dir, { checkpoints: [{ hash: head.hash }] }).broken).toEqual({
      seq: 6,
      reason: expect.stringMatching(/no record has the checkpoint's hash/),
    });
  });
});
