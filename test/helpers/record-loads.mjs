// Preloaded with `node --import` by test/helpers/loads.ts: appends the URL of every module the
// process loads (ESM and CommonJS, one per line) to the file named by SENTINEL_TEST_LOADS_FILE.
// With SENTINEL_TEST_LOADS_PER_PROCESS=1 each process writes `<file>.<pid>` instead, so a process
// tree (`serve --workers`: the primary and the workers it forks, which inherit the hook) keeps
// each process's loads apart.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const base = process.env.SENTINEL_TEST_LOADS_FILE;
const file = base && process.env.SENTINEL_TEST_LOADS_PER_PROCESS === '1' ? `${base}.${process.pid}` : base;
if (file) {
  registerHooks({
    load(url, context, nextLoad) {
      appendFileSync(file, `${url}\n`);
      return nextLoad(url, context);
    },
  });
}
