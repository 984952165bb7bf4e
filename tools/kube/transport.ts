/**
 * Sentinel's HTTP request layer to one cluster: one keep-alive undici dispatcher for the whole
 * connection, reused by every request, with `@kubernetes/client-node` kept for what it is good at —
 * the kubeconfig, its TLS material and authentication (bearer tokens, exec and OIDC plugins, basic
 * auth, impersonation).
 *
 * Why: client-node 2.0.1's `KubeConfig.applySecurityAuthentication` calls `createDispatcher` on
 * every request, which builds a new undici `Agent` whenever the kubeconfig carries TLS material (a
 * CA, a client certificate) — a fresh TLS handshake per request and a pool of connections nobody
 * reuses. `pinDispatcher` replaces that method on the `KubeConfig` instance with one that returns the
 * same dispatcher every time (built on first use from the library's own dispatcher options, in a pool of
 * at most MAX_CONNECTIONS_PER_CLUSTER connections; proxy and SOCKS by the library's `createDispatcher`,
 * so every option keeps the library's mapping), so neither this layer nor any generated
 * client made from the same `KubeConfig` opens a connection per request.
 *
 * Responses are read as text and handed back unparsed: callers parse the JSON themselves, without
 * the generated clients' `ObjectSerializer` model conversion.
 */
import { ApiException, HttpMethod, RequestContext, type KubeConfig } from '@kubernetes/client-node';
import { Agent, request, type Dispatcher } from 'undici';

/** One request to the API server. */
export interface KubeRequest {
  method: 'GET' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. `/apis/apps/v1/namespaces/shop/deployments/checkout`. */
  path: string;
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Request body (JSON text) and its content type (a patch type). */
  body?: { text: string; contentType: string };
  /** Aborts the request (timeout, the tool call's cancellation). */
  signal?: AbortSignal;
}

/** The HTTP layer of one cluster connection. */
export interface KubeTransport {
  /**
   * Sends `req` and resolves with the body of a 2xx answer as text. A non-2xx answer rejects with
   * client-node's `ApiException` (code = HTTP status, body = the answer's text, headers lower-cased),
   * which `toKubeError` maps; a transport failure (refused, reset, aborted) rejects with undici's or
   * the signal's error.
   */
  send(req: KubeRequest): Promise<string>;
  /**
   * Sends `req` (a `GET ...?watch=1`) and resolves, once a 2xx answer's headers arrive, with its body
   * as a stream of chunks, for a watch (../kube/reflector.ts) to read event by event until the
   * server ends it or `req.signal` aborts. Rejects as `send` does.
   */
  stream(req: KubeRequest): Promise<AsyncIterable<Buffer>>;
  /** The one dispatcher every request of this connection uses (built on first use). */
  dispatcher(): Dispatcher;
  /** Closes the dispatcher's connections. */
  close(): Promise<void>;
}

type CreateDispatcher = (cluster: unknown, agentOptions: unknown) => Dispatcher | undefined;
type CreateDispatcherOptions = (
  cluster: unknown,
  agentOptions: unknown,
) => { type: string; connect?: object };
const pinned = new WeakMap<KubeConfig, () => Dispatcher>();

/**
 * Connections per cluster at most. A tool call may send requests in parallel (get_deployment reads
 * the Deployment and its autoscalers together), so an unbounded pool would open a handshake per
 * request in flight; beyond the bound, requests queue on the open connections (keep-alive).
 */
export const MAX_CONNECTIONS_PER_CLUSTER = 10;

const keepAlive = { keepAlive: true, keepAliveInitialDelay: 30_000 };

/**
 * The library's own direct-connection options (TLS material, keep-alive) in a bounded pool; `undefined`
 * for a proxy or SOCKS configuration, which the library's `createDispatcher` builds as it does.
 */
function boundedAgent(
  kubeConfig: KubeConfig,
  cluster: unknown,
  agentOptions: unknown,
  connections: number | null = MAX_CONNECTIONS_PER_CLUSTER,
): Dispatcher | undefined {
  const options = (kubeConfig as unknown as { createDispatcherOptions?: CreateDispatcherOptions })
    .createDispatcherOptions;
  if (typeof options !== 'function') return undefined;
  const opts = options.call(kubeConfig, cluster, agentOptions);
  if (opts.type === 'agent') return new Agent({ connect: opts.connect, connections });
  if (opts.type === 'none') return new Agent({ connect: keepAlive, connections });
  return undefined;
}

