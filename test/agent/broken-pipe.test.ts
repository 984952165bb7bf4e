import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { exitQuietlyOnBrokenPipe, outputClosed, whenOutputCloses } from '../../agent/broken-pipe.ts';
import { openAuditLog } from '../../server/audit/index.ts';
import { auditEntry } from '../helpers/audit.ts';

const SENTINEL = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));

describe('exitQuietlyOnBrokenPipe', () => {
  it('ends the process with 0 on EPIPE and rethrows anything else', () => {
    const stream = new EventEmitter() as EventEmitter & NodeJS.WritableStream;
    const exits: number[] = [];
    exitQuietlyOnBrokenPipe(stream, (code) => exits.push(code));
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(exits).toEqual([0]);
    expect(() => stream.emit('error', Object.assign(new Error('disk full'), { code: 'ENOSPC' }))).toThrow(
      'disk full',
    );
  });
});

describe('whenOutputCloses', () => {
  it('calls the registered handler once instead of exiting; unregistered, EPIPE exits again', () => {
    const stdout = new EventEmitter() as EventEmitter & NodeJS.WritableStream;
    const stderr = new EventEmitter() as EventEmitter & NodeJS.WritableStream;
    const exits: number[] = [];
    exitQuietlyOnBrokenPipe(stdout, (code) => exits.push(code));
    exitQuietlyOnBrokenPipe(stderr, (code) => exits.push(code));
    let calls = 0;
    const unregister = whenOutputCloses(() => calls++);
    const epipe = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    stdout.emit('error', epipe());
    stderr.emit('error', epipe());
    expect({ calls, exits, closed: outputClosed() }).toEqual({ calls: 1, exits: [], closed: true });
    unregister();
    stdout.emit('error', epipe());
    expect(exits).toEqual([0]);
  });
});

describe('sentinel audit export | head', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-broken-pipe-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('exits 0 without a word when the reader goes away', async () => {
    const log = openAuditLog(dataDir);
    // Well over a pipe's 64 KiB buffer, so the export is still writing when the reader leaves.
    for (let i = 0; i < 600; i++) {
      log.append(
        auditEntry({
          time: new Date(Date.UTC(2025, 0, 31, 2, 10, i)).toISOString(),
          arguments: { namespace: 'shop', label_selector: 'app=checkout'.repeat(20) },
        }),
      );
    }
    log.close();
    const child = spawn(process.execPath, [SENTINEL, 'audit', 'export', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // `head -1`: read the first chunk, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
