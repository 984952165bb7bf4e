/**
 * Read snapshots: the Kubernetes reads shared by the tool calls that name the same snapshot id
 * (`_meta.read_snapshot` of `tools/call`). A client that wants one consistent view of the cluster
 * over several calls — the local investigator's triage, evidence, logs and preview — names a
 * snapshot; then each distinct read is sent to the API server once and every call of the snapshot
 * gets a copy of its answer: the same Deployment read by `get_deployment`, `get_rollout_history` and
 * `list_pods` is one `GET`; a list with a label selector is answered from the same snapshot's
 * list of the whole namespace, filtered as the API server filters (`Selector.Matches`), and one Pod
 * (Service, StatefulSet, DaemonSet) from its namespace's list when the snapshot has it.
 *
 * A snapshot belongs to the identity and cluster it was read for (server/pipeline.ts `snapshotKey`).
 * Never used for what needs fresh data: the pipeline hands a snapshot only to read tools and to
 * dry runs the caller asked for — never to the gate's resolution of a change, its re-check, or an
 * execution — and every write through the server drops every snapshot. A snapshot lives at most
 * `maxAgeMs` (default 120 s) from its first read, then the next call under its id starts a new one;
 * at most `maxSnapshots` (default 2) are kept, oldest dropped first. Failed reads are not kept.
 */
import { matchesLabels, parseLabelSelector, type KubeReader, type LabelRequirement } from '../tools/index.ts';
import { copyOf, propertyNames } from './run-tool.ts';

/** Longest snapshot id, and its characters (an id is an opaque client token, e.g. an investigation id). */
export const READ_SNAPSHOT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface SnapshotReadsOptions {
  /** Snapshots kept at once (default 2). */
  maxSnapshots?: number;
  /** Wall ms a snapshot serves from its first read (default 120 000). */
  maxAgeMs?: number;
  /** Epoch ms (tests). */
  now?: () => number;
}

export interface SnapshotReads {
  /** `reader` with its reads shared by every call naming `snapshot`. */
  reader(snapshot: string, reader: KubeReader): KubeReader;
  /** Drops every snapshot: after a write, nothing read before it is served again. */
  forget(): void;
}

/** Reads answered by the `…AsSent` read (a sanitized copy of the sent object serves both). */
const AS_SENT: Record<string, string> = {
  getDeployment: 'getDeploymentAsSent',
  listReplicaSets: 'listReplicaSetsAsSent',
};

/**
 * Reads of one object answered from the snapshot's list of its namespace (the item of that name),
 * for objects read as their lists are (no `…AsSent` variant apart).
 */
const GET_FROM_LIST: Record<string, string> = {
  getPod: 'listPods',
  getService: 'listServices',
  getStatefulSet: 'listStatefulSets',
  getDaemonSet: 'listDaemonSets',
};

interface Snapshot {
  created: number;
  answers: Map<string, Promise<unknown>>;
}

type ListOptionsLike = { labelSelector?: unknown; fieldSelector?: unknown } | undefined;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The cache key of a read: method, namespace and selectors for a list (page size does not matter). */
function keyOf(
  method: string,
  args: unknown[],
  selector = text((args[1] as ListOptionsLike)?.labelSelector),
) {
  if (!method.startsWith('list')) return `${method}\0${JSON.stringify(args)}`;
  const options = args[1] as ListOptionsLike;
  return `${method}\0${text(args[0])}\0${selector}\0${text(options?.fieldSelector)}`;
}

/** The requirements of a list's label selector, when it can be answered from the unselected list. */
function derivable(method: string, args: unknown[]): LabelRequirement[] | undefined {
  const options = args[1] as ListOptionsLike;
  if (!method.startsWith('list') || text(options?.fieldSelector) || !text(options?.labelSelector)) return;
  try {
    return parseLabelSelector(text(options?.labelSelector));
  } catch {
    return undefined; // the API server's own error is the one to show
  }
}

function labelsOf(item: unknown): Record<string, string> | undefined {
  return (item as { metadata?: { labels?: Record<string, string> } } | null)?.metadata?.labels;
}

/**
 * Creates the server's snapshot store (one per pipeline). See the module comment for what is shared
 * and when it is dropped.
 */
export function createSnapshotReads(options: SnapshotReadsOptions = {}): SnapshotReads {
  const maxSnapshots = options.maxSnapshots ?? 2;
  const maxAgeMs = options.maxAgeMs ?? 120_000;
  const now = options.now ?? Date.now;
  let snapshots = new Map<string, Snapshot>();

  const open = (id: string): Snapshot => {
    const existing = snapshots.get(id);
    if (existing && now() - existing.created < maxAgeMs) return existing;
    snapshots.delete(id);
    while (snapshots.size >= maxSnapshots) snapshots.delete(snapshots.keys().next().value!);
    const fresh: Snapshot = { created: now(), answers: new Map() };
    snapshots.set(id, fresh);
    return fresh;
  };

  return {
    reader(id, reader) {
      const snapshot = open(id);
      const call = (method: string, args: unknown[]): Promise<unknown> =>
        (reader as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!(...args);
      /**
       * `method(args)` answered from what the snapshot read already: a labelled list from the whole
       * list (filtered), one object from its namespace's list (by name; not in it: read it).
       */
      const derived = (method: string, args: unknown[]): Promise<unknown> | undefined => {
        const requirements = derivable(method, args);
        const whole = requirements && snapshot.answers.get(keyOf(method, args, ''));
        if (whole) {
          return whole.then((items) =>
            Array.isArray(items)
              ? items.filter((item) => matchesLabels(labelsOf(item), requirements!))
              : items,
          );
        }
        const list = GET_FROM_LIST[method];
        const listed = list && args.length === 2 && snapshot.answers.get(keyOf(list, [args[0]], ''));
        if (!listed) return undefined;
        return listed.then(
          (items) =>
            (Array.isArray(items) ? items : []).find(
              (item) => (item as { metadata?: { name?: unknown } })?.metadata?.name === args[1],
            ) ?? call(method, args),
        );
      };
      /** The shared answer of `method(args)`: sent once per snapshot, or derived. */
      const shared = (method: string, args: unknown[]): Promise<unknown> => {
        const key = keyOf(method, args);
        let answer = snapshot.answers.get(key);
        if (!answer) {
          answer = derived(method, args) ?? call(method, args);
          snapshot.answers.set(key, answer);
          answer.catch(() => {
            if (snapshot.answers.get(key) === answer) snapshot.answers.delete(key);
          });
        }
        return answer;
      };
      const wrapped: Record<string, unknown> = { cluster: reader.cluster };
      const methods = propertyNames(reader).filter(
        (name) => typeof (reader as unknown as Record<string, unknown>)[name] === 'function',
      );
      for (const name of methods) {
        // Only a reader that has the as-sent read is asked for it (a test's fake may not).
        const asSent = AS_SENT[name];
        const source = asSent && methods.includes(asSent) ? asSent : name;
        wrapped[name] = async (...args: unknown[]) => {
          const answer = await shared(source, args);
          // Every call gets its own copy: handlers may change what they read.
          const copy = copyOf(answer);
          return copy ? copy.value : call(name, args);
        };
      }
      return wrapped as unknown as KubeReader;
    },
    forget() {
      snapshots = new Map();
    },
  };
}
