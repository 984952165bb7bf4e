/**
 * `sentinel serve`: the MCP ops server over HTTP or stdio.
 */
import cluster from 'node:cluster';
import module from 'node:module';
import type { Command } from 'commander';
import type { EarlyServer, RunningServer } from '../server/index.ts';
import { OUTPUT_CLOSED_EXIT_CODE, whenOutputCloses } from '../agent/light.ts';
import { LOCAL_IDENTITY_NAME } from '../server/light.ts';
import { collect, dataDirOption, tokensFileOption } from './options.ts';

/** Signals that stop `sentinel serve` cleanly. */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'Run the MCP ops server: Streamable HTTP at /mcp on loopback (bearer token required), or stdio with --stdio.',
    )
    .option('--host <host>', 'address to bind; non-loopback needs --allow-remote and a token', '127.0.0.1')
    .option('--port <port>', 'TCP port; 0 picks a free one', '7070')
    .option(
      '--allowed-host <host>',
      'extra host accepted in Host/Origin headers: name (on the server port) or name:port, e.g. a proxy (repeatable)',
      collect,
      [],
    )
    .option('--token-file <file>', "file holding the startup token (identity 'local'); env SENTINEL_TOKEN")
    .addOption(tokensFileOption())
    .option('--allow-remote', 'allow a non-loopback --host (requires at least one token)', false)
    .option('--tls-cert <file>', 'PEM certificate chain: serve HTTPS (with --tls-key)')
    .option('--tls-key <file>', 'PEM private key for --tls-cert')
    .option('--kubeconfig <file>', 'kubeconfig file (default KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context (default: the current context)')
    .addOption(dataDirOption())
    .option(
      '--store <url>',
      'shared store for approvals and audit: postgres://user:pass@host/db (env SENTINEL_STORE_URL); default SQLite in the data dir',
    )
    .option(
      '--policy <file>',
      'approval policy (YAML); default: the commented policy shipped in server/gate/default-policy.yaml',
    )
    .option(
      '--max-concurrent-reads <n>',
      'reads (every /mcp call but write/destructive tool calls) one identity may run at once; env SENTINEL_MAX_CONCURRENT_READS (default 8)',
    )
    .option(
      '--read-queue <n>',
      'reads of one identity waiting beyond that before 429 + Retry-After; env SENTINEL_READ_QUEUE (default 64)',
    )
    .option(
      '--workers <n>',
      "processes serving the one port (node:cluster) on the shared store, at most two per core; 'auto' = one per core",
      '1',
    )
    .option(
      '--read-cache <mode>',
      "'watch' (default): read tools answer Deployments, ReplicaSets, Pods and HorizontalPodAutoscalers from a watch-backed cache once synced (eventually consistent; Sentinel's own writes are read back; approvals, previews and executions always read the API server); 'off': every read asks the API server; env SENTINEL_READ_CACHE",
    )
    .option('--stdio', 'serve MCP over stdin/stdout instead of HTTP (with --identity)', false)
    .option(
      '--identity <name>',
      `with --stdio: identity every call runs as ('${LOCAL_IDENTITY_NAME}' has every role)`,
    )
    .action(async (raw: Record<string, unknown>) => {
      // Loaded when the command runs: `sentinel serve --help` loads none of the server. Deep on
      // purpose: the options alone (zod), so the primary of --workers never loads server/index.ts.
      // eslint-disable-next-line no-restricted-syntax -- see above
      const { parseServeOptions } = await import('../server/serve-options.ts');
      const options = parseServeOptions(raw);
      if (options.workers > 1 && cluster.isPrimary) {
        // The primary only forks and supervises: it loads none of the server (server/workers.ts).
        // Deep on purpose: server/index.ts is the whole server (~200 MB RSS), which the primary never runs.
        // eslint-disable-next-line no-restricted-syntax -- see above
        const { runWorkers } = await import('../server/workers.ts');
        // eslint-disable-next-line no-restricted-syntax -- see above
        const { resolveDataDir } = await import('../server/data-dir.ts');
        process.exitCode = await runWorkers({
          count: options.workers,
          dataDir: resolveDataDir(options.dataDir, process.env),
          io: { stderr: (text) => process.stderr.write(text) },
        });
        return;
      }
      // Ctrl-C, SIGTERM and a closed terminal (SIGHUP) stop the server and remove its discovery
      // file. Handlers stay on for the whole run, from before start-up: a repeated signal (the whole
      // process group hears `kill -- -PGID`, and a re-executing launcher passes it on once more) must
      // not fall through to the default action and end the process before its cleanup.
      let server: RunningServer | undefined;
      let early: EarlyServer | undefined;
      let stopping: string | undefined; // why: the signal, or 'output closed'
      const stop = (reason: string) => {
        stopping ??= reason;
        void server?.close(reason);
      };
      for (const signal of STOP_SIGNALS) process.on(signal, stop);
      // Output closed (`serve | head -1`, a log shipper gone): the logs would go nowhere, so stop as
      // on SIGTERM (calls drained, files removed) and exit 141, which a supervisor sees as a failure
      // (README "Exit codes"). stdio mode: stdout is the protocol; its client's end is stdin's.
      let outputLost = false;
      const lose = () => {
        outputLost = true;
        stop('output closed');
      };
      const unregisterOutput = options.stdio ? () => {} : whenOutputCloses(lose);
      try {
        // Bound before the server loads (issue 17: /healthz within 1 s): until the app is attached,
        // /healthz and /readyz answer 'starting' and other requests wait. A --workers worker binds
        // through its primary once loaded, as before. Deep on purpose: it loads no Express or SDK.
        // eslint-disable-next-line no-restricted-syntax -- see above
        const bind = cluster.isWorker ? undefined : await import('../server/serve-listen.ts');
        if (bind?.bindsEarly(options, process.env)) early = await bind.bindEarly(options);
        // Loaded on demand: the MCP SDK and the Kubernetes client are not needed by `sentinel tokens`;
        // in stages after an early bind, so /healthz is answered while it loads.
        const { startServe, workerRole, logFormat, releaseStartupMemory } =
          early && bind ? await bind.loadServer() : await import('../server/index.ts');
        const { colorsEnabled, palette } = await import('../agent/light.ts');
        const worker = workerRole();
        // Logs go to stdout (stderr with --stdio, where stdout is the protocol): pretty on a terminal.
        const logStream = options.stdio ? process.stderr : process.stdout;
        const banner = palette(process.stderr);
        // A --workers worker whose primary went away (killed) stops too.
        const orphaned = () => stop('primary disconnected');
        if (worker) process.once('disconnect', orphaned);
        server = await startServe(
          options,
          {
            stderr: (text) => process.stderr.write(text),
            terminal: process.stderr.isTTY === true,
            env: process.env,
            logs: logFormat(logStream, process.env),
            colors: colorsEnabled(logStream),
            ...(!options.stdio && { onLogsClosed: lose }),
            ...(banner.enabled && {
              style: { strong: (text) => banner.paint('bold', text), warn: (text) => banner.warn(text) },
            }),
          },
          { ...(worker && { worker }), ...(early && { listener: early }) },
        );
        if (stopping !== undefined) void server.close(stopping);
        // Started: give back what start-up alone needed (issue 17: idle RSS; server/serve-heap.ts).
        else
          setImmediate(() => {
            releaseStartupMemory();
            // A server runs until stopped: write the compile cache now (bin/ts-cache.js), not at exit.
            module.flushCompileCache?.();
          });
        await server.closed;
        if (outputLost) process.exitCode = OUTPUT_CLOSED_EXIT_CODE;
        if (worker && process.connected) process.disconnect();
      } catch (error) {
        if (!server) await early?.close(); // start-up failed: the held requests get 503
        throw error;
      } finally {
        for (const signal of STOP_SIGNALS) process.off(signal, stop);
        unregisterOutput();
        // A worker that failed to start (the port taken) leaves the cluster: its IPC channel would
        // keep it alive, and its primary waiting, forever. Through cluster.worker, so that the
        // process ends with its own exit code (a bare process.disconnect() makes it exit 0).
        if (server === undefined && cluster.worker?.isConnected()) cluster.worker.disconnect();
      }
    });
}

/** Adds `serve` to the program. */
export function registerServeCommand(program: Command): void {
  registerServe(program);
}
