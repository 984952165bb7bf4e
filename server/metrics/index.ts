/** Public entry of the metrics module: the registry, the tools/call middleware, approval listeners, `/metrics`. */
export { createMetrics, type MetricsOptions, type SentinelMetrics } from './metrics.ts';
export { createMetricsMiddleware } from './middleware.ts';
export { approvalMetricsListener } from './approval-events.ts';
export { metricsRoute } from './route.ts';
export { registerReadCacheMetrics } from './read-cache.ts';
export { clusterExposition, localExposition, type Exposition } from './cluster.ts';
