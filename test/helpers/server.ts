/**
 * Test helpers for the MCP ops server: a temporary data dir with an identity store, a fake cluster
 * connection, and an app listening on 127.0.0.1 on an ephemeral port, plus an SDK client for it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll } from 'vitest';
import type { ClusterIdentity } from '../../tools/define-tool.ts';
import type { KubeConnection, KubeReader, KubeWriter } from '../../tools/kube/types.ts';
import type { ToolRegistry } from '../../tools/registry.ts';
import { createServerApp, type RouteMounter } from '../../server/app.ts';
import { createIdentityStore, type IdentityStore } from '../../server/identity-store.ts';
import { listen } from '../../server/listen.ts';
import type { ToolCallMiddleware } from '../../server/pipeline.ts';

export const TEST_CLUSTER: ClusterIdentity = { context: 'test-context', server: 'https://127.0.0.1:6443' };

/** Temporary data directories of the current test file, removed after its last test. */
const dataDirs = new Set<string>();
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  dataDirs.clear();
});

/**
 * A temporary data directory, removed by `cleanup` — and in any case after the test file's last
 * test, so a failing or forgetful test leaves nothing in the temporary folder.
 */
export function tempDataDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-test-'));
  dataDirs.add(dir);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A configured `KubeConnection` whose reader and writer implement only the given methods; any
 * other method throws, so a test notices an unexpected call.
 */
export function fakeKube(
  reader: Partial<KubeReader> = {},
  writer: Partial<KubeWriter> = {},
  cluster: ClusterIdentity = TEST_CLUSTER,
): Extract<KubeConnection, { configured: true }> {
  const strict = <T extends object>(what: string, impl: Partial<T>): T =>
    new Proxy(impl, {
      get(target, property) {
        if (property in target) return target[property as keyof typeof target];
        if (typeof property === 'symbol' || property === 'then') return undefined;
        return () => {
          throw new Error(`fake ${what}.${property} was not expected to be called`);
        };
      },
    }) as T;
  return {
    configured: true,
    cluster,
    reader: strict<KubeReader>('reader', { cluster, ...reader }),
    writer: strict<KubeWriter>('writer', writer),
  };
}

export interface TestServer {
  url: string;
  /** Token of identity `local` (all roles). */
  token: string;
  identities: IdentityStore;
  dataDir: string;
  close(): Promise<void>;
}

export interface TestServerOptions {
  registry?: ToolRegistry;
  kube?: KubeConnection;
  middlewares?: ToolCallMiddleware[];
  extraRoutes?: RouteMounter[];
  allowedHosts?: string[];
}

/** Starts the app on 127.0.0.1:0 with a temp data dir and a startup token; `close` removes both. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { dir, cleanup } = tempDataDir();
  const token = 'test-startup-token-0123456789';
  const identities = createIdentityStore({ tokensFile: join(dir, 'tokens.yaml'), startupToken: token });
  const { allowedHosts = [], ...rest } = options;
  const { app } = createServerApp({
    identities,
    allowedHosts: ['localhost', '127.0.0.1', '[::1]', ...allowedHosts],
    logger: pino({ level: 'silent' }),
    ...rest,
  });
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  return {
    url: server.url,
    token,
    identities,
    dataDir: dir,
    close: async () => {
      await server.close();
      cleanup();
    },
  };
}

/** An SDK MCP client connected to `${url}/mcp` with `Authorization: Bearer <token>`. */
export async function connectClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'sentinel-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** Headers of a well-formed MCP POST. */
export function mcpHeaders(token?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token !== undefined && { authorization: `Bearer ${token}` }),
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body parsed as JSON, or undefined. */
  json: unknown;
}

/**
 * One HTTP request with full control over headers (including Host), via node:http. Resolves with
 * the response; rejects only on socket errors.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body, json });
        });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/**
 * Writes `<dir>/kubeconfig` whose one context (`name`) points at a plain-HTTP API server on
 * 127.0.0.1:`port` with a dummy bearer token (for a `sentinel serve` process in a test); returns its path.
 */
export function writeLoopbackKubeconfig(dir: string, port: number, name = 'c'): string {
  const file = join(dir, 'kubeconfig');
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
clusters: [{ name: ${name}, cluster: { server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true } }]
users: [{ name: u, user: { token: "t" } }]
contexts: [{ name: ${name}, context: { cluster: ${name}, user: u } }]
current-context: ${name}
`,
  );
  return file;
}
