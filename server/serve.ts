/**
 * `sentinel serve`: resolves the options into a running server — over HTTP (default) or stdio.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { SentinelError } from '../tools/errors.ts';
import { allTools } from '../tools/index.ts';
import type { KubeConnection } from '../tools/kube/types.ts';
import { createRegistry, type ToolRegistry } from '../tools/registry.ts';
import { createServerApp } from './app.ts';
import { allowedHostNames, checkBindAddress, isLoopbackHost, type ServeOptions } from './config.ts';
import { defaultTokensFile, localTokenFile, resolveDataDir } from './data-dir.ts';
import { LOCAL_IDENTITY_NAME } from './identity.ts';
import { createIdentityStore, type IdentityStore } from './identity-store.ts';
import { connectCluster } from './kube.ts';
import { listen } from './listen.ts';
import { createLogger } from './logger.ts';
import { createMcpServer } from './mcp.ts';
import { createToolCallPipeline } from './pipeline.ts';
import { serverPlugins, type ServerPlugin, type ServerPluginParts } from './plugins.ts';
import { checkSuppliedToken, generateToken } from './tokens.ts';
import { SENTINEL_VERSION } from './version.ts';

/** Where `serve` writes for people, and the environment it reads. */
export interface ServeIo {
  /** Human-facing messages (start-up banner, the generated token): the terminal, never the log stream. */
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

/** Test and embedding hooks; the CLI uses the defaults. */
export interface ServeExtensions {
  registry?: ToolRegistry;
  kube?: KubeConnection;
  plugins?: readonly ServerPlugin[];
  logger?: Logger;
}

export interface RunningServer {
  /** `http(s)://host:port` of the HTTP server; undefined in stdio mode. */
  url: string | undefined;
  /** Stops the server and the plugins. */
  close(): Promise<void>;
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

/** Writes `token` to `file` readable by the owner only. */
function writeSecret(file: string, token: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

function readPem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new SentinelError('invalid_input', `${flag} ${file} cannot be read: ${(error as Error).message}.`, {
      field: flag,
      cause: error,
    });
  }
}

/** Runs the plugins; returns their combined parts and a closer that runs theirs in reverse. */
async function startPlugins(
  plugins: readonly ServerPlugin[],
  context: Parameters<ServerPlugin>[0],
): Promise<Required<ServerPluginParts>> {
  const started: ServerPluginParts[] = [];
  for (const plugin of plugins) started.push(await plugin(context));
  return {
    middlewares: started.flatMap((parts) => parts.middlewares ?? []),
    routes: started.flatMap((parts) => parts.routes ?? []),
    close: async () => {
      for (const parts of [...started].reverse()) await parts.close?.();
    },
  };
}

/** Warns (log and terminal) about identities that trust the harness's approval alone. */
function warnUpstreamTrust(identities: IdentityStore, logger: Logger, io: ServeIo): void {
  const trusting = identities
    .list()
    .filter((record) => record.trust_upstream_approval)
    .map((record) => record.name);
  if (trusting.length === 0) return;
  logger.warn({ identities: trusting }, 'identities trust upstream (harness) approval');
  io.stderr(
    `Warning: ${trusting.join(', ')} trust${trusting.length === 1 ? 's' : ''} the harness's approval: their calls to gated tools run without a Sentinel approval request.\n`,
  );
}

/**
 * Starts `sentinel serve` as configured. Throws `SentinelError`: `refused` for a non-loopback host
 * without --allow-remote and a token; `invalid_input` for unreadable token/TLS files, an invalid
 * tokens.yaml or an unknown --identity; `unavailable` when the port is taken.
 */
export async function startServe(
  options: ServeOptions,
  io: ServeIo,
  extensions: ServeExtensions = {},
): Promise<RunningServer> {
  const dataDir = resolveDataDir(options.dataDir, io.env);
  const tokensFile =
    options.tokensFile === undefined ? defaultTokensFile(dataDir) : resolve(options.tokensFile);
  const registry = extensions.registry ?? createRegistry(allTools);
  const logger = extensions.logger ?? createLogger({ fd: options.stdio ? 2 : 1 });
  const connection =
    extensions.kube ?? connectCluster({ kubeconfig: options.kubeconfig, context: options.context });
  const kube = () => connection;
  const policyFile = options.policy === undefined ? undefined : resolve(options.policy);
  const onLoadError = (error: SentinelError) => logger.error({ err: error }, 'tokens file rejected');

  if (options.stdio) {
    const identities = createIdentityStore({ tokensFile, onLoadError });
    identities.list(); // an invalid tokens.yaml stops the start here, with its message
    return startStdio(options.identity!, {
      dataDir,
      policyFile,
      registry,
      identities,
      kube,
      logger,
      io,
      extensions,
    });
  }

  const supplied = suppliedToken(options, io.env);
  const loopback = isLoopbackHost(options.host);
  const startupToken = supplied?.token ?? (loopback ? generateToken() : undefined);
  const identities = createIdentityStore({ tokensFile, startupToken, onLoadError });
  const fileIdentities = identities.list();
  checkBindAddress(
    options.host,
    options.allowRemote,
    startupToken !== undefined || fileIdentities.length > 0,
  );
  const allowedHosts = allowedHostNames(options.host, options.allowedHost);
  const tls = options.tlsCert
    ? { cert: readPem(options.tlsCert, '--tls-cert'), key: readPem(options.tlsKey!, '--tls-key') }
    : undefined;

  const plugins = await startPlugins(extensions.plugins ?? serverPlugins, {
    dataDir,
    policyFile,
    registry,
    identities,
    kube,
    logger,
    transport: 'http',
  });
  const { app } = createServerApp({
    identities,
    allowedHosts,
    registry,
    kube,
    middlewares: plugins.middlewares,
    logger,
    extraRoutes: plugins.routes,
  });
  let server;
  try {
    server = await listen(app, { host: options.host, port: options.port, ...(tls && { tls }) });
  } catch (error) {
    await plugins.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new SentinelError(
      'unavailable',
      code === 'EADDRINUSE'
        ? `Port ${options.port} on ${options.host} is already in use; choose another with --port (0 picks a free one).`
        : `Cannot listen on ${options.host}:${options.port}: ${(error as Error).message}.`,
      { field: code === 'EADDRINUSE' ? '--port' : '--host', cause: error },
    );
  }

  if (!supplied && startupToken !== undefined) writeSecret(localTokenFile(dataDir), startupToken);
  logger.info(
    { url: `${server.url}/mcp`, cluster: connection.configured ? connection.cluster : null },
    'listening',
  );
  const lines = [`Sentinel MCP server listening on ${server.url}/mcp (health: ${server.url}/healthz)`];
  if (supplied) {
    lines.push(
      `Authenticate with  Authorization: Bearer <the token from ${supplied.source}>  (identity '${LOCAL_IDENTITY_NAME}').`,
    );
  } else if (startupToken !== undefined) {
    lines.push(
      `Authenticate with  Authorization: Bearer <token>  — identity '${LOCAL_IDENTITY_NAME}' (all roles), token saved to ${localTokenFile(dataDir)} (0600), new at every start:`,
      startupToken,
    );
  }
  lines.push(
    `Identities in ${tokensFile}: ${fileIdentities.length}; add one with \`sentinel tokens add <name> --role caller\`.`,
    connection.configured
      ? `Cluster: context '${connection.cluster.context}' at ${connection.cluster.server} (from ${connection.source ?? 'kubeconfig'}).`
      : `Cluster: not configured. ${connection.reason}`,
  );
  if (!loopback && !tls) {
    lines.push(
      'Warning: serving a non-loopback address over plain HTTP; bearer tokens cross the network in clear text.',
    );
  }
  io.stderr(`${lines.join('\n')}\n`);
  warnUpstreamTrust(identities, logger, io);

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolveFn) => (resolveClosed = resolveFn));
  let closing: Promise<void> | undefined;
  return {
    url: server.url,
    closed,
    close: () =>
      (closing ??= (async () => {
        await server.close();
        await plugins.close();
        resolveClosed();
      })()),
  };
}

