/* eslint-disable no-control-regex -- matching terminal colour codes is the point */
/**
 * The report as a person at a terminal gets it: a short summary (culprit, action, verification)
 * naming the file with the full Markdown report; Markdown on a pipe; `--format` and `--json` choose.
 */
import { readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { investigateLocally, printReport } from '../../../agent/investigator/investigate-local.ts';
import type { Report } from '../../../agent/investigator/report.ts';
import { capture, startIncident, type Incident } from '../../helpers/incident.ts';

describe('the report for people: summary on a terminal, Markdown otherwise', { timeout: 240_000 }, () => {
  let incident: Incident;
  let report: Report;
  let terminal: ReturnType<typeof capture>;
  beforeAll(async () => {
    incident = await startIncident('bad-image-rollout');
    terminal = Object.assign(capture(), { isTTY: true });
    const { FORCE_COLOR, NO_COLOR } = process.env;
    delete process.env.FORCE_COLOR; // a terminal gets colours unless told otherwise
    delete process.env.NO_COLOR;
    report = await investigateLocally(
      'checkout returns 502',
      {
        namespace: 'shop',
        server: `${incident.server.url}/mcp`,
        token: incident.server.token,
        dataDir: incident.dataDir,
        yes: true,
        confirm: ['checkout'],
        settleSeconds: 0,
      },
      { stdout: terminal, stderr: capture(), interactive: false },
    ).finally(() => {
      for (const [name, value] of Object.entries({ FORCE_COLOR, NO_COLOR }))
        if (value !== undefined) process.env[name] = value;
    });
  });
  afterAll(async () => {
    await incident?.close();
  });

  it('prints a few lines on a terminal and saves the full Markdown report, naming where', () => {
    const file = `${incident.dataDir}/investigations/${report.id}.md`;
    const text = terminal.text().replace(/\u001b\[[0-9;]*m/g, ''); // the words, without the colours
    expect(text.split('\n').slice(0, 4)).toEqual([
      expect.stringMatching(/^✔ Deployment shop\/checkout/),
      '  Culprit:       Deployment shop/checkout (crash loop)',
      expect.stringMatching(
        /^ {2}Action: {8}Roll back Deployment shop\/checkout from revision 3 .* — executed: approved by local, executed by investigator$/,
      ),
      expect.stringMatching(/^ {2}Verification: {2}healthy — complete: /),
    ]);
    expect(text).toContain(`  Full report:   ${file} (`);
    expect(text).toContain('--format markdown prints it, --json as JSON)'); // investigate has both
    expect(text.split('\n').length).toBeLessThanOrEqual(7);
    expect(readFileSync(file, 'utf8')).toMatch(/^# Investigation inv_\w+\n[\s\S]*## Evidence/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The approver approved; the requester's call executed (as the audit records them).
    expect(readFileSync(file, 'utf8')).toContain(
      '- Status: executed (approved by local, executed by investigator)',
    );
    expect(report.summary).toMatch(/approved by local \(apr_\w+\) and executed by investigator\./);
  });

  it('colours the summary on a terminal (resolved green, culprit bold, executed and healthy green), not on a pipe', () => {
    const lines = terminal.text().split('\n');
    expect(lines[0]).toMatch(/^\u001b\[1m\u001b\[32m✔ Deployment shop\/checkout.*\u001b\[39m\u001b\[22m$/);
    expect(lines[1]).toBe('  Culprit:       \u001b[1mDeployment shop/checkout (crash loop)\u001b[22m');
    expect(lines[2]).toContain('— \u001b[32mexecuted\u001b[39m: approved by local, executed by investigator');
    expect(lines[3]).toMatch(/^ {2}Verification: {2}\u001b\[32mhealthy\u001b\[39m — /);
    const pipe = capture();
    printReport(report, 'summary', pipe, incident.dataDir);
    expect(pipe.text()).not.toMatch(/\u001b/);
    expect(pipe.text().split('\n')[0]).toMatch(/^✔ Deployment shop\/checkout/);
  });

  it('--format markdown and json print the full report whatever stdout is', () => {
    const markdown = capture();
    printReport(report, 'markdown', markdown, incident.dataDir);
    expect(markdown.text()).toMatch(/^# Investigation inv_\w+\n/);
    const json = capture();
    printReport(report, 'json', json, incident.dataDir);
    expect(JSON.parse(json.text())).toMatchObject({ id: report.id });
  });
});
