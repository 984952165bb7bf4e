/**
 * A failing dependency (issue 14): a victim whose logs or events name a host (`postgres:5432`, a URL,
 * a DNS name like `db.shop.svc`) that is a Service of the namespace. The Service's selector leads to
 * the Pods it selects and the workload owning them (`get_service`: Deployment via its ReplicaSet,
 * StatefulSet, DaemonSet), whatever that workload is called. When that workload fails, it is the
 * culprit: the decision is taken on it (same classes), the victim is named as affected, untouched,
 * and the evidence quotes the chain host → Service → workload.
 */
import type { Decision } from '../model.ts';
import type { ServiceView } from '../evidence.ts';
import {
  analyse,
  type Analysis,
  type EvidenceLog,
  type SuspectEvidence,
  type WorkloadKind,
} from './context.ts';

/** From `://` of a URL: the host after any user info. */
const AFTER_SCHEME = /:\/\/(?:[^@\s/]*@)?([a-z0-9.-]+)/gi;
const SCHEME_CHAR = /[a-z0-9+.-]/i;
const LETTER = /[a-z]/i;

/**
 * The hosts of the URLs in `text`, as `/[a-z][a-z0-9+.-]*:\/\/(?:[^@\s/]*@)?([a-z0-9.-]+)/gi` finds
 * them. Matched from `://`, the scheme checked behind it back to where the previous URL ended: that
 * expression started at every letter and rescanned a long run of `a.b.c…` from each, quadratic on a
 * hostile log line (32,000 characters took 0.56 s, 4x as many 16x as long; now 0.7 ms).
 */
function urlHosts(text: string): string[] {
  const hosts: string[] = [];
  let from = 0;
  AFTER_SCHEME.lastIndex = 0;
  for (let m = AFTER_SCHEME.exec(text); m; m = AFTER_SCHEME.exec(text)) {
    if (hasScheme(text, from, m.index)) {
      hosts.push(m[1]!);
      from = AFTER_SCHEME.lastIndex;
    } else AFTER_SCHEME.lastIndex = m.index + 1;
  }
  return hosts;
}

/** Whether `text` before `end` (from `from` on) ends with a scheme: a letter, then scheme characters. */
function hasScheme(text: string, from: number, end: number): boolean {
  for (let i = end - 1; i >= from && SCHEME_CHAR.test(text[i]!); i -= 1)
    if (LETTER.test(text[i]!)) return true;
  return false;
}

/** Hosts a log or event line names: `host:port`, `scheme://host`, first DNS label only, no IPs. */
export function namedHosts(text: string): string[] {
  const hosts = new Set<string>();
  const add = (host: string | undefined) => {
    const label = host?.toLowerCase().split('.')[0];
    if (label && !/^\d+$/.test(label) && label !== 'localhost') hosts.add(label);
  };
  // `postgres://checkout@db:5432/shop`: the host follows the user info.
  for (const host of urlHosts(text)) add(host);
  for (const m of text.matchAll(/(?<![\w/.-])([a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*):\d{2,5}\b/gi)) add(m[1]);
  return [...hosts];
}

/** Lines of the suspect's logs and Warning events that name `host`. */
function linesNaming(suspect: SuspectEvidence, host: string): string[] {
  const lines = [
    ...suspect.logs.flatMap((l) => l.value.log.split('\n')),
    ...(suspect.events?.value ?? []).map((e) => e.message),
  ];
  return lines.filter((line) => namedHosts(line).includes(host));
}

/** Hosts the suspect's logs and Warning events name, in order of first mention. */
export function suspectHosts(suspect: SuspectEvidence): string[] {
  const text = [
    ...suspect.logs.map((l) => l.value.log),
    ...(suspect.events?.value ?? []).map((e) => e.message),
  ].join('\n');
  return namedHosts(text);
}

/**
 * Deployments among `candidates` (names in the namespace) that the suspect's logs or events name as
 * a host, the suspect itself excluded. Name matching only: the investigator follows Services
 * instead (`serviceBackends`); kept for callers without Service evidence.
 */
export function dependencyNames(suspect: SuspectEvidence, candidates: readonly string[]): string[] {
  const hosts = new Set(suspectHosts(suspect));
  return candidates.filter((name) => name !== suspect.name && hosts.has(name));
}

const WORKLOAD_KINDS = new Set<string>(['Deployment', 'StatefulSet', 'DaemonSet']);

/**
 * The workloads behind a Service (`get_service`'s backends that are Deployments, StatefulSets or
 * DaemonSets, most Pods first), the suspect itself excluded: what the investigator gathers
 * evidence about next.
 */
export function serviceBackends(
  service: ServiceView,
  suspect: { kind?: WorkloadKind | undefined; name: string },
): { kind: WorkloadKind; name: string }[] {
  const own = suspect.kind ?? 'Deployment';
  return service.backends
    .filter((b) => WORKLOAD_KINDS.has(b.kind) && !(b.kind === own && b.name === suspect.name))
    .map((b) => ({ kind: b.kind as WorkloadKind, name: b.name }));
}

/** Victim failure modes a broken dependency explains (the process runs, then fails on its peer). */
const DEPENDENT_CAUSES = new Set([
  'crash_loop',
  'container_failed',
  'liveness_kill',
  'startup_kill',
  'probe_failure',
]);

/**
 * The decision about a failing dependency of `victim`, or undefined when the victim changed
 * recently (its own rollout is the suspect) or names no failing dependency. `decideOn` runs the
 * other classes on the dependency.
 */
export function dependencyDecision(
  victim: Analysis,
  dependencies: readonly SuspectEvidence[],
  evidence: EvidenceLog,
  decideOn: (a: Analysis) => Decision,
): Decision | undefined {
  if (victim.recentChange || !victim.cause || !DEPENDENT_CAUSES.has(victim.cause)) return undefined;
  for (const dependency of dependencies) {
    const via = dependency.via;
    const named = linesNaming(victim.suspect, via?.host ?? dependency.name);
    if (named.length === 0) continue;
    const d = analyse(victim.namespace, dependency, victim.now, evidence);
    if (!d.cause) continue;
    const quote = named.at(-1)!.trim().slice(0, 160);
    for (const source of victim.suspect.logs) evidence.add(source.source, quote);
    const service = via && `Service ${victim.namespace}/${via.service.value.name}`;
    if (via) {
      const backend = via.service.value.backends.find(
        (b) => b.kind === d.culprit.kind && b.name === d.culprit.name,
      );
      evidence.add(
        via.service.source,
        `host ${via.host} → ${service} (selector ${via.service.value.selector ?? 'none'}) → ${d.ref}${backend ? `: ${backend.ready}/${backend.pods} Pod(s) ready` : ''}`,
      );
    }
    const inner = decideOn(d);
    d.facts.affected = victim.ref;
    d.facts.dependency_of = victim.suspect.name;
    if (service) d.facts.service = service;
    return {
      ...inner,
      culprit: d.culprit,
      diagnosis: `${victim.what} because a dependency fails: it reports "${quote}", and ${d.ref} behind ${service ? `${service}` : 'that host'} fails — ${inner.diagnosis}`,
      explanation: `${victim.ref} is a victim: its template is unchanged, and what it connects to is failing. ${inner.explanation}${inner.remediation ? ` The remediation targets ${d.ref}; ${victim.ref} is left untouched and should recover once it can connect.` : ''}`,
      evidence: evidence.lines,
      facts: { ...d.facts },
    };
  }
  return undefined;
}
