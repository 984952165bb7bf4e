import { describe, expect, it } from 'vitest';
import { groupCommit } from '../../../server/audit/group-commit.ts';
import { GENESIS_HASH, type AuditRecord } from '../../../server/audit/record.ts';
import { sealRecord, type PreparedEntry } from '../../../server/audit/seal.ts';
import { auditEntry } from '../../helpers/audit.ts';

/** An in-memory log: batches committed, in order, each one chained to the last. */
function memoryLog(options: { failWhen?: (batch: readonly PreparedEntry[]) => boolean } = {}) {
  const records: AuditRecord[] = [];
  const batches: string[][] = [];
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  const commit = async (batch: readonly PreparedEntry[]) => {
    batches.push(batch.map((prepared) => prepared.entry.request_id!));
    if (gate) await gate;
    if (options.failWhen?.(batch)) throw new Error('disk full');
    return batch.map((prepared) => {
      const last = records.at(-1);
      const { record } = sealRecord(prepared, (last?.seq ?? 0) + 1, last?.hash ?? GENESIS_HASH);
      records.push(record);
      return record;
    });
  };
  return {
    commit,
    records,
    batches,
    /** Holds the next commits until `open()`. */
    hold: () => {
      gate = new Promise((resolve) => (release = resolve));
    },
    open: () => {
      gate = undefined;
      release?.();
    },
  };
}

const entry = (id: string) => auditEntry({ request_id: id });

describe('groupCommit', () => {
  it('writes the appends of one event-loop turn as one batch, in call order', async () => {
    const log = memoryLog();
    const sizes: number[] = [];
    const group = groupCommit(log.commit, { onBatch: (size) => sizes.push(size) });
    const records = await Promise.all(['a', 'b', 'c'].map((id) => group.append(entry(id))));
    expect(log.batches).toEqual([['a', 'b', 'c']]);
    expect(sizes).toEqual([3]);
    expect(records.map((record) => [record.request_id, record.seq])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    expect(records[1]!.prev_hash).toBe(records[0]!.hash);
  });

  it('collects the appends made while a batch is being written into the next one', async () => {
    const log = memoryLog();
    const group = groupCommit(log.commit);
    log.hold();
    const first = group.append(entry('a'));
    await new Promise((resolve) => setImmediate(resolve)); // batch ['a'] is now in flight
    const more = ['b', 'c'].map((id) => group.append(entry(id)));
    log.open();
    await Promise.all([first, ...more]);
    expect(log.batches).toEqual([['a'], ['b', 'c']]);
    expect(log.records.map((record) => record.seq)).toEqual([1, 2, 3]);
  });

  it('resolves no caller before its batch committed', async () => {
    const log = memoryLog();
    const group = groupCommit(log.commit);
    log.hold();
    let resolved = false;
    const append = group.append(entry('a')).then(() => (resolved = true));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.batches).toEqual([['a']]);
    expect(resolved).toBe(false);
    log.open();
    await append;
    expect(resolved).toBe(true);
  });

  it('splits a long queue into batches of at most maxBatch', async () => {
    const log = memoryLog();
    const group = groupCommit(log.commit, { maxBatch: 2 });
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => group.append(entry(id))));
    expect(log.batches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('rejects every caller of a failed batch with its error, and the next batch still commits', async () => {
    const log = memoryLog({ failWhen: (batch) => batch.some((p) => p.entry.request_id === 'bad') });
    const group = groupCommit(log.commit);
    const failed = await Promise.allSettled(['a', 'bad', 'c'].map((id) => group.append(entry(id))));
    expect(failed).toEqual([
      { status: 'rejected', reason: new Error('disk full') },
      { status: 'rejected', reason: new Error('disk full') },
      { status: 'rejected', reason: new Error('disk full') },
    ]);
    expect(await group.append(entry('d'))).toMatchObject({ request_id: 'd', seq: 1 });
  });

  it('rejects a commit that returns fewer records than it was given, for every caller', async () => {
    const group = groupCommit(async (batch) => batch.slice(1).map(() => ({}) as AuditRecord));
    const results = await Promise.allSettled(['a', 'b'].map((id) => group.append(entry(id))));
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });

  it('settled() waits for queued and in-flight appends', async () => {
    const log = memoryLog();
    const group = groupCommit(log.commit);
    await group.settled(); // nothing queued: at once
    log.hold();
    void group.append(entry('a'));
    let done = false;
    const settled = group.settled().then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    void group.append(entry('b'));
    expect(done).toBe(false);
    log.open();
    await settled;
    expect(log.records.map((record) => record.request_id)).toEqual(['a', 'b']);
  });
});
