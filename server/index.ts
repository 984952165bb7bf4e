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
export { generateToken, hashToken, sameHash } from './tokens.ts';
