/**
 * Store URLs (`--store`, SENTINEL_STORE_URL), without loading the `pg` driver: a SQLite-only server
 * never pays for it at start-up.
 */

/** Whether `url` names a PostgreSQL store (`postgres://` or `postgresql://`). */
export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\/\S+$/.test(url);
}

/** The URL with its password replaced by `***` (for logs and errors). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}
