/**
 * The JSON text of single-object GET answers, kept per stored object version.
 *
 * The store never mutates a stored object: every write stores a new one with a new resourceVersion
 * (deploy/sim/store.ts). So the text served for one stored object, in one API version, never changes,
 * and is kept beside it (a WeakMap, dropped with the object) instead of deep-copying and serialising
 * the object on every GET — what a controller's or an agent's repeated reads of one object cost.
 */
import type { KubeObject } from '../types.ts';

export class ServedJson {
  /** stored object → variant (API group/version served) → JSON text. */
  #texts = new WeakMap<KubeObject, Map<string, string>>();

  /**
   * `JSON.stringify(build())` for `stored` served as `variant` (e.g. `autoscaling/v1`), built on the
   * first call and reused while `stored` is the stored version. `build` must depend only on `stored`
   * and `variant`, and must not mutate `stored`.
   */
  text(stored: KubeObject, variant: string, build: () => unknown): string {
    let byVariant = this.#texts.get(stored);
    if (!byVariant) this.#texts.set(stored, (byVariant = new Map()));
    let text = byVariant.get(variant);
    if (text === undefined) byVariant.set(variant, (text = JSON.stringify(build())));
    return text;
  }
}
