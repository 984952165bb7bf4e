/**
 * Public entry of the TrueForge harness API client (the harness contract: ../shared/harness/
 * openapi.json and OBSERVED.md): the typed client over HTTP and server-sent events, and the zod
 * schemas of what the harness sends and accepts. Harness mode (agent/harness) drives
 * investigations with it; the server reads the harness with it to verify an upstream approval
 * (server/gate/upstream.ts). It depends on core/ only, so both can use it without importing
 * each other.
 */
export { newestTurn, TrueForgeClient } from './client.ts';
export { apiBase, HarnessHttp, type HarnessConnectionOptions, type OpenStream } from './http.ts';
export { parseEventData, readTurnEvents, type StreamedEvent } from './sse.ts';
export * from './schemas.ts';
