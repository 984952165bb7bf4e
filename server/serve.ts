/**
 * `sentinel serve`: resolves the options into a running server — over HTTP (default) or stdio.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { SentinelError, sentinelCommand } from '../core/index.ts';
import {
  type KubeConnection,
  createRegistry,
  describeSource,
  locateKubeconfig,
  type ToolRegistry,
  allTools,
} from '../tools/index.ts';
import { createServerApp } from './app.ts';
import { createApprovalsHub } from './gate/events.ts';
import { handOverCredentials, removeSecretIfHeld } from './credentials.ts';
import { allowedHostNames, checkBindAddress, isLoopbackHost, type ServeOptions } from './config.ts';
import { readCacheMode } from './serve-options.ts';
import { readCacheLog } from './read-cache-log.ts';
import {
  checkDataDir,
  defaultTokensFile,
  hardenDataDir,
  localTokenFile,
  resolveDataDir,
} from './data-dir.ts';
import { LOCAL_IDENTITY_NAME } from './identity.ts';
import { createIdentityStore, type IdentityStore } from './identity-store.ts';
import { serveStdio, requireIdentity } from './stdio.ts';
import { trackInFlight, type InFlightCalls } from './in-flight.ts';
import { connectCluster, lazyCluster, type ClusterAccess } from './kube.ts';
import { listen, type ListeningServer } from './listen.ts';
import { listenError, readPem, type EarlyServer } from './serve-listen.ts';
import { createLogger } from './logger.ts';
import { prettyLogDestination, type LogFormat } from './pretty-logs.ts';
import { isPostgresUrl } from './postgres/url.ts';
import { serverPlugins, startPlugins, type Credential, type ServerPlugin } from './plugins.ts';
import { checkSuppliedToken } from './tokens.ts';
import { registerServer, runningServers } from './discovery.ts';
import { loadOrCreateLocalToken } from './local-token.ts';
import { admissionLimitsFromEnv, type AdmissionLimits } from './admission.ts';
import type { WorkerRole } from './workers.ts';

/** Admission limits: flags over SENTINEL_MAX_CONCURRENT_READS / SENTINEL_READ_QUEUE over defaults. */
function admissionLimits(options: ServeOptions, env: NodeJS.ProcessEnv): AdmissionLimits {
  try {
    return admissionLimitsFromEnv(env, {
      ...(options.maxConcurrentReads !== undefined && { maxConcurrentReads: options.maxConcurrentReads }),
      ...(options.readQueue !== undefined && { readQueue: options.readQueue }),
    });
  } catch (error) {
    throw new SentinelError('invalid_input', `${(error as Error).message}.`, { field: 'admission' });
  }
}

/** Where `serve` writes for people, and the environment it reads. */
export interface ServeIo {
  /** Human-facing messages (start-up banner): the terminal, never the log stream. */
  stderr: (text: string) => void;
  /**
   * Whether `stderr` is an interactive terminal. Only then are secrets (the generated token, the
   * one-time login link) printed; otherwise only the 0600 files holding them are named. Default false.
   */
  terminal?: boolean;
  env: NodeJS.ProcessEnv;
  /**
   * `pretty`: logs as short lines for a person (server/pretty-logs.ts), for a log stream that is a
   * terminal; `json` (default): pino's JSON lines, unchanged.
   */
  logs?: LogFormat;
  /** Colour the pretty logs and the banner (the CLI's colour decision). Default false. */
  colors?: boolean;
  /** Styling of the banner on a terminal (the CLI's palette); default none. */
  style?: BannerStyle;
  /** Called (once) when the log stream's reader goes away (EPIPE): later log lines are lost. */
  onLogsClosed?: () => void;
}

/** How the banner is styled: its first line, and its warnings. Colour is never the only cue. */
export interface BannerStyle {
  strong(text: string): string;
  warn(text: string): string;
}

/** Test and embedding hooks; the CLI uses the defaults. */
export interface ServeExtensions {
  registry?: ToolRegistry;
  kube?: KubeConnection;
  plugins?: readonly ServerPlugin[];
  logger?: Logger;
  /**
   * What the discovery file (server/discovery.ts) calls this server: `serve` (default), or
   * `investigation` for an investigation's in-process server, which never takes the shared
   * `login-link.url` of the data directory.
   */
  kind?: 'serve' | 'investigation';
  /** Where the token of `local` for this server is, by port (default `<data-dir>/local.token`). */
  tokenFile?: (port: string) => string;
  /**
   * The address `sentinel serve` bound before loading the server (server/serve-listen.ts
   * `bindEarly`, from the same options): the app is attached to it instead of binding anew. Closed
   * by `close`, not when start-up throws (the caller closes it then).
   */
  listener?: EarlyServer;
  /**
   * Set in a `--workers` worker (server/workers.ts): only the lead writes the login link and prints
   * the banner, and the primary (told through `listening`) writes the discovery file.
   */
  worker?: WorkerRole;
}

