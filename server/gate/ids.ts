import { randomBytes } from 'node:crypto';

/** A new record id: `apr_` (approval request) or `exe_` (execution) followed by 16 hex digits. */
export function newId(prefix: 'apr' | 'exe'): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}
