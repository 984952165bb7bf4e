/**
 * Issue 13, finding 1: a container image, env value, change-cause, annotation and log line carrying
 * terminal escapes (`checkout:2.4.0 ESC]0;pwned BEL ESC[8m`, `ESC[2J`) and a bidi override, in a
 * simulated cluster, reach neither the tools' text and structuredContent, nor the investigator's
 * report and approval block (`sentinel investigate`), nor the approvals page — they show as visible
 * escapes — while the rollback writes the image back exactly as the cluster had it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SCENARIOS_DIR } from '../../deploy/sim/index.ts';
import { investigateLocally } from '../../agent/investigator/investigate-local.ts';
import { pageItem } from '../../server/ui/page.ts';
import { renderApprovalText } from '../../server/render/index.ts';
import { approvalMessage } from '../../server/notify/slack-message.ts';
import { capture, startIncident, type Incident } from '../helpers/incident.ts';
import { connectClient } from '../helpers/server.ts';
import {
  BIDI_PAYLOAD,
  BIDI_VISIBLE,
  CLEAR_PAYLOAD,
  CLEAR_VISIBLE,
  IMAGE_PAYLOAD,
  IMAGE_VISIBLE,
  expectClean,
} from '../helpers/escapes.ts';

const REGISTRY = 'registry.example.com/shop/';

/** bad-image-rollout with the payloads in revision 2's image and change-cause, an env value, an annotation and a log line. */
function poisonedScenario(): Record<string, unknown> {
  const scenario = parse(readFileSync(join(SCENARIOS_DIR, 'bad-image-rollout.yaml'), 'utf8')) as {
    deployments: {
      manifest: {
        metadata: { annotations: Record<string, string> };
        spec: { template: { spec: { containers: { env: unknown[] }[] } } };
      };
      changes: {
        changeCause?: string;
        patch: { spec: { template: { spec: { containers: { image: string }[] } } } };
      }[];
    }[];
    fates: { fate: { logs?: string[] } }[];
  };
  const checkout = scenario.deployments[0]!;
  checkout.manifest.metadata.annotations['team.example.com/owner'] = `payments ${BIDI_PAYLOAD}`;
  checkout.manifest.spec.template.spec.containers[0]!.env.push({
    name: 'BANNER',
    value: `hello${CLEAR_PAYLOAD}`,
  });
  const revision2 = checkout.changes[0]!;
  revision2.changeCause = `deploy ${IMAGE_PAYLOAD}`;
  revision2.patch.spec.template.spec.containers[0]!.image = `${REGISTRY}${IMAGE_PAYLOAD}`;
  scenario.fates[0]!.fate.logs!.push(`${CLEAR_PAYLOAD}{"level":"fatal","msg":"title${IMAGE_PAYLOAD}"}`);
  return scenario as unknown as Record<string, unknown>;
}

interface ToolAnswer {
  text: string;
  structured: unknown;
}

describe('terminal escapes from the cluster (issue 13, finding 1)', { timeout: 240_000 }, () => {
  let incident: Incident;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => {
    const result = (await client.callTool({ name, arguments: args })) as {
      content: { type: string; text?: string }[];
      structuredContent?: unknown;
      isError?: boolean;
    };
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    return {
      text: result.content.map((part) => part.text ?? '').join('\n'),
      structured: result.structuredContent,
    };
  };

  beforeAll(async () => {
    incident = await startIncident(poisonedScenario());
    client = await connectClient(incident.server.url, incident.server.token);
  });
  afterAll(async () => {
    await client?.close();
    await incident?.close();
  });

  it('get_deployment, triage_namespace, list_events, get_rollout_history and get_pod_logs show the escapes, never the bytes', async () => {
    const answers: [string, ToolAnswer][] = [];
    const ask = async (name: string, args: Record<string, unknown>) => {
      const answer = await call(name, args);
      answers.push([name, answer]);
      return answer;
    };
    const history = await ask('get_rollout_history', { namespace: 'shop', name: 'checkout' });
    expect(history.text).toContain(IMAGE_VISIBLE);
    const deployment = await ask('get_deployment', { namespace: 'shop', name: 'checkout' });
    expect(deployment.text).toContain(CLEAR_VISIBLE);
    expect(JSON.stringify(deployment.structured)).toContain(
      JSON.stringify(`hello${CLEAR_VISIBLE}`).slice(1, -1),
    );
    expect(deployment.text).toContain(BIDI_VISIBLE);
    const triage = await ask('triage_namespace', { namespace: 'shop' });
    const events = await ask('list_events', { namespace: 'shop' });
    const pods = await ask('list_pods', { namespace: 'shop' });
    const crashing = (pods.structured as { pods: { name: string; restarts: number }[] }).pods.find(
      (pod) => pod.restarts > 0,
    );
    expect(crashing).toBeDefined();
    const logs = await ask('get_pod_logs', { namespace: 'shop', pod: crashing!.name, previous: true });
    expect(logs.text).toContain(CLEAR_VISIBLE);
    expect(logs.text).toContain(IMAGE_VISIBLE);
    await ask('list_deployments', { namespace: 'shop' });
    await ask('get_rollout_status', { namespace: 'shop', name: 'checkout' });
    expect(triage.text.length + events.text.length).toBeGreaterThan(0);
    for (const [name, answer] of answers) {
      expectClean(answer.text, `${name} text`);
      expectClean(JSON.stringify(answer.structured), `${name} structuredContent`);
    }
  });

  it('sentinel investigate: the report, the approval block and the page show the escapes; the rollback restores the exact image', async () => {
    const stdout = capture();
    const stderr = capture();
    const report = await investigateLocally(
      'checkout returns 502',
      {
        namespace: 'shop',
        server: `${incident.server.url}/mcp`,
        token: incident.server.token,
        dataDir: incident.dataDir,
        yes: true,
        confirm: ['checkout'],
      },
      { stdout, stderr, interactive: false },
    );
    expect(report.action).toMatchObject({ kind: 'rollback', status: 'executed' });
    expectClean(stdout.text(), 'report (stdout)');
    expectClean(stderr.text(), 'progress and approval block (stderr)');
    // The approval block names the target image visibly, right where the human decides.
    expect(stderr.text()).toContain(`to revision 2 (${REGISTRY}${IMAGE_VISIBLE})`);
    expect(stderr.text()).toContain('Approving (--yes).');
    expect(stdout.text()).toContain(IMAGE_VISIBLE);

    const request = await incident.approvals.get(report.action.approval_request_id!);
    expectClean(JSON.stringify(request), 'approval request (approvals API)');
    expectClean(renderApprovalText(request), 'approval text');
    expectClean(pageItem(request, new Date()).html, 'approvals page');
    expectClean(JSON.stringify(approvalMessage(request, 'http://127.0.0.1:1/ui/approvals')), 'notification');

    // The pod template written back is what the cluster had, not the visible escapes (the
    // change-cause Sentinel composes quotes the visible form).
    const [template] = incident.mutations()[0]!.patch as { path: string; value: unknown }[];
    expect(template!.path).toBe('/spec/template');
    const written = JSON.stringify(template!.value);
    expect(written).toContain(JSON.stringify(`${REGISTRY}${IMAGE_PAYLOAD}`));
    expect(written).toContain(JSON.stringify(`hello${CLEAR_PAYLOAD}`));
    expect(written).not.toContain('\\\\x1b');
  });
});