export interface RunningServer {
  /** `http(s)://host:port` of the HTTP server; undefined in stdio mode. */
  url: string | undefined;
  /**
   * Stops the server and the plugins, then logs "stopped" (info) with `reason` — the signal
   * (`SIGTERM`), or why (`output closed`) — and how many calls were drained.
   */
  close(reason?: string): Promise<void>;
  /** Resolves when the server stops (stdio: when stdin closes). */
  closed: Promise<void>;
}

/** The startup token and where it came from, or undefined when none was supplied. */
function suppliedToken(
  options: ServeOptions,
  env: NodeJS.ProcessEnv,
): { token: string; source: string } | undefined {
  if (options.tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.tokenFile, 'utf8');
    } catch (error) {
      throw new SentinelError(
        'invalid_input',
        `--token-file ${options.tokenFile} cannot be read: ${(error as Error).message}.`,
        { field: '--token-file', cause: error },
      );
    }
    return {
      token: checkSuppliedToken(text.trim(), '--token-file'),
      source: `--token-file ${options.tokenFile}`,
    };
  }
  if (env.SENTINEL_TOKEN) {
    return { token: checkSuppliedToken(env.SENTINEL_TOKEN, 'SENTINEL_TOKEN'), source: 'SENTINEL_TOKEN' };
  }
  return undefined;
}

/**
 * Throws `SentinelError('invalid_input')` naming `flag` when the file it names does not exist. For
 * --tokens-file: only the default tokens.yaml is created on first use; a typo in an explicit path
 * would otherwise start a server with no approver at all.
 */
function requireExistingFile(path: string | undefined, flag: string): void {
  if (path === undefined || existsSync(path)) return;
  throw new SentinelError('invalid_input', `${flag} ${path} does not exist.`, { field: flag });
}

/** Warns (log and terminal) about identities that trust the harness's approval alone. */
function warnUpstreamTrust(identities: IdentityStore, logger: Logger, io: ServeIo): void {
  const trusting = identities.list().filter((record) => record.trust_upstream_approval);
  if (trusting.length === 0) return;
  const names = trusting.map((record) => record.name);
  logger.warn({ identities: names }, 'identities trust upstream (harness) approval');
  for (const record of trusting) {
    io.stderr(
      `Warning: ${record.name} trusts the harness's approval: its calls to gated tools run without a Sentinel approval request when the harness at ${record.upstream_harness?.url ?? '(none)'} shows a matching allow, verified against it (no older than ${record.upstream_harness?.max_age ?? '2m'}, each used once).\n`,
    );
  }
}

/**
 * A `RunningServer` whose `close` runs `stop` once and then resolves `closed`. `stop` starts on a
 * later tick, so a `close` re-entered from inside `stop` (a transport's close callback) gets the
 * same promise instead of stopping again.
 */
function runningServer(
  url: string | undefined,
  stop: () => Promise<void>,
  stopped: { logger: Logger; inFlight: InFlightCalls },
): RunningServer {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolveFn) => (resolveClosed = resolveFn));
  let closing: Promise<void> | undefined;
  const close = async (reason: string | undefined) => {
    const drained = stopped.inFlight.size;
    await stop();
    // A clean stop, told from a crash by this last line.
    const why = reason === undefined ? {} : /^SIG[A-Z]+$/.test(reason) ? { signal: reason } : { reason };
    stopped.logger.info({ ...why, drained_calls: drained }, 'stopped');
  };
  return {
    url,
    closed,
    close: (reason) =>
      (closing ??= Promise.resolve()
        .then(() => close(reason))
        .then(resolveClosed)),
  };
}

/** SENTINEL_STORE_URL when set (an empty value means the default SQLite store). */
function storeFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const url = env.SENTINEL_STORE_URL?.trim();
  if (!url) return undefined;
  if (!isPostgresUrl(url)) {
    throw new SentinelError(
      'invalid_input',
      'SENTINEL_STORE_URL: must be a postgres:// URL (unset it for SQLite).',
      {
        field: 'SENTINEL_STORE_URL',
      },
    );
  }
  return url;
}

