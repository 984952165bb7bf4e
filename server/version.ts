/** Sentinel's version, from package.json (reported by /healthz and MCP `initialize`). */
import { readFileSync } from 'node:fs';

export const SENTINEL_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