/** Serves MCP over stdin/stdout as `identityName`, re-checked on every call (a revocation applies at once). */
async function startStdio(
  identityName: string,
  context: {
    dataDir: string;
    policyFile: string | undefined;
    registry: ToolRegistry;
    identities: IdentityStore;
    kube: () => KubeConnection;
    logger: Logger;
    io: ServeIo;
    extensions: ServeExtensions;
  },
): Promise<RunningServer> {
  const { dataDir, policyFile, registry, identities, kube, logger, extensions } = context;
  if (!identities.get(identityName)) {
    throw new SentinelError(
      'not_found',
      `--identity '${identityName}' does not exist in ${identities.tokensFile}; \`sentinel tokens list\` shows the identities ('${LOCAL_IDENTITY_NAME}' is built in).`,
      { field: '--identity' },
    );
  }
  const plugins = await startPlugins(extensions.plugins ?? serverPlugins, {
    dataDir,
    policyFile,
    registry,
    identities,
    kube,
    logger,
    transport: 'stdio',
  });
  const pipeline = createToolCallPipeline({ registry, kube, middlewares: plugins.middlewares, logger });
  const server = createMcpServer({
    registry,
    pipeline,
    version: SENTINEL_VERSION,
    caller: () => {
      const identity = identities.get(identityName);
      if (!identity) {
        throw new SentinelError(
          'unauthorized',
          `Identity '${identityName}' was revoked; nothing was run. Restart the server with another --identity.`,
        );
      }
      return { identity, requestId: randomUUID() };
    },
  });
  const transport = new StdioServerTransport();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolveFn) => (resolveClosed = resolveFn));
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await server.close();
      await plugins.close();
      resolveClosed();
    })());
  transport.onclose = () => void close();
  process.stdin.once('end', () => void close());
  await server.connect(transport);
  logger.info({ identity: identityName }, 'serving MCP over stdio');
  return { url: undefined, closed, close };
}