/**
 * Makes `kubeConfig` hand out one dispatcher for its lifetime: the first call of the library's
 * `createDispatcher` builds it (with the TLS options of the current cluster and user); every later
 * call returns it. Where the library would use none (plain http, or https with the system CAs), a
 * keep-alive undici `Agent` is used. Returns a function giving that dispatcher (building it on first
 * use). Throws if the library no longer has `createDispatcher` (a client-node upgrade changed it):
 * better to stop at start-up than to silently open a connection per request again.
 */
export function pinDispatcher(kubeConfig: KubeConfig): () => Dispatcher {
  const existing = pinned.get(kubeConfig);
  if (existing) return existing;
  const target = kubeConfig as unknown as { createDispatcher?: CreateDispatcher };
  const original = target.createDispatcher;
  if (typeof original !== 'function') {
    throw new Error(
      '@kubernetes/client-node has no KubeConfig.createDispatcher; tools/kube/transport.ts must be updated for this version',
    );
  }
  let shared: Dispatcher | undefined;
  const build = (cluster: unknown, agentOptions: unknown): Dispatcher =>
    (shared ??=
      boundedAgent(kubeConfig, cluster, agentOptions) ??
      original.call(kubeConfig, cluster, agentOptions) ??
      new Agent({ connect: keepAlive, connections: MAX_CONNECTIONS_PER_CLUSTER }));
  target.createDispatcher = build;
  const get = () => shared ?? build(kubeConfig.getCurrentCluster(), tlsOptionsOf(kubeConfig));
  pinned.set(kubeConfig, get);
  return get;
}

/** The TLS options of the current cluster and user, as `applySecurityAuthentication` passes them. */
function tlsOptionsOf(kubeConfig: KubeConfig): Record<string, unknown> {
  const options: Record<string, unknown> & { headers?: unknown } = {};
  const apply = (kubeConfig as unknown as { applyHTTPSOptions?: (o: object) => void }).applyHTTPSOptions;
  apply?.call(kubeConfig, options);
  const { headers: _headers, ...tls } = options;
  return tls;
}

/**
 * The request layer for the current context of `kubeConfig` (whose server URL it uses). Each
 * request asks the library for its authentication headers (`applySecurityAuthentication`, so token
 * refreshes of exec/OIDC plugins and rotated service account tokens keep working) and sends with
 * the pinned dispatcher.
 */
export function createKubeTransport(kubeConfig: KubeConfig): KubeTransport {
  const dispatcherOf = pinDispatcher(kubeConfig);
  const server = (kubeConfig.getCurrentCluster()?.server ?? '').replace(/\/+$/, '');
  // Built on the first request, not here: connecting sends nothing and reads no CA file yet.
  let dispatcher: Dispatcher | undefined;
  // Watches hold their connection for minutes: a pool of their own (one connection per watch), so
  // they never take the bounded pool's connections from ordinary requests. A proxy or SOCKS
  // configuration (the library's own dispatcher) shares the one pool.
  let watchDispatcher: Dispatcher | undefined;
  const watchPool = () =>
    (watchDispatcher ??=
      boundedAgent(kubeConfig, kubeConfig.getCurrentCluster(), tlsOptionsOf(kubeConfig), null) ??
      dispatcherOf());
  /** The body of a 2xx answer to `req`, unread; a non-2xx answer rejects with `ApiException`. */
  const answer = async (req: KubeRequest, long = false) => {
    dispatcher ??= dispatcherOf();
    const url = new URL(`${server}${req.path}`);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const context = new RequestContext(url.toString(), HttpMethod[req.method]);
    await kubeConfig.applySecurityAuthentication(context);
    const headers: Record<string, string> = {
      ...context.getHeaders(),
      accept: 'application/json, */*',
      ...(req.body && { 'content-type': req.body.contentType }),
    };
    const response = await request(url, {
      method: req.method,
      headers,
      dispatcher: long ? watchPool() : (context.getDispatcher() ?? dispatcher),
      ...(req.body && { body: req.body.text }),
      ...(req.signal && { signal: req.signal }),
    });
    if (response.statusCode < 200 || response.statusCode > 299) {
      const text = await response.body.text();
      throw new ApiException(
        response.statusCode,
        `HTTP ${response.statusCode} from ${req.method} ${req.path}`,
        text,
        flatHeaders(response.headers),
      );
    }
    return response.body;
  };
  return {
    dispatcher: () => (dispatcher ??= dispatcherOf()),
    async send(req) {
      return (await answer(req)).text();
    },
    async stream(req) {
      return answer(req, true);
    },
    close: async () => {
      if (watchDispatcher !== dispatcher) await watchDispatcher?.destroy();
      await dispatcher?.close();
    },
  };
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) flat[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
