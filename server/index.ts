/**
 * Public entry of the server module: the app factory, the `tools/call` middleware contract, the
 * shared auth middleware, identities and their store, and the plugin hook of `sentinel serve`.
 */
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
  parseServeOptions,
  ServeOptionsSchema,
  type ServeOptions,
} from './config.ts';
export { defaultTokensFile, localTokenFile, resolveDataDir } from './data-dir.ts';
export {
  hasRole,
  LOCAL_IDENTITY_NAME,
  localIdentity,
  ROLES,
  RoleSchema,
  type Identity,
  type Role,
} from './identity.ts';
export {
  createIdentityStore,
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
export { createApprovalsClient } from './approvals-client.ts';
export type { ApprovalsClient } from './approvals-client.ts';
export {
  CHECKPOINT_FILE,
  appendCheckpoint,
  checkpointLine,
  checkpointsFromOption,
  dataDirCheckpoints,
  headCheckpoint,
  sendCheckpoint,
} from './audit/checkpoint.ts';
export { AuditRecordSchema } from './audit/index.ts';
export type { AuditLog, AuditRecord } from './audit/index.ts';
export type { CheckpointRef } from './audit/record.ts';
export { parseSince } from './audit/since.ts';
export { openAuditLog } from './audit/store.ts';
export {
  APPROVAL_STATUSES,
  DurationSchema,
  PendingResultMetaSchema,
  clientRefKey,
  describeClientRef,
} from './gate/approval-request.ts';
export type {
  ApprovalNotRequired,
  ApprovalRequest,
  ApprovalStatus,
  ClientRef,
} from './gate/approval-request.ts';
export { matchedArguments } from './gate/canonical.ts';
export { createApprovalsHub } from './gate/events.ts';
export { formatFreeze, requestFreeze } from './gate/freeze-client.ts';
export { gatePlugin } from './gate/plugin.ts';
export { formatPolicyTest, runPolicyTest } from './gate/policy-test.ts';
export type { PolicyTestOptions } from './gate/policy-test.ts';
export { startPlugins } from './plugins.ts';
export {
  approvalSentence,
  describeChange,
  describeToolCall,
  describeWarning,
  formatArguments,
  localTime,
  renderApprovalLine,
  renderApprovalTable,
  renderApprovalText,
  withLocalTimes,
} from './render/index.ts';
export {
  DEFAULT_SERVER_URL,
  SERVER_URL_ENV,
  applyDeprecatedServerUrlEnv,
  serverBaseUrl,
  serverMcpUrl,
} from './server-url.ts';

// The contract other modules use (added with the module-boundary lint rule).
export { clientToken } from './client-token.ts';
export { ensureServerAnswers, isConnectionFailure, serverUnreachable } from './unreachable.ts';
export { runningServers } from './discovery.ts';
export type { ServerEntry } from './discovery.ts';
export { rotateLocalToken } from './local-token.ts';
export { workerRole, type WorkerRole } from './workers.ts';
