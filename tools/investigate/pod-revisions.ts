/**
 * The revision a StatefulSet's or DaemonSet's Pod runs (issue 15): the number of the
 * ControllerRevision its `controller-revision-hash` label names, fetching only those revisions.
 *
 * The controllers label differently (k8s.io/kubernetes pkg/controller): a StatefulSet Pod's
 * `controller-revision-hash` is the revision's *name* `<set>-<hash>` (stateful_set_utils.go
 * `setPodRevision`), and the revision carries the bare hash in `controller.kubernetes.io/hash`
 * (history/controller_history.go `NewControllerRevision`); a DaemonSet Pod's label is the bare hash,
 * and so is its revision's `controller-revision-hash` label, the revision named `<ds>-<hash>`
 * (daemon/update.go `snapshot`). So one list per kind, `<hash label> in (<the Pods' hashes>)`,
 * selects exactly the revisions the Pods run.
 */
import {
  CONTROLLER_REVISION_HASH_LABEL,
  HISTORY_HASH_LABEL,
  controllerOf,
  type ControllerRevision,
  type KubeReader,
  type Pod,
} from '../kube/index.ts';

/** A label value the API server accepts; only such values go into a selector. */
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** A Pod's owner and the hash its label names, when a StatefulSet or DaemonSet controls it. */
function labelled(
  pod: Pod,
):
  { kind: 'StatefulSet' | 'DaemonSet'; owner: string; uid: string; label: string; hash: string } | undefined {
  const owner = controllerOf(pod.metadata);
  const label = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  if (!owner || !label || (owner.kind !== 'StatefulSet' && owner.kind !== 'DaemonSet')) return undefined;
  const hash =
    owner.kind === 'StatefulSet' && label.startsWith(`${owner.name}-`)
      ? label.slice(owner.name.length + 1)
      : label;
  return LABEL_VALUE.test(hash)
    ? { kind: owner.kind, owner: owner.name, uid: owner.uid, label, hash }
    : undefined;
}

/**
 * The ControllerRevisions the StatefulSet and DaemonSet Pods among `pods` run: at most one list per
 * kind, selected by hash; none when no such Pod is labelled. Errors: the Kubernetes layer's.
 */
export async function podControllerRevisions(
  kube: KubeReader,
  namespace: string,
  pods: readonly Pod[],
): Promise<ControllerRevision[]> {
  const hashes = { StatefulSet: new Set<string>(), DaemonSet: new Set<string>() };
  for (const pod of pods) {
    const found = labelled(pod);
    if (found) hashes[found.kind].add(found.hash);
  }
  const lists = await Promise.all(
    (
      [
        [HISTORY_HASH_LABEL, hashes.StatefulSet],
        [CONTROLLER_REVISION_HASH_LABEL, hashes.DaemonSet],
      ] as const
    )
      .filter(([, set]) => set.size > 0)
      .map(([key, set]) =>
        kube.listControllerRevisions(namespace, {
          labelSelector: `${key} in (${[...set].sort().join(',')})`,
        }),
      ),
  );
  return lists.flat();
}

/**
 * The `revision` number of the ControllerRevision `pod` runs, among `revisions`: one its controller
 * owns (by controller reference uid), named by the Pod's label (StatefulSet) or `<ds>-<hash>`
 * (DaemonSet). Undefined when the Pod is not a StatefulSet's or DaemonSet's, or none matches.
 */
export function podRevision(pod: Pod, revisions: readonly ControllerRevision[]): number | undefined {
  const found = labelled(pod);
  if (!found) return undefined;
  const name = found.kind === 'StatefulSet' ? found.label : `${found.owner}-${found.hash}`;
  return revisions.find(
    (revision) => revision.metadata?.name === name && controllerOf(revision.metadata)?.uid === found.uid,
  )?.revision;
}
