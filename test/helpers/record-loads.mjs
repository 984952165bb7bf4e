// Preloaded with `node --import` by test/helpers/loads.ts: appends the URL of every module the
// process loads (ESM and CommonJS, one per line) to the file named by SENTINEL_TEST_LOADS_FILE.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.SENTINEL_TEST_LOADS_FILE;
if (file) {
  registerHooks({
    load(url, context, nextLoad) {
      appendFileSync(file, `${url}\n`);
      return nextLoad(url, context);
    },
  });
}
