/**
 * Server plugins: how other areas (approval gate, audit, approvals API and page, metrics) attach to
 * `sentinel serve` without editing it. Each area adds one import and one entry to `serverPlugins`.
 * Middlewares are applied in list order, outermost first; routes are mounted behind the same
 * Host/Origin checks (use `deps.authenticate` for bearer auth).
 */
import type { Logger } from 'pino';
import type { ToolRegistry } from '../tools/index.ts';
import type { ClusterAccess } from './kube.ts';
import type { RouteMounter } from './app.ts';
import type { ApprovalsHub } from './gate/events.ts';
import type { IdentityStore } from './identity-store.ts';
import { notifyRejected, type RejectedCallListener, type ToolCallMiddleware } from './pipeline.ts';
import { gatePlugin } from './gate/plugin.ts';
import type { WorkerRole } from './workers.ts';
import { oversightPlugin } from './oversight.ts';

/** What a plugin may use when the server starts. */
export interface ServerPluginContext {
  /** Absolute data directory (state such as the approval store lives here). */
  dataDir: string;
  registry: ToolRegistry;
  identities: IdentityStore;
  /** The cluster connection, made on first need: await it, and only when the cluster is needed. */
  kube: ClusterAccess;
  logger: Logger;
  /** `--policy`: the approval policy file, resolved; undefined for the shipped default. */
  policyFile: string | undefined;
  /** `http` or `stdio`; routes are ignored in stdio mode. */
  transport: 'http' | 'stdio';
  /**
   * `--store` / SENTINEL_STORE_URL: a `postgres://` URL the approval store and the audit log share
   * with every other replica; undefined for the embedded SQLite files in the data directory.
   */
  storeUrl?: string;
  /** Where the gate publishes approval events and its service, and the oversight plugin finds them. */
  approvals: ApprovalsHub;
  /**
   * Set when this process is one of `sentinel serve --workers N` (server/workers.ts): the store is
   * shared with the other workers, and their approval events arrive through `worker.bridge`.
   */
  worker?: WorkerRole;
}

/** What a plugin adds. `close` runs on shutdown, in reverse plugin order. */
export interface ServerPluginParts {
  middlewares?: ToolCallMiddleware[];
  routes?: RouteMounter[];
  /**
   * Called once the HTTP server listens, with its base URL (`http://127.0.0.1:7070`); returns lines
   * `sentinel serve` prints to the terminal (e.g. the approvals page's one-time login URL).
   */
  announce?: (baseUrl: string) => string[];
  /**
   * Called once the HTTP server listens; returns secrets for the operator (e.g. the approvals page's
   * one-time login link). `sentinel serve` writes each to its 0600 file in the data dir and shows
   * the value only when stderr is a terminal — never in the log stream.
   */
  credentials?: (baseUrl: string) => Credential[];
  /**
   * Told about every `tools/call` refused before the middlewares ran (unknown tool, invalid
   * arguments, a caller that did not authenticate), which the middlewares therefore never see.
   */
  onRejected?: RejectedCallListener;
  close?: () => Promise<void> | void;
}

/** A secret `sentinel serve` hands to the operator (see `ServerPluginParts.credentials`). */
export interface Credential {
  /** What it is, e.g. `One-time login link for the approvals page (15 minutes, identity 'local')`. */
  label: string;
  value: string;
  /** File name in the data dir it is written to (mode 0600), e.g. `login-link.url`. */
  file: string;
}

export type ServerPlugin = (context: ServerPluginContext) => ServerPluginParts | Promise<ServerPluginParts>;

/**
 * Plugins of `sentinel serve`, in order. The oversight plugin (metrics and audit middlewares) comes first so
 * they wrap the approval gate and see held and denied calls; the gate wraps the tool handlers.
 */
export const serverPlugins: ServerPlugin[] = [oversightPlugin, gatePlugin];

/**
 * Starts the plugins in order; returns their middlewares and routes (in plugin order) and a `close`
 * that closes them in reverse order.
 */
export async function startPlugins(
  plugins: readonly ServerPlugin[],
  context: ServerPluginContext,
): Promise<Required<ServerPluginParts>> {
  const started: ServerPluginParts[] = [];
  for (const plugin of plugins) started.push(await plugin(context));
  return {
    middlewares: started.flatMap((parts) => parts.middlewares ?? []),
    routes: started.flatMap((parts) => parts.routes ?? []),
    announce: (baseUrl) => started.flatMap((parts) => parts.announce?.(baseUrl) ?? []),
    credentials: (baseUrl) => started.flatMap((parts) => parts.credentials?.(baseUrl) ?? []),
    onRejected: (rejection) => {
      for (const parts of started) notifyRejected(parts.onRejected, rejection, context.logger);
    },
    close: async () => {
      for (const parts of [...started].reverse()) await parts.close?.();
    },
  };
}
