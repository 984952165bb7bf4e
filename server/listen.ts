/**
 * Binds a request handler (the Express app, or serve-listen.ts's start-up handler) to an address
 * over HTTP or HTTPS and closes it promptly.
 */
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isIPv6 } from 'node:net';

export interface ListenOptions {
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  /** PEM certificate chain and private key; both or neither. */
  tls?: { cert: Buffer; key: Buffer };
}

export interface ListeningServer {
  /** Base URL, e.g. `http://127.0.0.1:7070` (the actual port when 0 was asked). */
  url: string;
  port: number;
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
}

/** Starts listening; rejects with the socket error (e.g. EADDRINUSE) when the address cannot be bound. */
export async function listen(app: RequestListener, options: ListenOptions): Promise<ListeningServer> {
  const server: Server = options.tls ? createHttpsServer(options.tls, app) : createHttpServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = isIPv6(options.host) ? `[${options.host}]` : options.host;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
