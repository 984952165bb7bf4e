/**
 * `sentinel serve` options (schema and defaults in serve-options.ts), and the rules about where the
 * server may listen (loopback unless remote access is explicitly allowed and token-protected).
 */
import { BlockList, isIP } from 'node:net';
import { SentinelError, sentinelCommand } from '../core/index.ts';
import { hostHeaderName, LOCALHOST_NAMES } from './host-check.ts';

export {
  ServeOptionsSchema,
  parseReadCacheMode,
  parseServeOptions,
  type ServeOptions,
} from './serve-options.ts';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/**
 * Whether binding `host` keeps the server reachable from this machine only: `localhost`,
 * 127.0.0.0/8 or ::1. Any other name or address (including 0.0.0.0 and ::) is remote.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (bare.toLowerCase() === 'localhost') return true;
  const family = isIP(bare);
  return family !== 0 && loopback.check(bare, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Throws `SentinelError('invalid_input')` when `host` is not loopback unless remote access was allowed
 * with --allow-remote and at least one token can authenticate. The message names the risk.
 */
export function checkBindAddress(host: string, allowRemote: boolean, hasTokens: boolean): void {
  if (isLoopbackHost(host)) return;
  if (allowRemote && hasTokens) return;
  const missing = [
    ...(allowRemote ? [] : ['pass --allow-remote']),
    ...(hasTokens
      ? []
      : [
          `configure at least one token (SENTINEL_TOKEN, --token-file, or \`${sentinelCommand()} tokens add <name> --role caller\`)`,
        ]),
  ];
  // A configuration error (exit 2, README "Exit codes"), said as a refusal.
  throw new SentinelError(
    'invalid_input',
    `Refusing to listen on ${host}: it is not a loopback address, so anyone who can reach this machine ` +
      'over the network could call tools that change your Kubernetes cluster (roll back, restart, scale) ' +
      'and read its logs. To serve remotely on purpose, ' +
      `${missing.join(' and ')}; prefer --tls-cert/--tls-key so tokens never cross the network in clear text. ` +
      'To stay local, leave out --host (default 127.0.0.1).',
    { field: '--host' },
  );
}

/**
 * Hosts accepted in Host/Origin: the bound address and its localhost forms (on the server's own
 * port), and --allowed-host values (`name` on the server's port, `name:port` on that port only).
 */
export function allowedHostNames(host: string, extra: readonly string[]): string[] {
  return [
    ...new Set([
      ...LOCALHOST_NAMES,
      hostHeaderName(host, '--host'),
      ...extra.map((value) => hostHeaderName(value, '--allowed-host')),
    ]),
  ];
}
