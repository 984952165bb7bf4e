/**
 * `GET /metrics`: the Prometheus text exposition, behind the same bearer authentication as the API
 * (any identity may read it; scrape with `authorization: { credentials_file: ... }`). Under
 * `--workers N` every worker answers with the sum over all workers (cluster.ts); when they cannot be
 * gathered the scrape fails with 503 rather than show one worker's share as the total.
 */
import { SentinelError } from '../../core/index.ts';
import type { RouteMounter } from '../app.ts';
import { localExposition, type Exposition } from './cluster.ts';
import type { SentinelMetrics } from './metrics.ts';

export function metricsRoute(
  metrics: SentinelMetrics,
  exposition: Exposition = localExposition(metrics.registry),
): RouteMounter {
  return (app, deps) => {
    app.get('/metrics', deps.authenticate, async (_req, res, next) => {
      let body: string;
      try {
        body = await exposition();
      } catch (error) {
        next(
          new SentinelError('unavailable', `Metrics could not be read: ${(error as Error).message}.`, {
            cause: error,
          }),
        );
        return;
      }
      res.setHeader('Content-Type', metrics.registry.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.send(body);
    });
  };
}
