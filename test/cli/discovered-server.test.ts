/**
 * Client commands without --server pick a discovered server (issue #18): when more than one runs on
 * the data directory they say which one on stderr, in the same words as `investigate`; `--json` stdout stays clean.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { usingServerLine } from '../../cli/options.ts';
import { registerServer } from '../../server/discovery.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDataDir } from '../helpers/server.ts';

/** A live discovery entry (this process's pid) for a server at an unused port. */
const entry = (port: number, started: string) => ({
  url: `http://127.0.0.1:${port}/`,
  pid: process.pid,
  started,
  kind: 'serve' as const,
});

describe('which discovered server a client command picked', () => {
  const data = tempDataDir();
  const removers: (() => void)[] = [];
  afterAll(() => removers.forEach((remove) => remove()));

  it('says nothing with one server, names the one picked with two; stdout stays clean', async () => {
    removers.push(registerServer(data.dir, entry(9, '2026-12-02T10:00:00.000Z')));
    const one = await runCli(['approvals', 'list', '--json', '--data-dir', data.dir]);
    expect(one.stderr).not.toContain('Using the Sentinel server');

    removers.push(registerServer(data.dir, entry(19, '2026-12-02T11:00:00.000Z')));
    const two = await runCli(['approvals', 'list', '--json', '--data-dir', data.dir]);
    const picked =
      /Using the Sentinel server running at (\S+) \(pid (\d+), since [^;]+; 2 are running on this data directory\); pass --server to choose another\./.exec(
        two.stderr,
      );
    expect(picked, two.stderr).not.toBeNull();
    // "since" in the reader's zone with UTC alongside, not the discovery file's ISO value.
    expect(two.stderr).not.toMatch(/since 2026-12-02T/);
    expect([`http://127.0.0.1:9/`, `http://127.0.0.1:19/`]).toContain(picked![1]);
    expect(two.stdout).not.toContain('Using the Sentinel server');

    const given = await runCli([
      'approvals',
      'list',
      '--json',
      '--server',
      'http://127.0.0.1:9/',
      '--data-dir',
      data.dir,
    ]);
    expect(given.stderr).not.toContain('Using the Sentinel server');

    const freeze = await runCli(['freeze', 'status', '--data-dir', data.dir]);
    expect(freeze.stderr).toContain('2 are running on this data directory');

    // `investigate` says which one in the same words.
    const investigate = await runCli([
      'investigate',
      'checkout returns 502',
      '-n',
      'shop',
      '--data-dir',
      data.dir,
    ]);
    expect(investigate.stderr).toMatch(
      /Using the Sentinel server running at http:\/\/127\.0\.0\.1:(9|19)\/ \(pid \d+, since [^;]+; 2 are running on this data directory\); pass --server to choose another\./,
    );
  });
});

describe('usingServerLine', () => {
  it("says since when in the reader's zone with UTC alongside and how long ago, as `tokens list` does", () => {
    const found = { url: 'http://127.0.0.1:7070/', pid: 4242, started: '2026-12-02T08:40:00.000Z' };
    const now = new Date('2026-12-02T10:40:00.000Z');
    expect(usingServerLine(found, 2, { now, timeZone: 'Asia/Tokyo' })).toBe(
      'Using the Sentinel server running at http://127.0.0.1:7070/ (pid 4242, since 2026-12-02 17:40 GMT+9 (08:40 UTC, 120m ago); 2 are running on this data directory); pass --server to choose another.',
    );
  });
});
