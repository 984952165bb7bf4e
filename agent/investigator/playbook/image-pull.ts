/**
 * Image pulls by cause (issue 14), from the kubelet's events about the failing Pods (in its words,
 * pkg/kubelet/images/image_manager.go and kubelet_pods.go; the CRI error is containerd's):
 * - `FailedToRetrieveImagePullSecret` "Unable to retrieve some image pull secrets (a, b); …": the
 *   Pods name a pull secret the namespace lacks → `missing_pull_secret` (`pull_secret`);
 * - the newest revision dropped an `imagePullSecrets` entry → `missing_pull_secret`, the removed one;
 * - `Failed to pull image "x": … 401 Unauthorized` / `403 Forbidden` (or "pull access denied",
 *   "authorization failed"): the registry refuses the credentials → `pull_unauthorized` (`registry`,
 *   `registry_status`);
 * - `… not found` / `manifest unknown` → `image_not_found` (`image`).
 * With a recent rollout the rollout class rolls back (this clause words its diagnosis); with an
 * unchanged template the `imagePull` class refuses: a rollback or restart pulls the same image with
 * the same credentials. Pure.
 */
import { decision, minutesAgo, type Analysis, type FailureClass } from './context.ts';
import { noteFailure } from './failures.ts';

const PULL_FAILED = /^Failed to pull image "([^"]+)": (.*)$/s;
const REFUSED = /\b(401|403)\b|unauthorized|forbidden|pull access denied|authorization failed/i;
const NOT_FOUND = /not found|manifest unknown|NotFound/;

const MISSING_SECRETS = 'Unable to retrieve some image pull secrets (';

/**
 * The secret names the kubelet lists in `message` (`Unable to retrieve some image pull secrets
 * (a, b)`), as `/Unable to retrieve some image pull secrets \(([^)]*)\)/` finds them, or undefined.
 * Not that expression: it scanned to the end of the message from each of many prefixes with no `)`
 * after them, quadratic on a hostile event message (32,000 characters took 20 ms, 128,000 took
 * 0.33 s; now 0.03 ms). With no `)` after the first prefix, there is none after a later one.
 */
export function missingPullSecrets(message: string): string | undefined {
  const start = message.indexOf(MISSING_SECRETS);
  if (start < 0) return undefined;
  const end = message.indexOf(')', start + MISSING_SECRETS.length);
  return end < 0 ? undefined : message.slice(start + MISSING_SECRETS.length, end);
}

type Change = NonNullable<Analysis['newest']>['changes'][number];

/** Records `c` as `changed_field`, `changed_from`, `changed_to` (as ./facts.ts's noteChange, without the import cycle). */
function noteChange(a: Analysis, [c]: [Change]): void {
  a.facts.changed_field = c.key ?? c.kind;
  if (c.from !== null) a.facts.changed_from = c.from;
  if (c.to !== null) a.facts.changed_to = c.to;
}

/** The registry host of `image` (`docker.io` for a short name). */
function registryOf(image: string): string {
  const first = image.split('/')[0]!;
  return image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')
    ? first
    : 'docker.io';
}

/** Secret names in a rendered `imagePullSecrets` value (`[{"name":"regcred"}]`). */
function secretNames(value: string | number | boolean | null | undefined): string[] {
  if (typeof value !== 'string') return [];
  return [...value.matchAll(/"name":\s*"([^"]+)"/g)].map((m) => m[1]!);
}

/** The newest revision's change of `imagePullSecrets` or of an image, when it rolled out recently. */
function recentChange(a: Analysis, key: 'imagePullSecrets' | 'image') {
  if (!a.recentChange) return undefined;
  return (a.newest?.changes ?? []).find((c) =>
    key === 'image' ? c.kind === 'image' : c.kind === 'pod_spec' && c.key === key,
  );
}

/**
 * The exact diagnosis clause of an image pull (starting with "; ", or "" when the events say
 * nothing about why), recording `failure` and the facts named in the module comment.
 */