/** The start-up lines for the terminal: where the server listens and how to authenticate. */
function startupBanner(facts: {
  url: string;
  supplied: { source: string } | undefined;
  /** Whether a token was generated for `local` (loopback, none supplied). */
  generated: boolean;
  tokensFile: string;
  identityCount: number;
  /** The `Cluster: …` line (`clusterLine`, or where the cluster will come from). */
  cluster: string;
  plainRemote: boolean;
  /** Lines from the plugins (e.g. where the approvals page is). */
  announced: string[];
  /** Lines that hand over the generated token and the plugins' credentials (`handOverCredentials`). */
  credentials: string[];
  dataDir: string;
  style: BannerStyle | undefined;
}): string {
  const { url, supplied, style } = facts;
  const first = `Sentinel MCP server listening on ${url}/mcp (health: ${url}/healthz)`;
  const lines = [style ? style.strong(first) : first];
  if (supplied) {
    lines.push(
      `Authenticate with  Authorization: Bearer <the token from ${supplied.source}>  (identity '${LOCAL_IDENTITY_NAME}').`,
    );
  } else if (facts.generated) {
    lines.push(
      `Authenticate with  Authorization: Bearer <token>  — identity '${LOCAL_IDENTITY_NAME}' (all roles), kept across restarts; \`${sentinelCommand()} tokens rotate local\` replaces it.`,
    );
  }
  lines.push(
    `Identities in ${facts.tokensFile}: ${facts.identityCount}; add one with \`${sentinelCommand()} tokens add <name> --role caller\`.`,
    facts.cluster,
    `Data directory: ${facts.dataDir} (approvals, audit, identities; this server's discovery file in servers/).`,
    ...facts.announced,
    ...facts.credentials,
  );
  if (facts.plainRemote) {
    const warning =
      'Warning: serving a non-loopback address over plain HTTP; bearer tokens cross the network in clear text.';
    lines.push(style ? style.warn(warning) : warning);
  }
  return `${lines.join('\n')}\n`;
}

/** The `Cluster: …` line of a connection: its context and API server, or why there is none. */
function clusterLine(connection: KubeConnection): string {
  return connection.configured
    ? `Cluster: context '${connection.cluster.context}' at ${connection.cluster.server}${connection.source ? ` (from ${connection.source})` : ''}.`
    : `Cluster: not configured. ${connection.reason}`;
}

/**
 * The server's cluster: the given connection (tests, an investigation's in-process server), "not
 * configured" at once when there is no configuration to read, else made on first need
 * (`lazyCluster`): the Kubernetes client (`@kubernetes/client-node`, ~80 MB and 1–3 s to load) is
 * loaded and the kubeconfig read by the first tool call or /readyz (not /healthz) — not before the
 * server listens. `announce` is told the `Cluster: …` line once the connection is made.
 */
function serverCluster(
  options: ServeOptions,
  given: KubeConnection | undefined,
  logger: Logger,
  announce: (line: string) => void,
): { kube: ClusterAccess; line: string; close: () => Promise<void> } {
  const located = given ? undefined : locateKubeconfig({ kubeconfig: options.kubeconfig });
  const known =
    given ??
    (located && 'reason' in located ? { configured: false as const, reason: located.reason } : undefined);
  if (known || !located || 'reason' in located) {
    const connection = known ?? { configured: false as const, reason: 'No cluster.' };
    return { kube: () => connection, line: clusterLine(connection), close: async () => {} };
  }
  const kube = lazyCluster(
    () =>
      connectCluster({
        kubeconfig: options.kubeconfig,
        context: options.context,
        readCache: options.readCache,
        readCacheEvents: readCacheLog(logger),
      }),
    (connection) => {
      if (connection.configured) logger.info({ cluster: connection.cluster }, 'cluster connected');
      else logger.warn({ reason: connection.reason }, 'cluster not configured');
      announce(clusterLine(connection));
    },
  );
  const context = options.context === undefined ? '' : `, context '${options.context}'`;
  return {
    kube,
    line: `Cluster: from ${describeSource(located.source)}${context}; connected on first use (a tool call or GET /readyz).`,
    // The connection this server made: its read cache's watches and connections end with it.
    close: async () => {
      const made = await kube.peek?.();
      if (made?.configured) await made.close?.();
    },
  };
}

/**
 * Starts `sentinel serve` as configured: over HTTP, or over stdio with `options.stdio`. Throws
 * `SentinelError`: `invalid_input` for a non-loopback host without --allow-remote and a token;
 * `invalid_input` for unreadable token/TLS files or an invalid tokens.yaml (including two identities
 * sharing a token); `conflict` when the startup token is an identity's token; `not_found` for an
 * unknown --identity; `unavailable` when the address cannot be bound.
 */
