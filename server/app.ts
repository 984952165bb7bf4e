/**
 * The HTTP face of the server: an Express app with `/mcp` (MCP Streamable HTTP, stateless: a fresh
 * transport and MCP server per POST, identity from that request's bearer token), `/healthz` and
 * `/readyz`, and whatever routers other modules mount through `extraRoutes`, all behind the same
 * Host/Origin checks.
 */
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { NodeMcpTransport, type HttpMcpTransport } from './mcp-transport.ts';
import { jsonBody } from './json-body.ts';
import { allTools, type KubeConnection, createRegistry, type ToolRegistry } from '../tools/index.ts';
import { SentinelError } from '../core/index.ts';
import { createAuthenticate, hostAndOriginCheck } from './auth.ts';
import type { IdentityStore } from './identity-store.ts';
import { createLogger } from './logger.ts';
import { createMcpServer, listTools } from './mcp.ts';
import {
  createToolCallPipeline,
  notifyRejected,
  UNAUTHENTICATED,
  UNREAD_TOOL,
  type RejectedCallListener,
  type ToolCallMiddleware,
  type ToolCallPipeline,
} from './pipeline.ts';
import { SENTINEL_VERSION } from './version.ts';
import { MAX_BODY_BYTES } from './limits.ts';
import { createClusterProbe, notConfigured, type ClusterAccess, type ClusterProbeOptions } from './kube.ts';
import { createAdmission, DEFAULT_ADMISSION_LIMITS, type AdmissionLimits } from './admission.ts';

export { MAX_BODY_BYTES } from './limits.ts';

/** What route modules (approvals API, web page, metrics) receive when they are mounted. */
export interface ServerDeps {
  registry: ToolRegistry;
  identities: IdentityStore;
  /** The current cluster connection (await it: it is made on first need). */
  kube: ClusterAccess;
  logger: Logger;
  /** Bearer authentication; sets `req.identity` / `res.locals.identity` or answers 401. */
  authenticate: RequestHandler;
  /** Runs a `tools/call` through the same pipeline (and gate) as `/mcp`. */
  pipeline: ToolCallPipeline;
  version: string;
}

/** Mounts extra routes, e.g. `app.use('/api/approvals', deps.authenticate, router)`. */
export type RouteMounter = (app: Express, deps: ServerDeps) => void;

export interface ServerAppOptions {
  identities: IdentityStore;
  /** Host names accepted in Host and Origin headers (Host-header form; see `hostHeaderName`). */
  allowedHosts: readonly string[];
  /** Default: every Sentinel tool (`allTools`). Tests inject fixture registries. */
  registry?: ToolRegistry;
  /** Default: not configured (tools answer `unavailable` with the reason). */
  kube?: KubeConnection | ClusterAccess;
  /** `tools/call` middlewares, outermost first (the approval gate, audit). */
  middlewares?: readonly ToolCallMiddleware[];
  logger?: Logger;
  /** Called in order after `/healthz` and `/mcp`, before the 404 handler. */
  extraRoutes?: readonly RouteMounter[];
  /** Timeout and caching of the cluster reachability probe behind /healthz and /readyz. */
  clusterProbe?: ClusterProbeOptions;
  /** Told about calls refused before the middlewares: unknown tool, invalid arguments, 401 on /mcp. */
  onRejected?: RejectedCallListener;
  /** Read-lane limits of `/mcp` (server/admission.ts); default `DEFAULT_ADMISSION_LIMITS`. */
  admission?: AdmissionLimits;
  /**
   * The transport answering `/mcp`: Sentinel's on Node's req/res (server/mcp-transport.ts, the
   * default) or the SDK's `StreamableHTTPServerTransport`, kept so test/server/mcp-transport.test.ts
   * can prove the two answer alike.
   */
  mcpTransport?: 'sentinel' | 'sdk';
}

export interface ServerApp {
  app: Express;
  deps: ServerDeps;
}

/**
 * A body-parser or Express error as the SentinelError it is answered with: a body too large is 413
 * and a body that is not JSON 400 (JSON-RPC Parse error), another 4xx Invalid request, anything else
 * internal.
 */
function transportError(error: { type?: string; status?: number }): SentinelError {
  if (error.type === 'entity.too.large') {
    return new SentinelError('invalid_input', `Request body exceeds ${MAX_BODY_BYTES} bytes (1 MiB).`, {
      statusCode: 413,
    });
  }
  if (error.type === 'entity.parse.failed') {
    return new SentinelError('invalid_input', 'Parse error: the request body is not valid JSON.', {
      statusCode: 400,
      jsonRpcCode: -32700,
    });
  }
  if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
    return new SentinelError('invalid_input', 'Invalid request.', { statusCode: error.status });
  }
  return new SentinelError('internal', 'Internal error');
}

/** Request id, a child logger, and one log line per request when it finishes. */
function requestLogging(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const requestId = randomUUID();
    const started = performance.now();
    res.locals.requestId = requestId;
    res.locals.log = logger.child({ requestId });
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      (res.locals.log as Logger).info(
        {
          identity: req.identity?.name,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          durationMs: Math.round(performance.now() - started),
        },
        'request',
      );
    });
    next();
  };
}

/**
 * Builds the Express app. Computes the `tools/list` result up front, so a tool whose schema cannot
 * be published fails here rather than on a client's first request.
 */
