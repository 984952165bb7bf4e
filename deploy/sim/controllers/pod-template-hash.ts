/**
 * `pod-template-hash`: the label value the Deployment controller gives each ReplicaSet and its
 * Pods. The real controller (k8s.io/kubernetes/pkg/controller `ComputeHash`) takes FNV-1a 32 of a
 * `spew` dump of the Go PodTemplateSpec plus the collision count, and encodes the decimal digits with
 * `rand.SafeEncodeString`. A Go struct dump cannot be reproduced from JSON, so the simulator hashes
 * the template's canonical JSON (sorted keys) instead: same algorithm, same alphabet and length
 * profile, same stability (equal templates ⇒ equal hash), different digits than a real cluster
 * would print for the same template.
 */
import fnv from 'fnv-plus';
import { canonicalJson } from '../../../core/index.ts';
import type { PodTemplateSpec } from '../types.ts';

/** k8s.io/apimachinery/pkg/util/rand alphanumerics: no vowels, no 0/1/3 (no accidental words). */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `rand.SafeEncodeString`: maps each byte of `text` into the safe alphabet. */
export function safeEncodeString(text: string): string {
  return [...Buffer.from(text)].map((byte) => SAFE_ALPHABET[byte % SAFE_ALPHABET.length]).join('');
}

/** The pod-template-hash of `template` (its `pod-template-hash` label ignored) and `collisionCount`. */
export function computePodTemplateHash(template: PodTemplateSpec, collisionCount = 0): string {
  const copy = structuredClone(template);
  if (copy.metadata?.labels) delete copy.metadata.labels['pod-template-hash'];
  const hashInput = `${canonicalJson(copy)}${collisionCount ? `#${collisionCount}` : ''}`;
  return safeEncodeString(String(fnv.fast1a32(hashInput)));
}
