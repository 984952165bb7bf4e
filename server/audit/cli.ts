/**
 * `sentinel audit export|verify`: read the audit log of a data directory (the server may be running;
 * SQLite's WAL lets both read while it writes).
 */
import type { Command } from 'commander';
import { SentinelError } from '../../tools/errors.ts';
import { dataDirOption, resolveDataDir } from '../data-dir.ts';
import { durationMs, DurationSchema } from '../gate/approval-request.ts';
import { openAuditLog } from './store.ts';

/**
 * The `--since` value as an ISO 8601 UTC time: a timestamp (`2025-01-31T02:00:00Z`, any offset) or a
 * duration back from `now` (`90m`, `2h`, `7d`, as `kubectl logs --since`). Throws
 * `SentinelError('invalid_input')` naming `--since`.
 */
export function parseSince(value: string, now: Date = new Date()): string {
  if (DurationSchema.safeParse(value).success)
    return new Date(now.getTime() - durationMs(value)).toISOString();
  const time = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new SentinelError(
      'invalid_input',
      `--since '${value}' is neither an ISO 8601 time (2025-01-31T02:00:00Z) nor a duration (90m, 2h, 7d).`,
      { field: '--since' },
    );
  }
  return new Date(time).toISOString();
}

/** Adds `audit export` and `audit verify`. */
export function registerAuditCommands(program: Command): void {
  const audit = program
    .command('audit')
    .description('Read the hash-chained audit log: one record per tool call and per approval event.');

  audit
    .command('export')
    .description('Write audit records as JSON Lines to stdout, oldest first, exactly as hashed.')
    .option('--since <time>', 'only records at or after an ISO 8601 time, or a duration back from now (2h)')
    .addOption(dataDirOption())
    .action((options: { since?: string; dataDir?: string }) => {
      const since = options.since === undefined ? undefined : parseSince(options.since);
      const log = openAuditLog(resolveDataDir(options.dataDir), { mustExist: true });
      try {
        for (const row of log.rows(since === undefined ? {} : { since }))
          process.stdout.write(`${row.json}\n`);
      } finally {
        log.close();
      }
    });

  audit
    .command('verify')
    .description('Recompute the hash chain; report the first broken record and exit 1 if any.')
    .addOption(dataDirOption())
    .action((options: { dataDir?: string }) => {
      const log = openAuditLog(resolveDataDir(options.dataDir), { mustExist: true });
      try {
        const report = log.verify();
        if (report.broken) {
          const { seq, reason } = report.broken;
          process.stderr.write(
            `Audit log ${log.file}: record ${seq} breaks the chain: ${reason}. ` +
              `${seq > 1 ? `Records 1-${seq - 1} are intact.` : 'No record before it.'}\n`,
          );
          process.exitCode = 1;
          return;
        }
        process.stdout.write(
          `Audit log ${log.file}: ${report.records} records, chain intact. Head hash ${report.head} ` +
            '(keep it elsewhere to detect a truncated log later).\n',
        );
      } finally {
        log.close();
      }
    });
}
