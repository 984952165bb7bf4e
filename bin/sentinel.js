#!/usr/bin/env node
// Launcher for the `sentinel` CLI. The sources are TypeScript run by Node's built-in type
// stripping, so there is no build step between `npm ci` and `npx sentinel`. On a Node older than
// Sentinel needs (a fresh machine's Node 20), it re-executes itself under a supported one
// (bin/ensure-node.js: on linux-x64 installed once into .tools/; elsewhere it says what to install).
import { isSupportedNodeVersion, runUnderSupportedNode, UnsupportedNodeError } from './ensure-node.js';

if (!isSupportedNodeVersion(process.version)) {
  try {
    await runUnderSupportedNode('node', process.argv.slice(1));
  } catch (error) {
    if (!(error instanceof UnsupportedNodeError)) throw error;
    process.stderr.write(`sentinel: ${error.message}\n`);
    process.exit(1);
  }
}
// node:sqlite is stable enough for Sentinel's use; its ExperimentalWarning is noise to users.
const defaultWarningListeners = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning' && /SQLite/i.test(warning.message)) return;
  for (const listener of defaultWarningListeners) listener(warning);
});
const { exitQuietlyOnBrokenPipe } = await import('../agent/light.ts');
exitQuietlyOnBrokenPipe(process.stdout);
exitQuietlyOnBrokenPipe(process.stderr);
const { main } = await import('../cli/index.ts');
await main(process.argv);
