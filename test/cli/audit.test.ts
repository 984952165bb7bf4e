import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { appendFileSync, closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  AUDIT_FILE,
  AuditRecordSchema,
  CHECKPOINT_FILE,
  CheckpointSchema,
  openAuditLog,
  parseSince,
  type AuditEntry,
} from '../../server/audit/index.ts';
import { runCli } from '../helpers/cli.ts';
import { auditEntry } from '../helpers/audit.ts';
import { tempDataDir } from '../helpers/server.ts';

const entry = (time: string, tool: string): AuditEntry =>
  auditEntry({
    time,
    tool,
    request_id: 'r',
    identity: 'agent',
    cluster: null,
    arguments: {},
    duration_ms: 1,
  });

describe('sentinel audit export|verify', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    const log = openAuditLog(dir);
    log.append(entry('2025-01-31T01:00:00.000Z', 'first'));
    log.append(entry('2025-01-31T02:00:00.000Z', 'second'));
    log.append(entry('2025-01-31T03:00:00.000Z', 'third'));
    log.close();
  });
  afterEach(() => cleanup());

  it('exports JSON Lines, oldest first, optionally since a time', async () => {
    const all = await runCli(['audit', 'export', '--data-dir', dir]);
    expect(all.code).toBe(0);
    const lines = all.stdout
      .trimEnd()
      .split('\n')
      .map((line) => AuditRecordSchema.parse(JSON.parse(line)));
    expect(lines.map((r) => [r.seq, r.tool])).toEqual([
      [1, 'first'],
      [2, 'second'],
      [3, 'third'],
    ]);
    const since = await runCli([
      'audit',
      'export',
      '--since',
      '2025-01-31T03:30:00+02:00',
      '--data-dir',
      dir,
    ]);
    expect(
      since.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).tool),
    ).toEqual(['second', 'third']);
    const bad = await runCli(['audit', 'export', '--since', 'yesterday', '--data-dir', dir]);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringMatching(/--since 'yesterday' is neither/) });
  });

  it('verifies an intact chain, then reports the first edited record and exits 1', async () => {
    const ok = await runCli(['audit', 'verify', '--data-dir', dir]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/: 3 records, chain intact\. Head hash [0-9a-f]{64} /);

    const db = new DatabaseSync(join(dir, AUDIT_FILE));
    db.exec('DROP TRIGGER audit_log_no_update');
    db.exec(
      `UPDATE audit_log SET json = replace(json, '"identity":"agent"', '"identity":"alice"') WHERE seq = 2`,
    );
    db.close();
    const broken = await runCli(['audit', 'verify', '--data-dir', dir]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /: record 2 breaks the chain: its content does not match its hash .* the record was edited\. Records 1-1 are intact\.\n$/,
    );
  });

  it('refuses a data dir without an audit log', async () => {
    const empty = tempDataDir();
    try {
      const result = await runCli(['audit', 'verify', '--data-dir', empty.dir]);
      expect(result).toMatchObject({ code: 1, stderr: expect.stringMatching(/^sentinel: No audit log in /) });
    } finally {
      empty.cleanup();
    }
  });

  it('parses --since as a time or a duration back from now', () => {
    const now = new Date('2025-01-31T04:00:00.000Z');
    expect(parseSince('2h', now)).toBe('2025-01-31T02:00:00.000Z');
    expect(parseSince('2025-01-31', now)).toBe('2025-01-31T00:00:00.000Z');
  });

  it('refuses a bare number for --since (it was read as milliseconds), naming the field and the rule', async () => {
    expect(() => parseSince('12')).toThrow(
      "--since '12' has no unit: give a duration back from now with its unit (12m, 12h, 12d) or an ISO 8601 time (2025-01-31T02:00:00Z).",
    );
    const result = await runCli(['audit', 'export', '--since', '12', '--data-dir', dir]);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain("--since '12' has no unit");
  });

  it('an --append file that cannot be written is refused first, naming --append: nothing is appended anywhere', async () => {
    const refused = await runCli([
      'audit',
      'checkpoint',
      '--append',
      '/proc/nope/x.jsonl',
      '--data-dir',
      dir,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/sentinel: --append \/proc\/nope\/x\.jsonl cannot be written: /);
    expect(refused.stderr).not.toContain('unexpected error');
    // Not half-applied: the data directory's own checkpoint file was not appended either.
    expect(() => readFileSync(join(dir, CHECKPOINT_FILE))).toThrow(/ENOENT/);
  });

  it('checkpoints the head, and a later verify against it detects a truncated or emptied log', async () => {
    const elsewhere = tempDataDir();
    const received: string[] = [];
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += String(chunk)));
      req.on('end', () => {
        received.push(body);
        res.writeHead(204).end();
      });
    });
    hook.listen(0, '127.0.0.1');
    await once(hook, 'listening');
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/anchor`;
    try {
      const operatorFile = join(elsewhere.dir, 'anchors.jsonl');
      const taken = await runCli([
        'audit',
        'checkpoint',
        '--append',
        operatorFile,
        '--webhook',
        url,
        '--data-dir',
        dir,
      ]);
      expect(taken.code).toBe(0);
      const checkpoint = CheckpointSchema.parse(JSON.parse(taken.stdout));
      expect(checkpoint).toMatchObject({ seq: 3, time: '2025-01-31T03:00:00.000Z' });
      expect(checkpoint.hash).toBe(openAuditLog(dir).records()[2]!.hash);
      expect(readFileSync(operatorFile, 'utf8')).toBe(taken.stdout);
      expect(readFileSync(join(dir, CHECKPOINT_FILE), 'utf8')).toBe(taken.stdout);
      expect(received.map((body) => JSON.parse(body))).toEqual([checkpoint]);

      const ok = await runCli(['audit', 'verify', '--checkpoint', operatorFile, '--data-dir', dir]);
      expect(ok).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(
          /chain intact, consistent with 1 checkpoint in audit-checkpoints\.jsonl and 1 given/,
        ),
      });

      const db = new DatabaseSync(join(dir, AUDIT_FILE));
      db.exec('DROP TRIGGER audit_log_no_delete');
      db.exec('DELETE FROM audit_log WHERE seq = 3');
      db.close();
      const byHash = await runCli([
        'audit',
        'verify',
        '--checkpoint',
        `3:${checkpoint.hash}`,
        '--data-dir',
        dir,
      ]);
      expect(byHash.code).toBe(1);
      expect(byHash.stderr).toMatch(/record 3 breaks the chain: the log has 2 records .* truncated/);

      const db2 = new DatabaseSync(join(dir, AUDIT_FILE));
      db2.exec('DROP TRIGGER audit_log_no_delete'); // opening the log re-created it
      db2.exec('DELETE FROM audit_log');
      db2.close();
      // The data directory's own checkpoint alone already refuses "0 records, chain intact".
      const emptied = await runCli(['audit', 'verify', '--data-dir', dir]);
      expect(emptied.code).toBe(1);
      expect(emptied.stderr).toMatch(/record 1 breaks the chain: the log has 0 records .* emptied/);
      const refused = await runCli(['audit', 'checkpoint', '--data-dir', dir]);
      expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/no checkpoint taken/) });
    } finally {
      hook.close();
      elsewhere.cleanup();
    }
  });

  it('refuses a --checkpoint that is neither a file nor a hash', async () => {
    const result = await runCli(['audit', 'verify', '--checkpoint', 'nope', '--data-dir', dir]);
    expect(result).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--checkpoint 'nope' is neither/),
    });
  });
});

describe('sentinel audit verify: what a new user tampering with the files sees', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    const log = openAuditLog(dir);
    for (let hour = 1; hour <= 6; hour++) log.append(entry(`2025-01-31T0${hour}:00:00.000Z`, `call${hour}`));
    log.close();
  });
  afterEach(() => cleanup());

  const sql = (statements: string) => {
    const db = new DatabaseSync(join(dir, AUDIT_FILE));
    db.exec(statements);
    db.close();
  };

  it('names the removed record, not the one after it, as the break', async () => {
    sql('DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE seq = 5');
    const result = await runCli(['audit', 'verify', '--data-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /: record 5 breaks the chain: it is missing \(the record after record 4 is record 6\); a record was removed\. Records 1-4 are intact\.\n$/,
    );

    sql('DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE seq IN (2, 3)');
    const gap = await runCli(['audit', 'verify', '--data-dir', dir]);
    expect(gap.code).toBe(1);
    expect(gap.stderr).toMatch(
      /: record 2 breaks the chain: records 2-3 are missing \(the record after record 1 is record 4\); records were removed\. Records 1-1 are intact\.\n$/,
    );
  });

  it('reports a malformed checkpoint line as tampering and still verifies against the valid ones', async () => {
    const taken = await runCli(['audit', 'checkpoint', '--data-dir', dir]);
    expect(taken.code).toBe(0);
    appendFileSync(join(dir, CHECKPOINT_FILE), 'garbage\n');
    const result = await runCli(['audit', 'verify', '--data-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(dir, CHECKPOINT_FILE)} line 2 is not a checkpoint`);
    expect(result.stdout).toMatch(
      /: 6 records, chain intact, consistent with 1 checkpoint in audit-checkpoints\.jsonl\./,
    );

    // The valid checkpoint is still checked: a truncated log is still detected.
    sql('DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE seq = 6');
    const truncated = await runCli(['audit', 'verify', '--data-dir', dir]);
    expect(truncated.code).toBe(1);
    expect(truncated.stderr).toContain(`${join(dir, CHECKPOINT_FILE)} line 2 is not a checkpoint`);
    expect(truncated.stderr).toMatch(/record 6 breaks the chain: the log has 5 records .* truncated/);

    const refused = await runCli(['audit', 'checkpoint', '--data-dir', dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${join(dir, CHECKPOINT_FILE)} line 2 is not a checkpoint`);
    expect(refused.stderr).toContain('no checkpoint taken');
  });

  it('names a corrupted database file as unreadable (corrupted or tampered), exit 1', async () => {
    const fd = openSync(join(dir, AUDIT_FILE), 'r+');
    try {
      writeSync(fd, Buffer.alloc(8192, 0xab), 0, 8192, 4096); // every page after the header
    } finally {
      closeSync(fd);
    }
    const result = await runCli(['audit', 'verify', '--data-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('unexpected error');
    expect(result.stderr).toContain(
      `The audit log ${join(dir, AUDIT_FILE)} is unreadable (database disk image is malformed): the file is corrupted or was tampered with.`,
    );
  });

  it('warns when there is no checkpoint to compare an emptied log against', async () => {
    sql('DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log');
    const result = await runCli(['audit', 'verify', '--data-dir', dir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/: 0 records, chain intact\./);
    expect(result.stderr).toMatch(/^warning: no checkpoints to compare against .* docs\/audit\.md/);
    expect(result.stderr).toContain('only a checkpoint kept elsewhere');
  });
});
