/**
 * One server URL for every client command: SENTINEL_SERVER_URL (SENTINEL_SERVER a deprecated alias),
 * base or /mcp form normalised in one place.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Command } from 'commander';
import { serverUrlOption } from '../../cli/options.ts';
import { applyDeprecatedServerUrlEnv, serverBaseUrl, serverMcpUrl } from '../../server/server-url.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDataDir } from '../helpers/server.ts';

/** Parses `args` with one `--server` option and returns its value and source. */
function parse(endpoint: 'base' | 'mcp', args: string[] = []) {
  const command = new Command('x').exitOverride().configureOutput({ writeErr: () => {} });
  command.addOption(serverUrlOption('server', endpoint)).action(() => {});
  command.parse(args, { from: 'user' });
  return { value: command.opts().server as string, source: command.getOptionValueSource('server') };
}

describe('server URL', () => {
  afterEach(() => vi.unstubAllEnvs());

  it.each([
    ['http://127.0.0.1:7070', 'http://127.0.0.1:7070'],
    ['http://127.0.0.1:7070/', 'http://127.0.0.1:7070'],
    ['http://127.0.0.1:7070/mcp', 'http://127.0.0.1:7070'],
    ['https://ops.example.com/sentinel/mcp/', 'https://ops.example.com/sentinel'],
  ])('normalises %s to the base %s and its /mcp endpoint', (given, base) => {
    expect(serverBaseUrl(given)).toBe(base);
    expect(serverMcpUrl(given)).toBe(`${base}/mcp`);
  });

  it('rejects a non-http URL naming --server', () => {
    expect(() => serverBaseUrl('127.0.0.1:7070')).toThrow(
      "--server '127.0.0.1:7070' is not an http(s) URL; expected e.g. http://127.0.0.1:7070.",
    );
  });

  it('--server reads SENTINEL_SERVER_URL and gives each command the form it needs', () => {
    vi.stubEnv('SENTINEL_SERVER_URL', 'http://10.0.0.5:7070/mcp');
    expect(parse('base')).toEqual({ value: 'http://10.0.0.5:7070', source: 'env' });
    expect(parse('mcp')).toEqual({ value: 'http://10.0.0.5:7070/mcp', source: 'env' });
    expect(parse('mcp', ['--server', 'http://h:1'])).toEqual({ value: 'http://h:1/mcp', source: 'cli' });
    vi.stubEnv('SENTINEL_SERVER_URL', undefined);
    expect(parse('mcp')).toEqual({ value: 'http://127.0.0.1:7070/mcp', source: 'default' });
  });

  it('names the variable when its value is not a URL', () => {
    vi.stubEnv('SENTINEL_SERVER_URL', 'not a url');
    expect(() => parse('base')).toThrow(/from env 'SENTINEL_SERVER_URL' is invalid.*is not an http\(s\) URL/);
  });

  it('reads the deprecated SENTINEL_SERVER only when SENTINEL_SERVER_URL is unset, with a warning', () => {
    const env: NodeJS.ProcessEnv = { SENTINEL_SERVER: 'http://old:7070' };
    expect(applyDeprecatedServerUrlEnv(env)).toBe(
      'sentinel: SENTINEL_SERVER is deprecated; set SENTINEL_SERVER_URL instead (using its value).\n',
    );
    expect(env.SENTINEL_SERVER_URL).toBe('http://old:7070');
    const both: NodeJS.ProcessEnv = {
      SENTINEL_SERVER: 'http://old:7070',
      SENTINEL_SERVER_URL: 'http://new:7070',
    };
    expect(applyDeprecatedServerUrlEnv(both)).toMatch(/SENTINEL_SERVER is deprecated and ignored/);
    expect(both.SENTINEL_SERVER_URL).toBe('http://new:7070');
    expect(applyDeprecatedServerUrlEnv({})).toBeUndefined();
  });

  it('sentinel approvals uses SENTINEL_SERVER (deprecated) after warning, as a base URL', async () => {
    const data = tempDataDir();
    vi.stubEnv('SENTINEL_SERVER', 'http://127.0.0.1:1/mcp');
    vi.stubEnv('SENTINEL_SERVER_URL', undefined);
    try {
      const result = await runCli(['approvals', 'list', '--token', 'x'.repeat(20), '--data-dir', data.dir]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('SENTINEL_SERVER is deprecated; set SENTINEL_SERVER_URL instead');
      expect(result.stderr).toContain('No Sentinel server answers at http://127.0.0.1:1 ');
    } finally {
      data.cleanup();
    }
  });
});
