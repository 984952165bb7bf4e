/**
 * How clients find the Sentinel servers running on this machine: each running server writes its own
 * discovery file `<data-dir>/servers/<port>.json` (URL, pid, start time, where its token is) and
 * removes it when it stops. A file whose pid no longer runs (a server killed with SIGKILL) is stale
 * and ignored. Several servers on one data directory thus never overwrite each other's files, and a
 * client command can take the token of the server it talks to.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeSecret } from './credentials.ts';

/** One running server as its discovery file describes it. */
export const ServerEntrySchema = z.object({
  /** Base URL, e.g. `http://127.0.0.1:7070`. */
  url: z.string(),
  pid: z.number().int(),
  /** ISO 8601 start time. */
  started: z.string(),
  /** The file holding the token of identity `local` for this server (mode 0600). */
  token_file: z.string().optional(),
  /** The file holding this server's one-time approvals-page login link, when it wrote one. */
  login_link_file: z.string().optional(),
  /** `serve` for `sentinel serve`; `investigation` for the in-process server of one investigation. */
  kind: z.enum(['serve', 'investigation']),
});
export type ServerEntry = z.infer<typeof ServerEntrySchema>;

/** `<data-dir>/servers`. */
export function serversDir(dataDir: string): string {
  return join(dataDir, 'servers');
}

/** `<data-dir>/servers/<port>.json`. */
export function discoveryFile(dataDir: string, port: number | string): string {
  return join(serversDir(dataDir), `${port}.json`);
}

/** Whether a process with this pid runs (signal 0 probes without signalling; EPERM: runs, not ours). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Writes the discovery file of a server listening on `entry.url` (mode 0600, directory 0700) and
 * returns a function that removes it (also run at process exit, so a crash that still runs exit
 * handlers leaves nothing behind).
 */
export function registerServer(dataDir: string, entry: ServerEntry): () => void {
  mkdirSync(serversDir(dataDir), { recursive: true, mode: 0o700 });
  const file = discoveryFile(dataDir, new URL(entry.url).port);
  writeSecret(file, JSON.stringify(entry));
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    // Only our own file: a server that since took the port wrote its own.
    const current = readEntry(file);
    if (current === undefined || current.pid === entry.pid) rmSync(file, { force: true });
  };
  process.on('exit', remove);
  return remove;
}

function readEntry(file: string): ServerEntry | undefined {
  try {
    const parsed = ServerEntrySchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The running servers of a data directory, oldest first. Unreadable files are ignored; a stale one
 * (its pid no longer runs: a server killed with SIGKILL) is removed, with the login link next to it.
 */
export function runningServers(dataDir: string): ServerEntry[] {
  let names: string[];
  try {
    names = readdirSync(serversDir(dataDir)).filter((name) => /^\d+\.json$/.test(name));
  } catch {
    return [];
  }
  const running: ServerEntry[] = [];
  for (const name of names) {
    const file = join(serversDir(dataDir), name);
    const entry = readEntry(file);
    if (entry === undefined) continue;
    if (processRuns(entry.pid)) running.push(entry);
    else removeStale(file, entry);
  }
  return running.sort((a, b) => a.started.localeCompare(b.started));
}

/** Removes the discovery file of a server that is gone (and its own login link), best effort. */
function removeStale(file: string, entry: ServerEntry): void {
  try {
    rmSync(file, { force: true });
    if (entry.login_link_file?.startsWith(`${file.slice(0, -'.json'.length)}.`)) {
      rmSync(entry.login_link_file, { force: true });
    }
  } catch {
    // another process removed it, or the directory is read-only: ignoring the file is enough
  }
}

/** The running server of `dataDir` at `baseUrl` (same origin), or undefined. */
export function findServer(dataDir: string, baseUrl: string): ServerEntry | undefined {
  const origin = new URL(baseUrl).origin;
  return runningServers(dataDir).find((entry) => new URL(entry.url).origin === origin);
}

/** The token in the file of a discovery entry, or undefined when it cannot be read. */
export function entryToken(entry: ServerEntry): string | undefined {
  if (entry.token_file === undefined) return undefined;
  try {
    return readFileSync(entry.token_file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
