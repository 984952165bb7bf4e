#!/usr/bin/env node
// Launcher for the `sentinel` CLI. The sources are TypeScript run by Node's built-in type
// stripping (Node >= 22.18), so there is no build step between `npm ci` and `npx sentinel`.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 20)) {
  process.stderr.write(
    `sentinel needs Node.js >= 22.20 (this is ${process.version}).\n` +
      'Install Node.js 22 (https://nodejs.org, or `npx -y node@22 ...`) and run the command again.\n',
  );
  process.exit(1);
}
// node:sqlite is stable enough for Sentinel's use; its ExperimentalWarning is noise to users.
const defaultWarningListeners = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning' && /SQLite/i.test(warning.message)) return;
  for (const listener of defaultWarningListeners) listener(warning);
});
const { main } = await import('../agent/cli.ts');
await main(process.argv);
