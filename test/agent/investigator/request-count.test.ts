/**
 * How many Kubernetes requests one local investigation makes, counted at the simulator (its audit
 * log, like kube-apiserver's `--audit-log-path`): behaviour, not timing. Up to the proposal
 * (triage, evidence, logs, preview) the steps share one read snapshot, so each distinct read is sent
 * once; the approved call's execution and the verification after it read the cluster afresh, the
 * settle window's checks reading only the Deployment. Afresh means: with `--read-cache off`, GETs
 * of the Deployment; with the read cache (the default), reads the snapshot never touched start it,
 * so the cache watches the Deployments from after the approved write, and nothing before it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runLocalInvestigation } from '../../../agent/investigator/session.ts';
import { startLocalServer, type LocalServer } from '../../../agent/investigator/local-server.ts';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';

interface Audited {
  verb: string;
  requestURI: string;
  dryRun: boolean;
}

/** Requests up to the proposal on bad-image-rollout: 24 before read snapshots, 9 with them. */
const MAX_REQUESTS_TO_PROPOSAL = 10;

describe('Kubernetes requests of one investigation', { timeout: 120_000 }, () => {
  let dir: string | undefined;
  let sim: Simulator | undefined;
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    server = sim = dir = undefined;
  });

  it.each(['off', 'watch'] as const)(
    '--read-cache %s: reads each object once up to the proposal, and afresh after the approved call',
    async (readCache) => {
      dir = mkdtempSync(join(tmpdir(), 'sentinel-request-count-'));
      const auditLogPath = join(dir, 'audit.log');
      const kubeconfig = join(dir, 'kubeconfig');
      sim = await startSimulator({
        scenario: 'bad-image-rollout',
        timeScale: 60,
        kubeconfigPath: kubeconfig,
        auditLogPath,
      });
      server = await startLocalServer({ dataDir: dir, kubeconfig, readCache });
      const audited = (): Audited[] =>
        readFileSync(auditLogPath, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Audited);
      const start = audited().length;
      // The audit line of a request is written when its response completes: when "Proposed:" is
      // printed, every request of the steps before it is in the file.
      let atProposal: number | undefined;
      let watchesAtProposal: number | undefined;
      const running = sim;
      const progress = new Writable({
        write(chunk, _encoding, done) {
          if (atProposal === undefined && String(chunk).startsWith('Proposed:')) {
            atProposal = audited().length;
            watchesAtProposal = running.traffic.watches; // a watch is audited only once it ends
          }
          done();
        },
      });
      const { report } = await runLocalInvestigation({
        symptom: running.scenario.symptom,
        namespace: 'shop',
        server: `${server.url}/mcp`,
        token: server.token,
        dataDir: dir,
        yes: true,
        confirm: ['checkout'],
        pollMs: 50,
        verifyWaitSeconds: 5,
        settleSeconds: 30,
        progress,
        clusterNow: () => running.clock.now(),
      });
      expect(report.action).toMatchObject({ kind: 'rollback', status: 'executed' });
      expect(report.verification).toMatchObject({ state: 'complete', healthy: true, settle_seconds: 30 });

      const all = audited().slice(start);
      const toProposal = all.slice(0, atProposal! - start);
      expect(toProposal.length).toBeLessThanOrEqual(MAX_REQUESTS_TO_PROPOSAL);
      // No read repeated: every request up to the proposal has its own URI.
      const uris = toProposal.map((r) => `${r.verb} ${r.requestURI}`);
      expect(uris.filter((uri, index) => uris.indexOf(uri) !== index)).toEqual([]);

      // After the proposal: the held call, its execution and the verification read the cluster again.
      const after = all.slice(atProposal! - start);
      const deployment = '/apis/apps/v1/namespaces/shop/deployments/checkout';
      const patch = after.findIndex((r) => r.verb === 'patch' && !r.dryRun);
      expect(patch).toBeGreaterThan(0);
      expect(after.slice(0, patch).some((r) => r.verb === 'get' && r.requestURI === deployment)).toBe(true);
      const verification = after.slice(patch + 1);
      const gets = verification.filter((r) => r.verb === 'get' && r.requestURI === deployment).length;
      if (readCache === 'off') {
        expect(gets).toBeGreaterThan(1);
        expect(running.traffic.watches).toBe(0);
      } else {
        // The snapshot reads never start the cache: its lists and watches all begin after the write.
        expect(watchesAtProposal).toBe(0);
        expect(running.traffic.watches).toBeGreaterThan(0);
        const collection = '/apis/apps/v1/namespaces/shop/deployments?';
        expect(verification.some((r) => r.verb === 'list' && r.requestURI.startsWith(collection))).toBe(true);
        expect(gets).toBeGreaterThan(0); // the first verification read, before the cache is synced
      }
      // The settle window's checks read the Deployment's template, not its autoscalers.
      expect(verification.filter((r) => r.requestURI.includes('horizontalpodautoscalers'))).toEqual([]);
    },
  );
});
