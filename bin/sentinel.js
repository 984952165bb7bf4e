#!/usr/bin/env node
// Launcher for the `sentinel` CLI. The sources are TypeScript run by Node's built-in type
// stripping, so there is no build step between `npm ci` and `npx sentinel`. On a Node older than
// Sentinel needs (a fresh machine's Node 20), it re-executes itself under a supported one
// (bin/ensure-node.js: on linux-x64 installed once into .tools/; elsewhere it says what to install).
import {
  isSupportedNodeVersion,
  runUnderSupportedNode,
  stopWithLauncher,
  UnsupportedNodeError,
} from './ensure-node.js';

if (!isSupportedNodeVersion(process.version)) {
  try {
    await runUnderSupportedNode('node', process.argv.slice(1));
  } catch (error) {
    if (!(error instanceof UnsupportedNodeError)) throw error;
    process.stderr.write(`sentinel: ${error.message}\n`);
    process.exit(1);
  }
}
stopWithLauncher();
// Loaded once Node is known to be new enough (an old Node re-executes above and never gets here).
const { enableCompileCache, installTypeScriptCache, STRIP_WARNING } = await import('./ts-cache.js');
// node:sqlite is stable enough for Sentinel's use, and the type stripping the cache below calls is
// Node's own; their ExperimentalWarnings are noise to users.
const defaultWarningListeners = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning' && /SQLite/i.test(warning.message)) return;
  if (warning.name === 'ExperimentalWarning' && STRIP_WARNING.test(warning.message)) return;
  for (const listener of defaultWarningListeners) listener(warning);
});
// Before the first .ts file: a warm start loads the stripped sources from .tools/ts-cache/ and never
// initialises Node's type stripper (bin/ts-cache.js; bench/cli-start.ts measures it).
if (process.env.SENTINEL_TS_CACHE !== '0') installTypeScriptCache();
// And V8's compiled code of every module, in .tools/compile-cache/ (bin/ts-cache.js; issue 17).
if (process.env.SENTINEL_COMPILE_CACHE !== '0') enableCompileCache();
const { exitQuietlyOnBrokenPipe } = await import('../agent/light.ts');
exitQuietlyOnBrokenPipe(process.stdout);
exitQuietlyOnBrokenPipe(process.stderr);
const { main } = await import('../cli/index.ts');
await main(process.argv);
