/**
 * Checkpoints of the audit log's head, to anchor it outside the database. The hash chain shows that
 * the records present are the ones written, in order; only a head recorded elsewhere shows that
 * none were removed from the end, that the log was not emptied, and that the chain was not
 * rewritten (re-signed) from some record on.
 *
 * A checkpoint is one JSON line: `{"kind":"sentinel_audit_checkpoint","seq":N,"hash":"<record N's
 * hash>","time":"<record N's time>","created_at":"<when taken>"}` (seq 0 and the genesis hash for an
 * empty log). The server appends one to `<data-dir>/audit-checkpoints.jsonl` on a schedule and at
 * shutdown; `sentinel audit checkpoint` takes one on demand and can append it to a file the operator
 * keeps elsewhere or POST it to a webhook. `sentinel audit verify` checks the log against the data
 * directory's checkpoints and any `--checkpoint <file|hash|seq:hash>`.
 */
import { appendFileSync, closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { SentinelError, sentinelCommand } from '../../core/index.ts';
import { CHECKPOINT_FILE } from './checkpoint-file.ts';
import { canonicalJson, GENESIS_HASH, type CheckpointRef } from './record.ts';
import type { AuditLog } from './store.ts';

export { CHECKPOINT_FILE };

const HASH = /^[0-9a-f]{64}$/;

export const CheckpointSchema = z.strictObject({
  kind: z.literal('sentinel_audit_checkpoint'),
  /** Sequence number of the head record; 0 for an empty log. */
  seq: z.number().int().nonnegative(),
  /** Hash of the head record; `GENESIS_HASH` for an empty log. */
  hash: z.string().regex(HASH, 'must be 64 lowercase hex characters (SHA-256)'),
  /** `time` of the head record; null for an empty log. */
  time: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

/** The head of `log` as stored now (no verification: the caller decides whether to verify first). */
export function headCheckpoint(log: Pick<AuditLog, 'head'>, now: Date = new Date()): Checkpoint {
  const head = log.head();
  return {
    kind: 'sentinel_audit_checkpoint',
    seq: head?.seq ?? 0,
    hash: head?.hash ?? GENESIS_HASH,
    time: head?.time ?? null,
    created_at: now.toISOString(),
  };
}

/** The checkpoint as one line of text (canonical JSON and a newline). */
export const checkpointLine = (checkpoint: Checkpoint): string => `${canonicalJson(checkpoint)}\n`;

/**
 * Checks that `file` can be appended to (creating it empty, 0600, when missing) before anything is
 * appended anywhere, so that a bad target never leaves the checkpoint half-applied. Throws
 * `SentinelError('invalid_input')` naming `field` and the reason.
 */
export function checkAppendable(file: string, field: string): void {
  try {
    closeSync(openSync(file, 'a', 0o600));
  } catch (error) {
    throw new SentinelError(
      'invalid_input',
      `${field} ${file} cannot be written: ${(error as Error).message}.`,
      {
        field,
        cause: error,
      },
    );
  }
}

/** Appends `checkpoint` as one line to `file` (created 0600 when missing). */
export function appendCheckpoint(file: string, checkpoint: Checkpoint): void {
  appendFileSync(file, checkpointLine(checkpoint), { mode: 0o600 });
}

/**
 * POSTs `checkpoint` as JSON to `url`. Throws `SentinelError('unavailable')` naming `--webhook` when
 * the request fails, times out (`timeoutMs`, default 10 s) or is answered with a non-2xx status.
 */
export async function sendCheckpoint(
  url: string,
  checkpoint: Checkpoint,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  let status: number;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: canonicalJson(checkpoint),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    status = response.status;
    await response.body?.cancel();
  } catch (error) {
    throw new SentinelError('unavailable', `--webhook ${url}: ${(error as Error).message}.`, {
      field: '--webhook',
      cause: error,
    });
  }
  if (status < 200 || status > 299) {
    throw new SentinelError('unavailable', `--webhook ${url} answered HTTP ${status}.`, {
      field: '--webhook',
    });
  }
}

/** Checkpoint lines read leniently: the valid ones, and why each other non-blank line is not one. */
export interface CheckpointLines {
  checkpoints: Checkpoint[];
  /** One sentence per malformed line, naming `source` and the 1-based line number. */
  malformed: string[];
}

/** Reads checkpoint lines (blank lines skipped), keeping the valid ones and naming each malformed one. */
export function readCheckpoints(text: string, source: string): CheckpointLines {
  const lines: CheckpointLines = { checkpoints: [], malformed: [] };
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const parsed = CheckpointSchema.safeParse(value);
    if (parsed.success) lines.checkpoints.push(parsed.data);
    else
      lines.malformed.push(
        `${source} line ${index + 1} is not a checkpoint (one JSON line per checkpoint, as \`${sentinelCommand()} audit checkpoint\` prints)`,
      );
  });
  return lines;
}

