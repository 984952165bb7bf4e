/**
 * Light entry of the server module: the part of its contract the command line needs to register
 * its commands and options (`sentinel --help`, option defaults and choices, usage errors), loading
 * no zod, Express, MCP SDK or Kubernetes client. Everything here is also exported by index.ts;
 * `test/light-entries.test.ts` checks what loading it loads.
 */
export {
  DEFAULT_SERVER_URL,
  SERVER_URL_ENV,
  applyDeprecatedServerUrlEnv,
  serverBaseUrl,
  serverMcpUrl,
} from './server-url.ts';
export { defaultTokensFile, localTokenFile, resolveDataDir } from './data-dir.ts';
export { LOCAL_IDENTITY_NAME, ROLES, type Role } from './roles.ts';
export { APPROVAL_STATUSES } from './gate/approval-status.ts';
export { CHECKPOINT_FILE } from './audit/checkpoint-file.ts';
export { localTime, type LocalTimeOptions } from './render/time.ts';
