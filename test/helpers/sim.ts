/**
 * Test helpers for the Kubernetes API simulator: a client-node KubeConfig for a running simulator,
 * and raw HTTPS requests that trust the simulator's CA (for status codes, headers and bodies that
 * the typed clients hide).
 */
import { request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { Simulator } from '../../deploy/sim/index.ts';

export function kubeConfigFor(sim: Simulator): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfig);
  return kc;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body (undefined when the body is not JSON). */
  json: unknown;
}

/** One HTTPS request to the simulator; `token: null` sends no Authorization header. */
export function rawRequest(
  sim: Simulator,
  method: string,
  path: string,
  options: { token?: string | null; headers?: Record<string, string>; body?: unknown } = {},
): Promise<RawResponse> {
  const token = options.token === undefined ? sim.token : options.token;
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${sim.url}${path}`,
      {
        method,
        ca: sim.caPem,
        headers: {
          ...(token !== null && { Authorization: `Bearer ${token}` }),
          // Node sends a DELETE body without framing unless told its length.
          ...(body !== undefined && {
            'Content-Type': 'application/json',
            'Content-Length': String(Buffer.byteLength(body)),
          }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
