/**
 * The configuration a container is created from, checked as the kubelet's
 * `makeEnvironmentVariables` (pkg/kubelet/kubelet_pods.go) builds it: every `envFrom` ConfigMap or
 * Secret, and every `env[].valueFrom.configMapKeyRef` / `secretKeyRef` key, must exist unless marked
 * `optional`. The first missing one is the error the container waits on (CreateContainerConfigError),
 * in the kubelet's words: `configmap "name" not found` (the configmap manager's NotFound, singular
 * resource), `couldn't find key KEY in ConfigMap ns/name`, and likewise for Secrets.
 */
import type { ObjectStore } from '../store.ts';
import type { Container, KubeObject, Pod } from '../types.ts';

interface KeyRef {
  name?: string;
  key?: string;
  optional?: boolean;
}

interface SourceRef {
  name?: string;
  optional?: boolean;
}

type Source = { kind: 'ConfigMap'; storage: 'configmaps' } | { kind: 'Secret'; storage: 'secrets' };

const CONFIG_MAP: Source = { kind: 'ConfigMap', storage: 'configmaps' };
const SECRET: Source = { kind: 'Secret', storage: 'secrets' };

/** The keys an object holds: a ConfigMap's `data`; a Secret's `data` and (not yet folded in) `stringData`. */
function keysOf(object: KubeObject, source: Source): Set<string> {
  const record = object as unknown as Record<string, Record<string, unknown> | undefined>;
  return new Set([
    ...Object.keys(record['data'] ?? {}),
    ...(source === SECRET ? Object.keys(record['stringData'] ?? {}) : []),
  ]);
}

/**
 * Why `container` of `pod` cannot be created from its configuration, in the kubelet's words; undefined
 * when every ConfigMap, Secret and key it references (non-optionally) exists in the Pod's namespace.
 */
export function containerConfigError(store: ObjectStore, pod: Pod, container: Container): string | undefined {
  const namespace = pod.metadata.namespace ?? 'default';
  const find = (source: Source, name: string) => store.peekOne<KubeObject>(source.storage, namespace, name);
  const notFound = (source: Source, name: string) => `${source.kind.toLowerCase()} "${name}" not found`;
  const envFrom = (container['envFrom'] ?? []) as { configMapRef?: SourceRef; secretRef?: SourceRef }[];
  for (const entry of envFrom) {
    const [source, ref] = entry.configMapRef ? [CONFIG_MAP, entry.configMapRef] : [SECRET, entry.secretRef];
    if (!ref?.name || ref.optional) continue;
    if (!find(source, ref.name)) return notFound(source, ref.name);
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom as { configMapKeyRef?: KeyRef; secretKeyRef?: KeyRef } | undefined;
    const [source, ref] = from?.configMapKeyRef
      ? [CONFIG_MAP, from.configMapKeyRef]
      : [SECRET, from?.secretKeyRef];
    if (!ref?.name || ref.key === undefined) continue;
    const object = find(source, ref.name);
    if (!object) {
      if (ref.optional) continue;
      return notFound(source, ref.name);
    }
    if (!keysOf(object, source).has(ref.key) && !ref.optional) {
      return `couldn't find key ${ref.key} in ${source.kind} ${namespace}/${ref.name}`;
    }
  }
  return undefined;
}
