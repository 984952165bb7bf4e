/**
 * `serve` hands its credentials over in 0600 files; a restart whose token is unchanged keeps the
 * file as it is (its mtime too) and says "kept", so "written" in the log means a new secret.
 */
import { readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handOverCredentials } from '../../server/credentials.ts';
import { tempDataDir } from '../helpers/server.ts';

describe('handOverCredentials', () => {
  let temp: ReturnType<typeof tempDataDir>;
  beforeEach(() => (temp = tempDataDir()));
  afterEach(() => temp.cleanup());

  /** Hands `value` over as local.token; the log lines' messages. */
  const handOver = (value: string) => {
    const lines: string[] = [];
    const logger = pino({}, { write: (line: string) => lines.push(JSON.parse(line).msg as string) });
    handOverCredentials([{ label: "Token of identity 'local'", value, file: 'local.token' }], {
      dataDir: temp.dir,
      terminal: false,
      logger,
    });
    return lines;
  };

  it('writes a new or changed value, and keeps an unchanged file untouched (mtime, "credential kept")', () => {
    const file = join(temp.dir, 'local.token');
    expect(handOver('snt_first')).toEqual(["credential written: Token of identity 'local'"]);
    const past = new Date('2020-01-01T00:00:00Z');
    utimesSync(file, past, past);
    expect(handOver('snt_first')).toEqual(["credential kept: Token of identity 'local'"]);
    expect(statSync(file).mtime).toEqual(past);
    expect(handOver('snt_second')).toEqual(["credential written: Token of identity 'local'"]);
    expect(readFileSync(file, 'utf8')).toBe('snt_second\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
