/**
 * How the CLI reaches a TrueForge harness and the Sentinel server: the plain options
 * `sentinel harness register` and `sentinel investigate --harness` take, and the client they build.
 */
import { TrueForgeClient } from '../../trueforge/index.ts';

/** Harness and Sentinel server addresses (as the command line gives them). */
export interface HarnessConnectionOptions {
  harness?: string;
  harnessToken?: string;
  /** The Sentinel server's MCP URL. */
  server: string;
  /** Deadline of each harness request, in seconds. */
  timeout: number;
}

/** The client for `--harness`; the caller has checked the URL is set. */
export function harnessClient(options: HarnessConnectionOptions & { harness: string }): TrueForgeClient {
  return new TrueForgeClient({
    url: options.harness,
    token: options.harnessToken,
    timeoutMs: options.timeout * 1000,
  });
}
