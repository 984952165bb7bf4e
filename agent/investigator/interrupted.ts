/**
 * What `sentinel investigate` prints when it is interrupted (Ctrl-C, SIGTERM) while a request waits
 * (issue 18: no placeholder ids): each pending request by its id, where to decide it — the approvals
 * page URL and the exact `approvals show` command of the server that holds it —, and the exact
 * command that resumes the investigation.
 */
import { sentinelCommand } from '../../core/index.ts';
import { serverBaseUrl } from '../../server/index.ts';
import type { Investigation } from './model.ts';

export interface InterruptedContext {
  /** The investigation's data directory; named in the commands unless it is `defaultDataDir`. */
  dataDir: string;
  /** What `--data-dir` defaults to (`resolveDataDir(undefined)`). */
  defaultDataDir: string;
  /**
   * The server that holds the requests (base or MCP URL) when it outlives this command; undefined
   * when the server was this command's own (in-process) and stopped with it.
   */
  server: string | undefined;
}

/**
 * The lines (ending in a newline) for an interrupted investigation, `saved` as last saved (undefined:
 * stopped before it started). Pure: reads nothing.
 */
export function interruptedLines(saved: Investigation | undefined, context: InterruptedContext): string {
  if (!saved) return 'Stopped before the investigation started; nothing was saved.\n';
  const dataDir = context.dataDir === context.defaultDataDir ? '' : ` --data-dir ${context.dataDir}`;
  const resume = `Resume with: ${sentinelCommand()} investigate --resume ${saved.id}${dataDir}`;
  const pending = saved.pending_approval_ids;
  if (pending.length === 0)
    return `Investigation ${saved.id}: nothing is pending on the server.\n${resume}\n`;
  const requests = `approval request${pending.length === 1 ? '' : 's'} ${pending.join(', ')}`;
  if (context.server === undefined) {
    return [
      `Still pending on the Sentinel server: ${requests} (nothing has run; the server was this command's own and has stopped: resume to decide — the resumed run prints its approvals page).`,
      resume,
      '',
    ].join('\n');
  }
  const base = serverBaseUrl(context.server);
  return [
    `Still pending on the Sentinel server at ${base}: ${requests} (nothing has run).`,
    `Decide on the approvals page ${base}/ui/approvals, or see it with:`,
    ...pending.map((id) => `  ${sentinelCommand()} approvals show ${id} --server ${base}${dataDir}`),
    resume,
    '',
  ].join('\n');
}
