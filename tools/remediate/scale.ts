/**
 * What scaling a Deployment (`planScale`) and a StatefulSet (`planStatefulSetScale`) share: the
 * summary and change a plan shows, and sending the scale the way `kubectl scale
 * deployment|statefulset/<name> --replicas=N` does — the merge patch `{"spec":{"replicas":N}}` on
 * `<resource>/<name>/scale` — with Sentinel's attribution annotations set first and put back when
 * the API server refuses the scale.
 */
import { SentinelError } from '../errors.ts';
import type { KubeWriter, WriteOptions } from '../kube/index.ts';
import { annotationPatch, FIELD_MANAGER } from './attribution.ts';
import type { Change } from './changes.ts';
import { outcomeUnknown } from './run.ts';
import type { ScaledKind } from './warnings.ts';

/** What is scaled: its kind, where, how the messages name it, and its annotations as read. */
export interface ScaleTarget {
  kind: ScaledKind;
  namespace: string;
  name: string;
  /** `Deployment shop/web`, as errors name it. */
  ref: string;
  annotations: Record<string, string> | undefined;
}

/**
 * A plan's summary and changes for scaling `ref` (`Deployment shop/web`) from `from` to `to`
 * replicas: `Scale … from 3 to 5 replicas` and the `spec.replicas` change, or, for equal counts,
 * `… already has 3 replicas` and no change.
 */
export function scaleSummary(ref: string, from: number, to: number): { summary: string; changes: Change[] } {
  const replicas = `${to} replica${to === 1 ? '' : 's'}`;
  if (from === to) return { summary: `${ref} already has ${replicas}`, changes: [] };
  return {
    summary: `Scale ${ref} from ${from} to ${replicas}`,
    changes: [{ kind: 'replicas', from, to, text: `spec.replicas: ${from} → ${to}` }],
  };
}

type Patch = (patch: Record<string, unknown>, options: WriteOptions) => Promise<unknown>;

/** The strategic merge patch of the object and the merge patch of its `scale` subresource, for `kind`. */
function patchesOf(
  writer: KubeWriter,
  { kind, namespace, name }: ScaleTarget,
): { object: Patch; scale: Patch } {
  return kind === 'Deployment'
    ? {
        object: (patch, options) => writer.patchDeploymentStrategic(namespace, name, patch, options),
        scale: (patch, options) => writer.patchDeploymentScale(namespace, name, patch, options),
      }
    : {
        object: (patch, options) => writer.patchStatefulSetStrategic(namespace, name, patch, options),
        scale: (patch, options) => writer.patchStatefulSetScale(namespace, name, patch, options),
      };
}

/**
 * Scales `target` to `replicas` (field manager `sentinel`): first the attribution annotations
 * (`annotationPatch` of `stamps`, a metadata-only patch, which does not move `metadata.generation`;
 * skipped when there is nothing to set or remove), then the scale. Throws what an outcome-unknown
 * scale failure threw (a timeout: the scale may have happened, so the annotations stay); when the
 * API server refused the scale, puts the annotations back and throws a `SentinelError` with the
 * refusal's code (`internal` for a non-Sentinel error) saying the object was not scaled and whether
 * the annotations were put back.
 */
export async function sendScale(
  writer: KubeWriter,
  target: ScaleTarget,
  replicas: number,
  stamps: Record<string, string>,
): Promise<void> {
  const { kind, namespace, name, ref } = target;
  const current = target.annotations ?? {};
  const stamp = annotationPatch(current, stamps);
  const options = { fieldManager: FIELD_MANAGER };
  const patch = patchesOf(writer, target);
  if (Object.keys(stamp).length > 0) await patch.object({ metadata: { annotations: stamp } }, options);
  try {
    await patch.scale({ spec: { replicas } }, options);
  } catch (error) {
    // Put the annotations back only when the API server refused the scale (nothing changed).
    if (Object.keys(stamp).length === 0 || outcomeUnknown(error)) throw error;
    const restore = Object.fromEntries(Object.keys(stamp).map((key) => [key, current[key] ?? null]));
    const restored = await patch.object({ metadata: { annotations: restore } }, options).then(
      () => true,
      () => false,
    );
    const failure = error instanceof SentinelError ? error : undefined;
    throw new SentinelError(
      failure?.code ?? 'internal',
      `${failure?.message ?? 'The scale request failed.'} ${ref} was not scaled; ${restored ? "Sentinel's annotations were put back" : "Sentinel's attribution annotations (sentinel.dev/) stay on it and could not be put back"}.`,
      { kind, namespace, name, cause: error },
    );
  }
}
