/**
 * Config errors (issue 14): the kubelet cannot create a container because a ConfigMap or Secret it
 * references — or a key in it — does not exist (CreateContainerConfigError; the kubelet's `Failed`
 * event "Error: couldn't find key KEY in ConfigMap ns/name", or "Error: configmap \"name\" not
 * found"). When the newest revision, rolled out recently, introduced that reference (an env var
 * `from ConfigMap name key KEY`, or an `envFrom`), the change is the cause: roll back to the newest
 * healthy revision. Otherwise every revision needs the object or key: refused (`missing-config-key`)
 * with the fix — Sentinel does not write ConfigMaps or Secrets. Pure.
 */
import {
  decision,
  minutesAgo,
  revisionLabel,
  rollbackTo,
  type Analysis,
  type FailureClass,
} from './context.ts';
import { noteFailure } from './failures.ts';

/** What the container config error names: the object (`ConfigMap shop/x`) and, for a missing key, the key. */
export interface MissingConfig {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  /** `ConfigMap shop/payments-config`. */
  object: string;
  /** Undefined when the object itself is missing. */
  key?: string;
}

const MISSING_KEY = /couldn't find key (\S+) in (ConfigMap|Secret) ([^/\s]+)\/([^\s,;]+)/;
const MISSING_OBJECT = /\b(configmap|secret) "([^"]+)" not found/i;

/** The missing ConfigMap, Secret or key the kubelet's events about the failing Pods name, if any. */
export function missingConfig(a: Analysis): MissingConfig | undefined {
  for (const e of a.events) {
    const key = MISSING_KEY.exec(e.message);
    if (key) {
      const [, name, kind, namespace, object] = key as unknown as [
        string,
        string,
        MissingConfig['kind'],
        string,
        string,
      ];
      return { kind, name: object, object: `${kind} ${namespace}/${object}`, key: name };
    }
    const missing = MISSING_OBJECT.exec(e.message);
    if (missing) {
      const kind = missing[1]!.toLowerCase() === 'secret' ? 'Secret' : 'ConfigMap';
      return { kind, name: missing[2]!, object: `${kind} ${a.namespace}/${missing[2]!}` };
    }
  }
  return undefined;
}

/** The newest revision's change that introduced a reference to `missing` (an env var from it, an envFrom). */
function introducedBy(a: Analysis, missing: MissingConfig) {
  const from = `from ${missing.kind} ${missing.name}${missing.key === undefined ? '' : ` key ${missing.key}`}`;
  return (a.newest?.changes ?? []).find(
    (c) =>
      (c.kind === 'env' && typeof c.to === 'string' && c.to.startsWith(from) && c.from !== c.to) ||
      (c.kind === 'container' && c.key === 'envFrom' && String(c.to ?? '').includes(`"${missing.name}"`)),
  );
}

/** The exact diagnosis clause of a config error (starting with "; "), facts recorded. */
export function configKeyDiagnosis(a: Analysis): string {
  const missing = missingConfig(a);
  if (!missing) return '';
  noteFailure(a, missing.key === undefined ? 'missing_config_object' : 'missing_config_key');
  a.facts.config_object = missing.object;
  if (missing.key !== undefined) a.facts.config_key = missing.key;
  return missing.key === undefined
    ? `; its containers reference ${missing.object}, which does not exist (CreateContainerConfigError)`
    : `; its containers reference key ${missing.key} of ${missing.object}, which has no such key (CreateContainerConfigError)`;
}

export const configKey: FailureClass = (a) => {
  if (a.cause !== 'config_error') return undefined;
  const exact = configKeyDiagnosis(a);
  const missing = missingConfig(a);
  if (!missing) return undefined;
  const what = missing.key === undefined ? missing.object : `key ${missing.key} in ${missing.object}`;
  const introduced = introducedBy(a, missing);
  if (introduced && a.recentChange && a.newest) {
    a.facts.changed_field = introduced.key ?? introduced.kind;
    if (introduced.to !== null) a.facts.changed_to = introduced.to;
    const change = `revision ${a.newest.revision}, rolled out ${minutesAgo(a.now, a.rolledOut)}, introduced the reference (${introduced.text})`;
    if (!a.target) {
      return decision(
        a,
        'refused',
        `${a.what}${exact}: ${change}, and no earlier revision is known to be healthy.`,
        `Create ${what}, or fix the reference forward; no earlier revision has a healthy record to return to.`,
        { refusal: 'no-healthy-revision' },
      );
    }
    return decision(
      a,
      'rollback',
      `${a.what}${exact}: ${change}; ${revisionLabel(a.target)} was healthy.`,
      `Only the new revision needs ${what}; rolling back to revision ${a.target.revision} returns to a template whose configuration exists. To ship the change, create ${what} first.`,
      { remediation: rollbackTo(a, a.target.revision) },
    );
  }
  return decision(
    a,
    'refused',
    `${a.what}${exact}; the reference is not new (no recent revision introduced it), so the object or key was removed or never created.`,
    `Every revision needs ${what}: a rollback or a restart recreates the same error. Fix: add ${what} (\`kubectl edit ${missing.kind.toLowerCase()} ${missing.name} -n ${a.namespace}\`), or mark the reference optional. Sentinel does not change ConfigMaps or Secrets.`,
    { refusal: 'missing-config-key' },
  );
};
