/**
 * Command-line options shared by `sentinel harness register` and `sentinel investigate --harness`,
 * and the client they configure.
 */
import { InvalidArgumentError, Option } from 'commander';
import { TrueForgeClient } from './client.ts';
import { serverUrlOption as sentinelServerUrlOption } from '../../server/server-url.ts';

/** Options as commander parses them. */
export interface HarnessCliOptions {
  harness?: string;
  harnessToken?: string;
  server: string;
  timeout: number;
}

/** `--harness <url>` (SENTINEL_HARNESS_URL): the TrueForge harness base URL. */
export function harnessUrlOption(): Option {
  return new Option('--harness <url>', 'TrueForge harness URL, e.g. http://127.0.0.1:8000').env(
    'SENTINEL_HARNESS_URL',
  );
}

/** `--harness-token <token>` (SENTINEL_HARNESS_TOKEN): the harness login token, when it needs one. */
export function harnessTokenOption(): Option {
  return new Option('--harness-token <token>', 'TrueForge harness bearer token').env(
    'SENTINEL_HARNESS_TOKEN',
  );
}

/** `--server <url>` (SENTINEL_SERVER_URL): the Sentinel server's MCP URL (a base URL gets `/mcp`). */
export function serverUrlOption(description: string): Option {
  return sentinelServerUrlOption(description, 'mcp');
}

/** `--timeout <seconds>`: deadline of each harness request (default 30). */
export function timeoutOption(): Option {
  return new Option('--timeout <seconds>', 'deadline of each harness request, in seconds')
    .default(30)
    .argParser(parseSeconds);
}

/** Parses a positive number of seconds (at most one hour). */
export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new InvalidArgumentError('must be a number of seconds between 0 and 3600.');
  }
  return seconds;
}

/** The client for `--harness`; the caller has checked the URL is set. */
export function harnessClient(options: HarnessCliOptions & { harness: string }): TrueForgeClient {
  return new TrueForgeClient({
    url: options.harness,
    token: options.harnessToken,
    timeoutMs: options.timeout * 1000,
  });
}