/** Parses checkpoint lines (blank lines skipped). Throws `invalid_input` naming `source` and the line. */
export function parseCheckpoints(text: string, source: string): Checkpoint[] {
  const { checkpoints, malformed } = readCheckpoints(text, source);
  if (malformed.length > 0) {
    throw new SentinelError('invalid_input', `${malformed[0]}.`, { field: '--checkpoint' });
  }
  return checkpoints;
}

/**
 * The checkpoints a `--checkpoint` value names: a hash (`<64 hex>`), a `<seq>:<hash>` pair, or a
 * file of checkpoint lines. Throws `SentinelError('invalid_input')` naming `--checkpoint`.
 */
export function checkpointsFromOption(value: string): CheckpointRef[] {
  const trimmed = value.trim();
  if (HASH.test(trimmed)) return [{ hash: trimmed }];
  const pair = /^(\d+):([0-9a-f]{64})$/.exec(trimmed);
  if (pair) return [{ seq: Number(pair[1]), hash: pair[2]! }];
  if (!existsSync(value)) {
    throw new SentinelError(
      'invalid_input',
      `--checkpoint '${value}' is neither a checkpoint file, a head hash (64 hex characters) nor <seq>:<hash>.`,
      { field: '--checkpoint' },
    );
  }
  const checkpoints = parseCheckpoints(readFileSync(value, 'utf8'), `--checkpoint ${value}`);
  if (checkpoints.length === 0) {
    throw new SentinelError('invalid_input', `--checkpoint ${value} holds no checkpoint.`, {
      field: '--checkpoint',
    });
  }
  return checkpoints;
}

/**
 * The server's checkpoints in `dataDir` (none when it never wrote one), read leniently: a malformed
 * line is not a usage error but evidence that the file was edited, so the caller reports `malformed`
 * and still checks the log against the valid ones.
 */
export function dataDirCheckpoints(dataDir: string): CheckpointLines & { file: string } {
  const file = join(dataDir, CHECKPOINT_FILE);
  const lines = existsSync(file) ? readCheckpoints(readFileSync(file, 'utf8'), file) : undefined;
  return { file, checkpoints: lines?.checkpoints ?? [], malformed: lines?.malformed ?? [] };
}

export interface CheckpointSchedule {
  /** Writes a checkpoint now if the head moved since the last one written. */
  write(): void;
  /** Stops the schedule and writes a last checkpoint (call before closing the log). */
  close(): void;
}

/**
 * Appends the head of `log` to `<dataDir>/audit-checkpoints.jsonl` every `intervalMs` (default 60 s;
 * unref'd timer) when it moved, and once more at `close`. A failed write is logged, never thrown.
 */
export function scheduleCheckpoints(
  log: Pick<AuditLog, 'head'>,
  dataDir: string,
  options: { intervalMs?: number; logger?: Logger; now?: () => Date } = {},
): CheckpointSchedule {
  const file = join(dataDir, CHECKPOINT_FILE);
  const now = options.now ?? (() => new Date());
  let written: string | undefined;
  try {
    const previous = dataDirCheckpoints(dataDir).checkpoints.at(-1);
    written = previous && `${previous.seq}:${previous.hash}`;
  } catch (error) {
    options.logger?.warn({ err: error, file }, 'audit checkpoint file unreadable; appending to it anyway');
  }
  const write = () => {
    try {
      const checkpoint = headCheckpoint(log, now());
      const key = `${checkpoint.seq}:${checkpoint.hash}`;
      if (key === written) return;
      appendCheckpoint(file, checkpoint);
      written = key;
    } catch (error) {
      options.logger?.error({ err: error, file }, 'audit checkpoint not written');
    }
  };
  const timer = setInterval(write, options.intervalMs ?? 60_000);
  timer.unref();
  return {
    write,
    close() {
      clearInterval(timer);
      write();
    },
  };
}
