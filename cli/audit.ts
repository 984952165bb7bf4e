/**
 * `sentinel audit export|verify|checkpoint`: read the audit log of a data directory (the server may
 * be running; SQLite's WAL lets both read while it writes), and anchor its head elsewhere.
 */
import { sentinelCommand } from '../agent/light.ts';
import { join } from 'node:path';
import type { Command } from 'commander';
import { SentinelError } from '../core/light.ts';
import { CHECKPOINT_FILE, resolveDataDir } from '../server/light.ts';
import { collect, dataDirOption } from './options.ts';

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
    .action(async (options: { since?: string; dataDir?: string }) => {
      const { openAuditLog, parseSince } = await import('../server/client.ts');
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
    .description(
      'Check every stored record byte for byte and recompute the hash chain; check it against the ' +
        "data directory's checkpoints and any --checkpoint; report the first broken record and exit 1.",
    )
    .option(
      '--checkpoint <file|hash>',
      'a checkpoint file (as `audit checkpoint` writes), a head hash, or <seq>:<hash>; repeatable',
      collect,
    )
    .addOption(dataDirOption())
    .action(async (options: { dataDir?: string; checkpoint?: string[] }) => {
      const { checkpointsFromOption, dataDirCheckpoints, openAuditLog } = await import('../server/client.ts');
      const dataDir = resolveDataDir(options.dataDir);
      const given = (options.checkpoint ?? []).flatMap(checkpointsFromOption);
      const { checkpoints: own, malformed } = dataDirCheckpoints(dataDir);
      const log = openAuditLog(dataDir, { mustExist: true });
      try {
        // A malformed line is evidence the file was edited: report it, check the rest, exit 1.
        for (const line of malformed) {
          process.stderr.write(
            `${line}: the checkpoint file was edited (tampering evidence); the log is checked against its valid lines.\n`,
          );
        }
        if (malformed.length > 0) process.exitCode = 1;
        const report = log.verify({ checkpoints: [...own, ...given] });
        if (report.broken) {
          const { seq, reason } = report.broken;
          process.stderr.write(
            `Audit log ${log.file}: record ${seq} breaks the chain: ${reason}. ` +
              `${seq > 1 ? `Records 1-${seq - 1} are intact.` : 'No record before it.'}\n`,
          );
          process.exitCode = 1;
          return;
        }
        if (own.length + given.length === 0) {
          // Exit 0 (README, "What it does not prove"), but say what an intact chain alone cannot show.
          process.stderr.write(
            `warning: no checkpoints to compare against (no valid ${CHECKPOINT_FILE} in ${dataDir}, no --checkpoint), ` +
              'so a truncated or emptied log looks intact. A server that has run leaves checkpoints there; only a ' +
              `checkpoint kept elsewhere (\`${sentinelCommand()} audit checkpoint --append <file> | --webhook <url>\`) ` +
              'proves the log was not wiped. See docs/audit.md, "Verification and checkpoints".\n',
          );
        }
        const against = [
          own.length > 0 && `${own.length} checkpoint${own.length === 1 ? '' : 's'} in ${CHECKPOINT_FILE}`,
          given.length > 0 && `${given.length} given with --checkpoint`,
        ].filter(Boolean);
        process.stdout.write(
          `Audit log ${log.file}: ${report.records} records, chain intact` +
            (against.length > 0 ? `, consistent with ${against.join(' and ')}` : '') +
            `. Head hash ${report.head} ` +
            `(keep it elsewhere to detect a truncated log later: \`${sentinelCommand()} audit checkpoint\`).\n`,
        );
      } finally {
        log.close();
      }
    });

  audit
    .command('checkpoint')
    .description(
      "Verify the log, then print its head (seq, hash, time) as one JSON line and record it in the data directory's " +
        `${CHECKPOINT_FILE}; keep a copy elsewhere with --append or --webhook.`,
    )
    .option(
      '--append <file>',
      'also append the checkpoint line to this file (kept outside the data directory)',
    )
    .option('--webhook <url>', 'also POST the checkpoint as JSON to this http(s) URL (not link-local)')
    .addOption(dataDirOption())
    .action(async (options: { dataDir?: string; append?: string; webhook?: string }) => {
      const {
        appendCheckpoint,
        checkAppendable,
        checkpointLine,
        dataDirCheckpoints,
        headCheckpoint,
        openAuditLog,
        sendCheckpoint,
        checkWebhookUrl,
      } = await import('../server/client.ts');
      const dataDir = resolveDataDir(options.dataDir);
      // Before the data dir's own checkpoint file: a bad --append target changes nothing.
      if (options.append !== undefined) checkAppendable(options.append, '--append');
      if (options.webhook !== undefined) checkWebhookUrl(options.webhook, '--webhook');
      const log = openAuditLog(dataDir, { mustExist: true });
      let checkpoint;
      try {
        const { checkpoints, malformed } = dataDirCheckpoints(dataDir);
        if (malformed.length > 0) {
          throw new SentinelError(
            'conflict',
            `${malformed[0]}; no checkpoint taken — \`${sentinelCommand()} audit verify\` reports it.`,
          );
        }
        const report = log.verify({ checkpoints });
        if (report.broken) {
          throw new SentinelError(
            'conflict',
            `Audit log ${log.file}: record ${report.broken.seq} breaks the chain (${report.broken.reason}); no checkpoint taken — \`${sentinelCommand()} audit verify\` shows the break.`,
          );
        }
        checkpoint = headCheckpoint(log);
      } finally {
        log.close();
      }
      appendCheckpoint(join(dataDir, CHECKPOINT_FILE), checkpoint);
      if (options.append !== undefined) appendCheckpoint(options.append, checkpoint);
      if (options.webhook !== undefined) await sendCheckpoint(options.webhook, checkpoint);
      process.stdout.write(checkpointLine(checkpoint));
    });
}
