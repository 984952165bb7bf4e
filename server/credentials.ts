/**
 * How `sentinel serve` hands secrets (the generated `local` token, the approvals page's one-time
 * login link) to the operator: each is written to its own 0600 file in the data directory, and its
 * value is shown only when stderr is an interactive terminal. Otherwise — stderr captured with the
 * JSON logs by a service manager, `2>&1 | tee`, CI — only the file's path is printed and logged.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import type { Credential } from './plugins.ts';

/** Writes `value` to `file` readable by the owner only (the directory is created 0700). */
export function writeSecret(file: string, value: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // writeFileSync keeps the mode of an existing file
}

/** Whether `file` already holds exactly `value` (as `writeSecret` writes it) and is owner-only. */
function holdsSecret(file: string, value: string): boolean {
  try {
    return (statSync(file).mode & 0o077) === 0 && readFileSync(file, 'utf8') === `${value}\n`;
  } catch {
    return false; // missing or unreadable: written anew
  }
}

/**
 * Removes `file` when it still holds `value` as `writeSecret` wrote it (a server's own login link at
 * its stop); a file another process has since rewritten is left alone. Best effort: never throws.
 */
export function removeSecretIfHeld(file: string, value: string): void {
  try {
    if (holdsSecret(file, value)) rmSync(file, { force: true });
  } catch {
    // gone already, or the directory is read-only: nothing to hand over either way
  }
}

export interface HandOverOptions {
  dataDir: string;
  /** Whether stderr is an interactive terminal (`process.stderr.isTTY`); only then are values shown. */
  terminal: boolean;
  logger: Logger;
}

/**
 * Writes every credential to `<dataDir>/<file>` (0600), logs each file's path (never the value), and
 * returns the banner lines for stderr: label, path and value on a terminal, label and path otherwise.
 * A file already holding the value, owner-only (the `local` token kept across restarts), is left
 * untouched, its mtime too, and logged as "credential kept".
 */
export function handOverCredentials(credentials: readonly Credential[], options: HandOverOptions): string[] {
  return credentials.flatMap(({ label, value, file }) => {
    const path = join(options.dataDir, file);
    if (holdsSecret(path, value)) {
      options.logger.info({ file: path }, `credential kept: ${label}`);
    } else {
      writeSecret(path, value);
      options.logger.info({ file: path }, `credential written: ${label}`);
    }
    return options.terminal
      ? [`${label}, saved to ${path} (0600):`, value]
      : [`${label}: in ${path} (0600; not printed because stderr is not a terminal).`];
  });
}
