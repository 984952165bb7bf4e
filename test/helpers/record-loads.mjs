// Preloaded with `node --import` by test/helpers/loads.ts: appends the URL of every module the
// process loads (ESM and CommonJS, one per line) to the file named by SENTINEL_TEST_LOADS_FILE.
// With SENTINEL_TEST_LOADS_PER_PROCESS=1 each process writes `<file>.<pid>` instead, so a process
// tree (`serve --workers`: the primary and the workers it forks, which inherit the hook) keeps
// each process's loads apart. With SENTINEL_TEST_LOADS_EVENTS=1 the same file also gets a line
// when a server starts listening (`listen <host>:<port>`) and when an HTTP request starts
// (`request <method> <url>`), in order with the loads: what was loaded before a port was bound or
// a request was answered, without timing.
import { appendFileSync } from 'node:fs';
import { subscribe, tracingChannel } from 'node:diagnostics_channel';
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
  if (process.env.SENTINEL_TEST_LOADS_EVENTS === '1') {
    tracingChannel('net.server.listen').subscribe({
      start() {},
      end() {},
      asyncStart() {},
      asyncEnd({ server }) {
        const address = server.address();
        if (address && typeof address === 'object')
          appendFileSync(file, `listen ${address.address}:${address.port}\n`);
      },
      error() {},
    });
    subscribe('http.server.request.start', ({ request }) => {
      appendFileSync(file, `request ${request.method} ${request.url}\n`);
    });
  }
}
