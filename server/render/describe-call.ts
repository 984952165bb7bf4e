/**
 * One sentence for a tool call when no dry-run preview is at hand (the harness client renders the
 * model's tool call before the server has resolved it; a request for a tool without dry runs has no
 * preview). With a preview, the tool's own `summary` is better: it names the concrete revisions and
 * images (see `approvalSentence`).
 */
import { oneLine, redactValue } from '../../tools/light.ts';

/** Longest sentence shown, in characters; longer ones are cut with `…`. */
export const MAX_SENTENCE = 300;

type Args = Record<string, unknown>;

const text = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '?' : JSON.stringify(value);

const target = (args: Args): string => `${text(args.namespace)}/${text(args.name)}`;

/** The workload kind a call names (`kind`; absent: Deployment). */
const kind = (args: Args): string => (typeof args.kind === 'string' ? args.kind : 'Deployment');

const plural = (count: unknown, noun: string): string => `${text(count)} ${noun}${count === 1 ? '' : 's'}`;

/** Sentence builders of the remediation tools (issue 5), keyed by tool name. */
const SENTENCES: Record<string, (args: Args) => string> = {
  rollback_deployment: (args) =>
    `Roll back ${kind(args)} ${target(args)} to ${
      args.to_revision === undefined || args.to_revision === 0
        ? 'its previous revision'
        : `revision ${text(args.to_revision)}`
    }`,
  restart_service: (args) =>
    `Restart the Pods of ${typeof args.kind === 'string' ? `${args.kind} ` : ''}${target(args)} (rolling restart, as \`kubectl rollout restart\`)`,
  scale_deployment: (args) => `Scale ${kind(args)} ${target(args)} to ${plural(args.replicas, 'replica')}`,
  pause_rollout: (args) => `Pause the rollout of Deployment ${target(args)}`,
  resume_rollout: (args) => `Resume the rollout of Deployment ${target(args)}`,
  delete_pod: (args) =>
    `Delete Pod ${target(args)}${
      args.grace_period_seconds === 0
        ? ' at once (force: grace period 0)'
        : args.grace_period_seconds === undefined
          ? ''
          : ` with a grace period of ${text(args.grace_period_seconds)} s`
    }`,
};

/** Arguments that say nothing about what a call does. */
const NOT_SHOWN = new Set(['dry_run', 'reason', 'idempotency_key', 'evidence', 'investigation']);

/**
 * `name=value` pairs of a call's arguments, sorted by name, without `dry_run`, `reason` and
 * `idempotency_key`; values redacted. E.g. `name=checkout namespace=shop to_revision=6`.
 */
export function formatArguments(args: Args): string {
  const { value } = redactValue(args);
  return Object.keys(value)
    .filter((key) => !NOT_SHOWN.has(key))
    .sort()
    .map((key) => `${key}=${text(value[key])}`)
    .join(' ');
}

/**
 * One redacted line saying what `tool` called with `args` would do, e.g. "Roll back Deployment
 * shop/checkout to revision 6", or "Call unknown_tool with a=1" for a tool without a builder.
 * A dry run says so ("Preview only (dry run): ..."). At most `MAX_SENTENCE` characters.
 */
export function describeToolCall(tool: string, args: Args): string {
  const { value } = redactValue(args);
  const build = SENTENCES[tool];
  const described = build
    ? build(value)
    : `Call ${tool}${Object.keys(value).length > 0 ? ` with ${formatArguments(value)}` : ''}`;
  return oneLine(value.dry_run === true ? `Preview only (dry run): ${described}` : described, MAX_SENTENCE);
}