export function imagePullDiagnosis(a: Analysis): string {
  const messages = a.events.map((e) => e.message);
  const pull = messages.map((m) => PULL_FAILED.exec(m)).find((m) => m !== null);
  const image = pull?.[1];
  const error = pull?.[2] ?? messages.join('\n');
  const refused = REFUSED.test(error);
  const missing = messages.map(missingPullSecrets).find((m) => m !== undefined);
  const secretChange = recentChange(a, 'imagePullSecrets');
  if (missing !== undefined) {
    const names = missing
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    noteFailure(a, 'missing_pull_secret');
    if (names[0]) a.facts.pull_secret = names[0];
    if (secretChange) noteChange(a, [secretChange]);
    return `; image pull secret ${names.join(', ')} does not exist in namespace ${a.namespace} (FailedToRetrieveImagePullSecret), so the registry refuses the pull${refused ? ' (unauthorized)' : ''}${secretChange ? ` — revision ${a.newest!.revision} changed imagePullSecrets ${secretChange.from ?? '(none)'} → ${secretChange.to ?? '(none)'}` : ''}`;
  }
  if (secretChange && secretChange.from !== null) {
    const after = new Set(secretNames(secretChange.to));
    const removed = secretNames(secretChange.from).filter((n) => !after.has(n));
    if (removed.length > 0) {
      noteFailure(a, 'missing_pull_secret');
      a.facts.pull_secret = removed[0]!;
      noteChange(a, [secretChange]);
      return `; revision ${a.newest!.revision} removed image pull secret ${removed.join(', ')}, so the registry refuses the pull${refused ? ' (unauthorized)' : ''}`;
    }
  }
  const imageChange = recentChange(a, 'image');
  const changed = imageChange
    ? ` — revision ${a.newest!.revision} changed the image ${imageChange.from ?? '(none)'} → ${imageChange.to ?? '(none)'}`
    : '';
  if (refused) {
    noteFailure(a, 'pull_unauthorized');
    const status = /\b(401|403)\b/.exec(error)?.[1];
    const registry = image ? registryOf(image) : undefined;
    if (image) a.facts.image = image;
    if (registry) a.facts.registry = registry;
    if (status) a.facts.registry_status = Number(status);
    if (imageChange) noteChange(a, [imageChange]);
    const statusText =
      status === '403' ? '403 Forbidden' : status === '401' ? '401 Unauthorized' : 'unauthorized';
    return `; registry ${registry ?? '?'} refuses the pull${image ? ` of ${image}` : ''} (${statusText}): the Pods' image pull secrets do not grant access to it${changed}`;
  }
  if (NOT_FOUND.test(error)) {
    noteFailure(a, 'image_not_found');
    if (image) a.facts.image = image;
    if (imageChange) noteChange(a, [imageChange]);
    return `; image ${image ?? '(its tag)'} does not exist in the registry${changed}`;
  }
  return '';
}

const REFUSAL = {
  missing_pull_secret: {
    refusal: 'missing-pull-secret',
    explanation:
      'The Pods name an image pull secret the namespace lacks, and the template has not changed recently: a rollback or a restart pulls with the same missing secret. Create the Secret (`kubectl create secret docker-registry …`) or fix the name in imagePullSecrets; Sentinel does not write Secrets.',
  },
  pull_unauthorized: {
    refusal: 'pull-unauthorized',
    explanation:
      'The registry refuses the credentials, and the template has not changed recently: a rollback or a restart pulls with the same credentials. Renew the image pull secret (an expired token, a rotated password) or grant it access to the repository; Sentinel does not write Secrets.',
  },
  image_not_found: {
    refusal: 'image-not-found',
    explanation:
      'The image does not exist in the registry, and the template has not changed recently: it was deleted or retagged there. Push the image again or point the Deployment at one that exists.',
  },
} as const;

/** An image pull with an unchanged template: refused by cause, saying what to fix. */
export const imagePull: FailureClass = (a) => {
  if (a.cause !== 'image_pull' || a.recentChange) return undefined;
  const exact = imagePullDiagnosis(a);
  const failure = a.facts.failure as keyof typeof REFUSAL | undefined;
  const refusal = failure && failure in REFUSAL ? REFUSAL[failure] : undefined;
  if (!refusal) return undefined;
  return decision(
    a,
    'refused',
    `${a.what}${Number.isFinite(a.failureStart) ? ` since ${minutesAgo(a.now, a.failureStart)}` : ''}${exact}; nothing changed recently.`,
    refusal.explanation,
    { refusal: refusal.refusal },
  );
};