export function createServerApp(options: ServerAppOptions): ServerApp {
  const registry = options.registry ?? createRegistry(allTools);
  const connection = options.kube ?? notConfigured();
  const kube = typeof connection === 'function' ? connection : () => connection;
  const logger = options.logger ?? createLogger();
  listTools(registry);
  const { onRejected } = options;
  const pipeline = createToolCallPipeline({
    registry,
    kube,
    middlewares: options.middlewares ?? [],
    logger,
    ...(onRejected && { onRejected }),
  });
  const authenticate = createAuthenticate(options.identities);
  const deps: ServerDeps = {
    registry,
    identities: options.identities,
    kube,
    logger,
    authenticate,
    pipeline,
    version: SENTINEL_VERSION,
  };
  const startedAt = Date.now();

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestLogging(logger));
  app.use(hostAndOriginCheck(options.allowedHosts));

  // Unauthenticated on purpose (liveness and readiness probes); Host/Origin-checked like everything
  // else. /healthz is liveness: 200 whenever the server answers, the body says whether the cluster is
  // configured and reachable. /readyz is readiness: 200 only when tools can reach the cluster, else 503.
  const clusterHealth = createClusterProbe(kube, options.clusterProbe);
  // Liveness does not connect: an idle server polled by /healthz never loads the Kubernetes client
  // (issue 17: ~60 MB of its generated models); readiness does, it needs the answer.
  const health = async (connect: boolean) => {
    const cluster = await clusterHealth({ connect });
    const ready = cluster.configured === true && cluster.reachable;
    return {
      ready,
      body: {
        status: ready ? 'ok' : 'degraded',
        version: SENTINEL_VERSION,
        uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
        cluster,
      },
    };
  };
  app.get('/healthz', async (_req, res) => {
    res.json((await health(false)).body);
  });
  app.get('/readyz', async (_req, res) => {
    const { ready, body } = await health(true);
    res.status(ready ? 200 : 503).json(body);
  });

  // A request refused for its token (any route) is reported with its source and route, without
  // reading the body (so no tool name); the audit aggregates these per source and minute.
  const recordUnauthenticated: RequestHandler = (req, res, next) => {
    const at = new Date();
    // Read now: a router mounted on a path rewrites req.url while its handlers run.
    const route = `${req.method} /${req.path.split('/')[1] ?? ''}`;
    res.on('finish', () => {
      if (res.statusCode !== 401) return;
      notifyRejected(
        onRejected,
        {
          at,
          requestId: res.locals.requestId as string,
          identity: UNAUTHENTICATED,
          tool: UNREAD_TOOL,
          reason: 'unauthenticated',
          error: new SentinelError('unauthorized', 'Missing, unknown or revoked bearer token.'),
          source: req.socket.remoteAddress ?? 'unknown',
          route,
        },
        res.locals.log as Logger,
      );
    });
    next();
  };
  app.use(recordUnauthenticated);
  const admission = createAdmission(registry, options.admission ?? DEFAULT_ADMISSION_LIMITS);
  app.post(
    '/mcp',
    authenticate,
    jsonBody({ limit: MAX_BODY_BYTES }),
    admission.middleware,
    async (req, res) => {
      const identity = req.identity!;
      const requestId = res.locals.requestId as string;
      const server = createMcpServer({
        registry,
        pipeline,
        caller: () => ({ identity, requestId }),
        version: deps.version,
      });
      const transport: HttpMcpTransport =
        options.mcpTransport === 'sdk'
          ? new StreamableHTTPServerTransport({
              sessionIdGenerator: undefined,
              enableJsonResponse: true,
              maxRequestBodySize: MAX_BODY_BYTES,
            })
          : new NodeMcpTransport({ maxRequestBodySize: MAX_BODY_BYTES });
      // A client gone before its answer aborts the handlers still running (closing the transport
      // closes the server). After the answer nothing is pending: closing would only build the
      // Protocol's "Connection closed" error for nobody.
      res.on('close', () => {
        if (res.writableFinished && options.mcpTransport !== 'sdk') return;
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body);
      } catch (error) {
        (res.locals.log as Logger).error({ err: error }, 'MCP request failed');
        if (!res.headersSent)
          res.status(500).json(new SentinelError('internal', 'Internal error').toJsonRpcBody());
      }
    },
  );
  // Stateless server: no SSE stream to GET and no session to DELETE.
  app.all('/mcp', authenticate, (_req, res) => {
    const refused = new SentinelError(
      'invalid_input',
      'Method not allowed: this server is stateless; send JSON-RPC requests with POST.',
      { statusCode: 405, jsonRpcCode: -32000 },
    );
    res.status(refused.statusCode).set('Allow', 'POST').json(refused.toJsonRpcBody());
  });

  for (const mount of options.extraRoutes ?? []) mount(app, deps);

  // Outside /mcp (whose errors are JSON-RPC), errors have the approvals API's shape:
  // `{"error": {"code", "message"}}` (ApiErrorSchema); both bodies come from the SentinelError.
  app.use((req, res) => {
    const missing = new SentinelError(
      'not_found',
      `No route ${req.method} ${req.path}; the MCP endpoint is POST /mcp (health: GET /healthz).`,
    );
    res.status(missing.statusCode).json(missing.toApiBody());
  });
  const onError: ErrorRequestHandler = (error: { type?: string; status?: number }, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const failure = transportError(error);
    if (failure.code === 'internal') (res.locals.log as Logger).error({ err: error }, 'request failed');
    res.status(failure.statusCode).json(req.path === '/mcp' ? failure.toJsonRpcBody() : failure.toApiBody());
  };
  app.use(onError);
  return { app, deps };
}
