/**
 * The server log of the read cache (tools/kube/read-cache.ts): one line per reflector state change
 * — synced (info), lost its list or watch (warn: reads of that resource and namespace go to the API
 * server until it is back), relisting after 410 Gone (info), a watch silent for `watchIdleMs` ended
 * and resumed (info, once per silent spell: a half-open connection, or just a quiet namespace) — and
 * each failed retry at debug, never a line per watch event.
 */
import type { Logger } from 'pino';
import type { ReadCacheOptions } from '../tools/index.ts';

/** The cache's `onStateChange` and `onError`, logging to `logger` (fields `resource`, `namespace`). */
export function readCacheLog(logger: Logger): Required<Pick<ReadCacheOptions, 'onStateChange' | 'onError'>> {
  return {
    onStateChange(change, where) {
      if (change.state === 'synced') logger.info(where, 'read cache synced: reads answered from memory');
      else if (change.state === 'relist')
        logger.info(where, 'read cache relisting: the watch version expired (410 Gone)');
      else if (change.state === 'idle')
        logger.info(
          { ...where, idleMs: change.idleMs },
          'read cache watch silent (no event or bookmark): ended it and watching again from its last version; reads go to the API server until it resumes',
        );
      else
        logger.warn(
          { ...where, err: change.error },
          'read cache lost its watch: reads go to the API server while it retries',
        );
    },
    onError(error, where) {
      logger.debug({ ...where, err: error }, 'read cache list or watch failed; retrying with backoff');
    },
  };
}
