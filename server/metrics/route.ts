/**
 * `GET /metrics`: the Prometheus text exposition, behind the same bearer authentication as the API
 * (any identity may read it; scrape with `authorization: { credentials_file: ... }`).
 */
import type { RouteMounter } from '../app.ts';
import type { SentinelMetrics } from './metrics.ts';

export function metricsRoute(metrics: SentinelMetrics): RouteMounter {
  return (app, deps) => {
    app.get('/metrics', deps.authenticate, async (_req, res, next) => {
      try {
        const body = await metrics.registry.metrics();
        res.setHeader('Content-Type', metrics.registry.contentType);
        res.setHeader('Cache-Control', 'no-store');
        res.send(body);
      } catch (error) {
        next(error);
      }
    });
  };
}
