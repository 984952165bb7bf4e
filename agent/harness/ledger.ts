/**
 * The CLI's per-session ledger of decisions in harness mode: `<data-dir>/harness-sessions/<key>.json`
 * (0600, directory 0700), one file per harness session, mapping each tool call id the human decided
 * to the decision, the Sentinel approval request that records it, who decided and when. The CLI
 * consults it before asking, so a call decided before a crash, a kill at the prompt or a
 * `--resume-session` is never asked again.
 *
 * The ledger is a convenience, not the guarantee: on another machine or with a wiped data directory
 * it is empty, and then the Sentinel server's `client_ref` (one request per harness tool call) is
 * what keeps one decision per call. Writes are write-then-rename, so a reader never sees half a file;
 * two CLI processes on one session may each write, the last write wins, and the server's answer is
 * the same for both.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** `<data-dir>/harness-sessions`. */
export function ledgerDir(dataDir: string): string {
  return join(dataDir, 'harness-sessions');
}

/** One decided harness tool call. */
export const LedgerEntrySchema = z.object({
  decision: z.enum(['allow', 'deny']),
  /** The Sentinel approval request recording the decision; null for calls Sentinel does not gate. */
  request_id: z.string().nullable(),
  /** Who decided (the approver identity at the Sentinel server, or `you` for a non-Sentinel call). */
  decided_by: z.string(),
  /** ISO 8601 time of the decision. */
  at: z.iso.datetime(),
  /** The paused turn that asked. */
  turn_id: z.string(),
  tool: z.string(),
  /** The deny reason sent to the harness. */
  reason: z.string().nullable(),
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

const LedgerFileSchema = z.object({
  harness_url: z.string(),
  session_id: z.string(),
  calls: z.record(z.string(), LedgerEntrySchema),
});
type LedgerFile = z.infer<typeof LedgerFileSchema>;

export interface SessionLedger {
  /** The file, for messages. */
  readonly file: string;
  /** The decision on `toolCallId`, re-read from disk (another process may have written it). */
  get(toolCallId: string): LedgerEntry | undefined;
  /** Records decisions (merged with what is on disk now). */
  record(entries: Record<string, LedgerEntry>): void;
}

/**
 * The ledger of one session of one harness. The file name is a hash of harness URL and session id
 * (session ids are the harness's, not file-name safe). An unreadable or invalid file counts as
 * empty: the server still refuses a second grant.
 */
export function openSessionLedger(dataDir: string, harnessUrl: string, sessionId: string): SessionLedger {
  const url = harnessUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  const key = createHash('sha256')
    .update(JSON.stringify([url, sessionId]))
    .digest('hex')
    .slice(0, 32);
  const dir = ledgerDir(dataDir);
  const file = join(dir, `${key}.json`);
  const read = (): LedgerFile => {
    try {
      const parsed = LedgerFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (parsed.success) return parsed.data;
    } catch {
      // missing or unreadable: empty
    }
    return { harness_url: url, session_id: sessionId, calls: {} };
  };
  return {
    file,
    get: (toolCallId) => read().calls[toolCallId],
    record(entries) {
      const current = read();
      const next: LedgerFile = { ...current, calls: { ...current.calls, ...entries } };
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      chmodSync(temporary, 0o600);
      renameSync(temporary, file);
    },
  };
}
