/**
 * MCP over stdin/stdout for clients that spawn their servers. Every call runs as one named identity,
 * looked up again on each call so a revocation applies at once.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { SentinelError, sentinelCommand } from '../core/index.ts';
import type { ToolRegistry } from '../tools/index.ts';
import type { ClusterAccess } from './kube.ts';
import { LOCAL_IDENTITY_NAME } from './identity.ts';
import type { IdentityStore } from './identity-store.ts';
import { SHUTDOWN_GRACE_MS } from './in-flight.ts';
import { createMcpServer } from './mcp.ts';
import { createToolCallPipeline, type RejectedCallListener, type ToolCallMiddleware } from './pipeline.ts';
import { AnsweringStdioTransport } from './stdio-transport.ts';
import { SENTINEL_VERSION } from './version.ts';

export interface StdioServerOptions {
  /** The identity every call runs as; must exist (`local` is built in). */
  identityName: string;
  registry: ToolRegistry;
  identities: IdentityStore;
  kube: ClusterAccess;
  middlewares: readonly ToolCallMiddleware[];
  logger: Logger;
  /** Told about calls refused before the middlewares (audited). */
  onRejected?: RejectedCallListener;
  /** Called exactly once when the session ends: stdin reached EOF (and was drained), or `close` was called. */
  onEnd: () => void;
  /** How long the end of stdin waits for unanswered requests before closing (ms; default `SHUTDOWN_GRACE_MS`). */
  drainMs?: number;
}

/** Throws `SentinelError('not_found')` naming --identity when `name` is not a known identity. */
export function requireIdentity(identities: IdentityStore, name: string): void {
  if (identities.get(name)) return;
  throw new SentinelError(
    'not_found',
    `--identity '${name}' does not exist in ${identities.tokensFile}; \`${sentinelCommand()} tokens list\` shows the identities ('${LOCAL_IDENTITY_NAME}' is built in).`,
    { field: '--identity' },
  );
}

/**
 * Connects an MCP server to this process's stdin/stdout; returns how to close it. The end of stdin
 * (a client done writing, `printf … |`) first waits — up to `drainMs` — until every request read
 * has been answered on stdout, then ends the session; `close` ends it at once (calls in flight are
 * cancelled, and audited as such).
 */
export async function serveStdio(options: StdioServerOptions): Promise<{ close: () => Promise<void> }> {
  const { identityName, registry, identities, kube, middlewares, logger, onEnd, onRejected } = options;
  const pipeline = createToolCallPipeline({
    registry,
    kube,
    middlewares,
    logger,
    ...(onRejected && { onRejected }),
  });
  const server = createMcpServer({
    registry,
    pipeline,
    version: SENTINEL_VERSION,
    logger,
    ...(onRejected && { onRejected }),
    caller: () => {
      const identity = identities.get(identityName);
      if (!identity) {
        throw new SentinelError(
          'unauthorized',
          `Identity '${identityName}' was revoked; nothing was run. Restart the server with another --identity.`,
          { details: { identity: identityName } },
        );
      }
      return { identity, requestId: randomUUID() };
    },
  });
  // The session ends once, whichever comes first: stdin reaching EOF or `close`. The SDK's
  // `server.onclose` fires after it has detached the transport, so a `close` called from `onEnd`
  // finds nothing left to close (closing from `transport.onclose` instead recursed without end).
  let ended = false;
  server.onclose = () => {
    if (ended) return;
    ended = true;
    process.stdin.off('end', endOfInput);
    logger.info({ identity: identityName }, 'stdio session ended');
    onEnd();
  };
  const transport = new AnsweringStdioTransport(logger);
  const endOfInput = () =>
    void (async () => {
      const unanswered = transport.unanswered;
      if (unanswered > 0) {
        logger.info({ identity: identityName, unanswered }, 'stdin ended: answering the requests in flight');
      }
      const drainMs = options.drainMs ?? SHUTDOWN_GRACE_MS;
      if (!(await transport.drained(drainMs))) {
        logger.warn(
          { identity: identityName, unanswered: transport.unanswered, drainMs },
          'stdin ended: requests still unanswered after the grace period are cancelled',
        );
      }
      await server.close();
    })();
  process.stdin.once('end', endOfInput);
  await server.connect(transport);
  logger.info({ identity: identityName }, 'serving MCP over stdio');
  return { close: () => server.close() };
}
