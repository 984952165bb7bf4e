/**
 * Public entry of the server module: the app factory, the `tools/call` middleware contract, the
 * shared auth middleware, identities and their store, and the plugin hook of `sentinel serve`.
 */

// What the command line's client commands use (and, through it, the light entry's exports) is
// listed once, in client.ts and light.ts.
export * from './client.ts';

export {
  createServerApp,
  MAX_BODY_BYTES,
  type ServerApp,
  type ServerAppOptions,
  type ServerDeps,
  type RouteMounter,
} from './app.ts';
export { createAuthenticate, hostAndOriginCheck, hostHeaderName, LOCALHOST_NAMES } from './auth.ts';
export { parseToolArguments } from './arguments.ts';
export {
  allowedHostNames,
  checkBindAddress,
  isLoopbackHost,
  parseReadCacheMode,
  parseServeOptions,
  ServeOptionsSchema,
  type ServeOptions,
} from './config.ts';
export { hasRole, localIdentity, RoleSchema, type Identity } from './identity.ts';
export {
  IdentityRecordSchema,
  TokensFileSchema,
  type IdentityRecord,
  type IdentityStore,
  type IdentityStoreOptions,
  type NewIdentity,
  type TokensFile,
} from './identity-store.ts';
export { connectCluster, notConfigured } from './kube.ts';
export { listen, type ListeningServer, type ListenOptions } from './listen.ts';
export { createLogger, REDACTED_LOG_PATHS } from './logger.ts';
export { createMcpServer, describeTool, listTools, type CallerContext } from './mcp.ts';
export { NodeMcpTransport, type HttpMcpTransport, type NodeMcpTransportOptions } from './mcp-transport.ts';
export {
  createToolCallPipeline,
  errorResult,
  type ExecuteFn,
  type ExecuteOverrides,
  type GateNote,
  type ToolCall,
  type ToolCallMiddleware,
  type ToolCallNotes,
  type ToolCallPipeline,
  type ToolCallRequest,
} from './pipeline.ts';
export {
  serverPlugins,
  type ServerPlugin,
  type ServerPluginContext,
  type ServerPluginParts,
} from './plugins.ts';
export { startServe, type RunningServer, type ServeExtensions, type ServeIo } from './serve.ts';
export { bindEarly, bindsEarly, MAX_HELD_REQUESTS, type EarlyServer } from './serve-listen.ts';
export { hostAndOriginRefusal } from './host-check.ts';
export { releaseStartupMemory } from './serve-heap.ts';
export { logFormat, type LogFormat } from './pretty-logs.ts';
export { generateToken, hashToken, sameHash } from './tokens.ts';

// The contract other modules use (added with the module-boundary lint rule).
export { AuditRecordSchema } from './audit/index.ts';
export type { AuditLog, AuditRecord } from './audit/index.ts';
export { PendingResultMetaSchema, clientRefKey, describeClientRef } from './gate/approval-request.ts';
export type { ApprovalNotRequired, ClientRef } from './gate/approval-request.ts';
export { matchedArguments } from './gate/canonical.ts';
export { createApprovalsHub } from './gate/events.ts';
export { gatePlugin } from './gate/plugin.ts';
export { formatPolicyTest, runPolicyTest } from './gate/policy-test.ts';
export type { PolicyTestOptions } from './gate/policy-test.ts';
export { startPlugins } from './plugins.ts';
export { describeChange, describeToolCall, describeWarning, formatArguments } from './render/index.ts';

// The contract other modules use (added with the module-boundary lint rule).
export { workerRole, type WorkerRole } from './workers.ts';