export async function startServe(
  options: ServeOptions,
  io: ServeIo,
  extensions: ServeExtensions = {},
): Promise<RunningServer> {
  const dataDir = resolveDataDir(options.dataDir, io.env);
  // Configuration errors before anything is written to the data dir (a failed start leaves nothing).
  checkDataDir(dataDir);
  requireExistingFile(options.tokensFile, '--tokens-file');
  requireExistingFile(options.policy, '--policy');
  const admission = admissionLimits(options, io.env);
  const readCache = readCacheMode(options, io.env);
  const tokensFile =
    options.tokensFile === undefined ? defaultTokensFile(dataDir) : resolve(options.tokensFile);
  const registry = extensions.registry ?? createRegistry(allTools);
  const fd = options.stdio ? 2 : 1;
  const logger =
    extensions.logger ??
    (io.logs === 'pretty'
      ? createLogger({
          destination: await prettyLogDestination({
            colorize: io.colors === true,
            fd,
            ...(io.onLogsClosed && { onClosed: io.onLogsClosed }),
          }),
        })
      : createLogger({ fd, ...(io.onLogsClosed && { onClosed: io.onLogsClosed }) }));
  // Told once the lazy connection is made: a line for the person watching, like the banner's.
  const announces = !options.stdio && (extensions.worker === undefined || extensions.worker.lead);
  const cluster = serverCluster({ ...options, readCache }, extensions.kube, logger, (line) => {
    if (announces) io.stderr(`${line}\n`);
  });
  const { kube } = cluster;
  const policyFile = options.policy === undefined ? undefined : resolve(options.policy);
  const storeUrl = options.store ?? storeFromEnv(io.env);

  const supplied = options.stdio ? undefined : suppliedToken(options, io.env);
  const loopback = isLoopbackHost(options.host);
  const generatedToken =
    options.stdio || supplied || !loopback ? undefined : loadOrCreateLocalToken(dataDir).token;
  let checked = false;
  const identities = createIdentityStore({
    tokensFile,
    startupToken: supplied?.token ?? generatedToken,
    ...(generatedToken !== undefined && { startupTokenFile: localTokenFile(dataDir) }),
    ...(supplied && { startupTokenSource: supplied.source }),
    // Logged once running (a later edit of the file); at start-up `list` below throws it, and it
    // reaches the terminal as one clean line, not twice.
    onLoadError: (error) => {
      if (checked) logger.error({ code: error.code, reason: error.message }, 'tokens file rejected');
    },
  });
  const fileIdentities = identities.list(); // an invalid tokens.yaml stops the start here, with its message
  checked = true;
  if (options.stdio) {
    requireIdentity(identities, options.identity!);
  } else {
    checkBindAddress(
      options.host,
      options.allowRemote,
      supplied !== undefined || generatedToken !== undefined || fileIdentities.length > 0,
    );
  }
  const allowedHosts = allowedHostNames(options.host, options.allowedHost);
  // Bound already with the same options (and files) when `extensions.listener` is given.
  const tls = extensions.listener
    ? undefined
    : options.tlsCert
      ? { cert: readPem(options.tlsCert, '--tls-cert'), key: readPem(options.tlsKey!, '--tls-key') }
      : undefined;

  // Files left readable by others (an older version, a copy, a umask) are fixed and reported; files
  // the plugins create now (databases) are made private right after, silently.
  for (const { path, was, now } of hardenDataDir(dataDir)) {
    logger.warn({ path, was, now }, 'data dir permissions were too open; tightened');
    io.stderr(`Warning: ${path} was readable by other users (mode ${was}); changed to ${now}.\n`);
  }
  const plugins = await startPlugins(extensions.plugins ?? serverPlugins, {
    dataDir,
    policyFile,
    ...(storeUrl !== undefined && { storeUrl }),
    registry,
    identities,
    kube,
    logger,
    transport: options.stdio ? 'stdio' : 'http',
    approvals: createApprovalsHub(logger),
    ...(extensions.worker && { worker: extensions.worker }),
  });
  hardenDataDir(dataDir);
  warnUpstreamTrust(identities, logger, io);
  // Outermost: a shutdown waits for every call to settle (and be audited) before closing the stores.
  const inFlight = trackInFlight();
  const middlewares = [inFlight.middleware, ...plugins.middlewares];

  if (options.stdio) {
    const stdio: { close?: () => Promise<void> } = {};
    const running = runningServer(
      undefined,
      async () => {
        await stdio.close?.(); // aborts the calls in flight
        await inFlight.settled({ logger });
        await plugins.close();
        await cluster.close();
      },
      { logger, inFlight },
    );
    Object.assign(
      stdio,
      await serveStdio({
        identityName: options.identity!,
        registry,
        identities,
        kube,
        middlewares,
        logger,
        onRejected: plugins.onRejected,
        onEnd: () => void running.close(),
      }),
    );
    return running;
  }

  const { app } = createServerApp({
    identities,
    allowedHosts,
    admission,
    registry,
    kube,
    middlewares,
    logger,
    extraRoutes: plugins.routes,
    onRejected: plugins.onRejected,
  });
  let server: ListeningServer;
  if (extensions.listener) {
    // Every check above passed: the early listener's held requests and all later ones go to the app.
    extensions.listener.attach(app);
    server = extensions.listener;
  } else {
    try {
      server = await listen(app, { host: options.host, port: options.port, ...(tls && { tls }) });
    } catch (error) {
      await plugins.close();
      await cluster.close();
      throw listenError(error, options);
    }
  }
  const known = extensions.kube;
  logger.info(
    { url: `${server.url}/mcp`, ...(known && { cluster: known.configured ? known.cluster : null }) },
    'listening',
  );
  const localToken: Credential[] =
    generatedToken === undefined
      ? []
      : [
          {
            label: `Token of identity '${LOCAL_IDENTITY_NAME}'`,
            value: generatedToken,
            file: basename(localTokenFile(dataDir)),
          },
        ];
  // Another server already running on this data directory keeps its own login link: this one's
  // goes next to its discovery file (as does every in-process investigation server's).
  const port = new URL(server.url).port;
  const shared = extensions.kind !== 'investigation' && runningServers(dataDir).length === 0;
  const { worker } = extensions;
  if (worker && !worker.lead) {
    // Another worker of a --workers server: the lead handed over the credentials and printed the banner.
    worker.listening(server.url);
    return runningServer(
      server.url,
      async () => {
        await server.close();
        await inFlight.settled({ logger });
        await plugins.close();
        await cluster.close();
      },
      { logger, inFlight },
    );
  }
  const pluginCredentials = plugins
    .credentials(server.url)
    .map((credential) =>
      shared ? credential : { ...credential, file: `servers/${port}.${credential.file}` },
    );
  let unregister = () => {};
  const stop = async () => {
    unregister();
    // This server's login link is useless once it stops: its own file goes; the data dir's shared
    // login-link.url goes too while it still holds this server's link.
    for (const credential of pluginCredentials) {
      const file = join(dataDir, credential.file);
      if (shared) removeSecretIfHeld(file, credential.value);
      else rmSync(file, { force: true });
    }
    await server.close(); // closes the connections, which aborts the calls in flight
    await inFlight.settled({ logger });
    await plugins.close();
    await cluster.close();
  };
  let credentials: string[];
  try {
    credentials = handOverCredentials([...localToken, ...pluginCredentials], {
      dataDir,
      terminal: io.terminal === true,
      logger,
    });
  } catch (error) {
    await stop(); // a token nobody can read is no way to start
    throw new SentinelError(
      'unavailable',
      `Cannot write the credentials to ${dataDir}: ${(error as Error).message}.`,
      { field: '--data-dir', cause: error },
    );
  }
  const loginLink = pluginCredentials.find((credential) => credential.file.endsWith('login-link.url'));
  const entry = {
    url: server.url,
    started: new Date().toISOString(),
    kind: extensions.kind ?? 'serve',
    ...(extensions.tokenFile !== undefined
      ? { token_file: extensions.tokenFile(port) }
      : generatedToken !== undefined && { token_file: localTokenFile(dataDir) }),
    ...(loginLink && { login_link_file: join(dataDir, loginLink.file) }),
  };
  // A --workers lead: the primary, which outlives every worker, writes the discovery file (its pid).
  if (worker) worker.listening(server.url, entry);
  else unregister = registerServer(dataDir, { ...entry, pid: process.pid });
  io.stderr(
    startupBanner({
      announced: [
        ...plugins.announce(server.url),
        ...(worker
          ? [
              `Workers: ${worker.count} processes share this port (primary pid ${process.ppid}; SIGTERM it to stop them all).`,
            ]
          : []),
      ],
      credentials,
      url: server.url,
      supplied,
      generated: generatedToken !== undefined,
      tokensFile,
      identityCount: fileIdentities.length,
      cluster: cluster.line,
      plainRemote: !loopback && options.tlsCert === undefined,
      dataDir,
      style: io.style,
    }),
  );
  return runningServer(server.url, stop, { logger, inFlight });
}
