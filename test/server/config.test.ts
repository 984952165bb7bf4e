import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  allowedHostNames,
  checkBindAddress,
  isLoopbackHost,
  parseServeOptions,
} from '../../server/config.ts';
import { readCacheMode } from '../../server/serve-options.ts';

describe('serve options', () => {
  it('defaults to 127.0.0.1:7070 over HTTP', () => {
    expect(parseServeOptions({})).toMatchObject({
      host: '127.0.0.1',
      port: 7070,
      allowedHost: [],
      allowRemote: false,
      stdio: false,
    });
    expect(parseServeOptions({ port: '0' }).port).toBe(0);
  });

  it('takes --workers as a whole number, or auto for one per core; default 1', () => {
    expect(parseServeOptions({}).workers).toBe(1);
    expect(parseServeOptions({ workers: '3' }).workers).toBe(3);
    expect(parseServeOptions({ workers: 'auto' }).workers).toBe(availableParallelism());
  });

  it('takes --read-cache off or watch; not given, SENTINEL_READ_CACHE, else watch', () => {
    expect(parseServeOptions({}).readCache).toBeUndefined();
    expect(parseServeOptions({ readCache: 'watch' }).readCache).toBe('watch');
    expect(readCacheMode(parseServeOptions({}), {})).toBe('watch');
    expect(readCacheMode(parseServeOptions({}), { SENTINEL_READ_CACHE: '' })).toBe('watch');
    expect(readCacheMode(parseServeOptions({}), { SENTINEL_READ_CACHE: 'off' })).toBe('off');
    expect(readCacheMode(parseServeOptions({ readCache: 'watch' }), { SENTINEL_READ_CACHE: 'off' })).toBe(
      'watch',
    );
    expect(readCacheMode(parseServeOptions({ readCache: 'off' }), {})).toBe('off');
  });

  it('names SENTINEL_READ_CACHE and the rule when it is neither off nor watch', () => {
    expect(() => readCacheMode(parseServeOptions({}), { SENTINEL_READ_CACHE: 'on' })).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        field: 'SENTINEL_READ_CACHE',
        message: "SENTINEL_READ_CACHE: must be 'off' or 'watch' (got 'on').",
      }),
    );
  });

  it.each([
    [{ readCache: 'informer' }, "--read-cache: must be 'off' or 'watch'."],
    [{ port: 'abc' }, '--port: must be a number.'],
    [{ port: '70000' }, '--port: must be 0-65535.'],
    [{ port: '1.5' }, '--port: must be a whole number.'],
    [{ tlsCert: 'cert.pem' }, '--tls-cert and --tls-key must be given together.'],
    [{ stdio: true }, /--stdio needs --identity <name>/],
    [{ identity: 'local' }, /--identity applies only with --stdio/],
    [{ workers: 'many' }, "--workers: must be a whole number or 'auto'."],
    [{ workers: '0' }, "--workers: must be at least 1 (or 'auto')."],
    [{ workers: '1.5' }, "--workers: must be a whole number or 'auto'."],
    // A million workers forked a million processes (a new user's try): the machine stopped answering.
    [
      { workers: '1000000' },
      `--workers: must be at most ${2 * availableParallelism()} (two per core; more only compete for the cores).`,
    ],
    [{ workers: String(2 * availableParallelism() + 1) }, /--workers: must be at most/],
    [{ workers: '2', stdio: true, identity: 'local' }, /--workers applies only over HTTP/],
  ])('rejects %j naming the flag', (raw, message) => {
    expect(() => parseServeOptions(raw)).toThrow(message);
  });
});

describe('bind address', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['example.com', false],
  ])('%s is loopback: %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });

  it.each(['0.0.0.0', '::', '10.0.0.5'])('refuses %s without --allow-remote, naming the risk', (host) => {
    expect(() => checkBindAddress(host, false, true)).toThrow(
      new RegExp(
        `^Refusing to listen on ${host.replace(/\./g, '\\.')}: it is not a loopback address.*change your Kubernetes cluster.*pass --allow-remote;`,
      ),
    );
  });

  it('refuses --allow-remote without a token, and allows it with one', () => {
    expect(() => checkBindAddress('0.0.0.0', true, false)).toThrow(/configure at least one token/);
    expect(() => checkBindAddress('0.0.0.0', false, false)).toThrow(
      /pass --allow-remote and configure at least one token/,
    );
    expect(() => checkBindAddress('0.0.0.0', true, true)).not.toThrow();
    expect(() => checkBindAddress('127.0.0.1', false, false)).not.toThrow();
  });

  it('allows the bound address, localhost forms and --allowed-host values in Host-header form, keeping a port', () => {
    expect(allowedHostNames('10.0.0.5', ['Sentinel.Example.com:8443', 'fe80::1', '[fe80::2]:443'])).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      '10.0.0.5',
      'sentinel.example.com:8443',
      '[fe80::1]',
      '[fe80::2]:443',
    ]);
    expect(() => allowedHostNames('127.0.0.1', ['bad host/'])).toThrow(
      "--allowed-host 'bad host/' is not a host name or IP address.",
    );
  });
});
