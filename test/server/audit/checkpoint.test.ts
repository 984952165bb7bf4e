/**
 * Checkpoints of the audit log's head: the schedule the server runs (fake timers, no waiting), the
 * checkpoint a real server writes at shutdown, and the `--checkpoint` forms verify accepts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CHECKPOINT_FILE,
  checkpointsFromOption,
  dataDirCheckpoints,
  GENESIS_HASH,
  openAuditLog,
  scheduleCheckpoints,
} from '../../../server/audit/index.ts';
import { auditEntry } from '../../helpers/audit.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';
import { startGateServer } from '../gate/fixtures/serve.ts';

describe('the checkpoint schedule', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    cleanup();
  });

  it('appends the head when it moved, every interval, and once more at close', () => {
    const log = openAuditLog(dir);
    const schedule = scheduleCheckpoints(log, dir, { intervalMs: 1000 });
    vi.advanceTimersByTime(1000);
    expect(dataDirCheckpoints(dir).checkpoints).toMatchObject([{ seq: 0, hash: GENESIS_HASH, time: null }]);
    const first = log.append(auditEntry());
    vi.advanceTimersByTime(1000);
    vi.advanceTimersByTime(1000); // unchanged head: nothing new
    expect(dataDirCheckpoints(dir).checkpoints.map((c) => c.seq)).toEqual([0, 1]);
    expect(dataDirCheckpoints(dir).checkpoints[1]).toMatchObject({ hash: first.hash, time: first.time });
    const second = log.append(auditEntry({ tool: 'get_pod' }));
    schedule.close();
    vi.advanceTimersByTime(5000); // stopped
    expect(dataDirCheckpoints(dir).checkpoints.map((c) => [c.seq, c.hash])).toEqual([
      [0, GENESIS_HASH],
      [1, first.hash],
      [2, second.hash],
    ]);
    expect(log.verify({ checkpoints: dataDirCheckpoints(dir).checkpoints }).broken).toBeUndefined();
    log.close();
  });

  it('does not repeat the last checkpoint of a previous run', () => {
    const log = openAuditLog(dir);
    log.append(auditEntry());
    scheduleCheckpoints(log, dir).close();
    scheduleCheckpoints(log, dir).close();
    expect(dataDirCheckpoints(dir).checkpoints).toHaveLength(1);
    log.close();
  });
});

describe('a server', () => {
  it(
    'writes a checkpoint of the audit head to its data directory at shutdown',
    { timeout: 60_000 },
    async () => {
      const data = tempDataDir();
      try {
        const s = await startGateServer({ dataDir: data.dir });
        const agent = await connectClient(s.url, s.tokens.agent);
        await agent.callTool({ name: 'get_deployment', arguments: { namespace: 'shop', name: 'checkout' } });
        await agent.close();
        await s.close();
        const log = openAuditLog(data.dir, { mustExist: true });
        const head = log.head()!;
        expect(head.seq).toBeGreaterThan(0);
        expect(dataDirCheckpoints(data.dir).checkpoints.at(-1)).toMatchObject({
          seq: head.seq,
          hash: head.hash,
        });
        log.close();
      } finally {
        data.cleanup();
      }
    },
  );
});

describe('--checkpoint values', () => {
  it('reads a hash, a seq:hash pair or a file, and names the field when it is none', () => {
    const hash = 'a'.repeat(64);
    expect(checkpointsFromOption(hash)).toEqual([{ hash }]);
    expect(checkpointsFromOption(`12:${hash}`)).toEqual([{ seq: 12, hash }]);
    const data = tempDataDir();
    try {
      const file = join(data.dir, CHECKPOINT_FILE);
      writeFileSync(file, '{"kind":"sentinel_audit_checkpoint","seq":1}\n');
      expect(() => checkpointsFromOption(file)).toThrow(/line 1 is not a checkpoint/);
    } finally {
      data.cleanup();
    }
    expect(() => checkpointsFromOption('12:xyz')).toThrow(/--checkpoint '12:xyz' is neither/);
  });
});
