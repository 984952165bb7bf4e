/**
 * Object validation with the field paths and wording of k8s.io/kubernetes/pkg/apis/{core,apps}/validation,
 * for the rules a client of the simulator can break: names, replicas, selectors that must match the
 * template, containers, immutable selectors. Broken rules become a 422 `Invalid` Status.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ResourceType } from '../resources.ts';
import type { Container, DaemonSet, Deployment, KubeObject, PodSpec, StatefulSet } from '../types.ts';
import { labelSelectorToMatcher, matchesLabels } from './selectors.ts';
import { invalid } from './status.ts';
import type { StatusCause } from './status.ts';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const required = (field: string): StatusCause => ({
  reason: 'FieldValueRequired',
  message: 'Required value',
  field,
});
const invalidValue = (field: string, value: unknown, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${why}`,
  field,
});

function validateContainers(spec: PodSpec | undefined, path: string, causes: StatusCause[]): void {
  if (!spec || !Array.isArray(spec.containers) || spec.containers.length === 0) {
    causes.push(required(`${path}.containers`));
    return;
  }
  spec.containers.forEach((container: Container, index) => {
    const at = `${path}.containers[${index}]`;
    if (!container || typeof container !== 'object') return void causes.push(required(at));
    if (!container.name) causes.push(required(`${at}.name`));
    else if (!DNS_LABEL.test(container.name) || container.name.length > 63) {
      causes.push(
        invalidValue(
          `${at}.name`,
          container.name,
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'",
        ),
      );
    }
    if (typeof container.image !== 'string' || !container.image.trim()) causes.push(required(`${at}.image`));
  });
}

function selectorParses(selector: Deployment['spec']['selector']): boolean {
  try {
    labelSelectorToMatcher(selector);
    return true;
  } catch {
    return false;
  }
}

function nonNegativeInteger(value: unknown, field: string, causes: StatusCause[]): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    causes.push(invalidValue(field, value, 'must be greater than or equal to 0'));
  }
}

const WORKLOADS = new Set(['deployments', 'replicasets', 'statefulsets', 'daemonsets']);

/** StatefulSet spec fields an update may change (ValidateStatefulSetUpdate). */
const STATEFULSET_MUTABLE = new Set([
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
]);

function oneOf(value: unknown, allowed: readonly string[], field: string, causes: StatusCause[]): void {
  if (value === undefined || allowed.includes(value as string)) return;
  causes.push({
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((v) => `"${v}"`).join(', ')}`,
    field,
  });
}

/** ValidateStatefulSetSpec / ValidateStatefulSetUpdate (pkg/apis/apps/validation), the rules clients meet. */
function validateStatefulSet(
  set: StatefulSet,
  previous: KubeObject | undefined,
  causes: StatusCause[],
): void {
  const spec = set.spec;
  oneOf(spec.podManagementPolicy, ['OrderedReady', 'Parallel'], 'spec.podManagementPolicy', causes);
  oneOf(spec.updateStrategy?.type, ['RollingUpdate', 'OnDelete'], 'spec.updateStrategy.type', causes);
  nonNegativeInteger(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit', causes);
  nonNegativeInteger(
    spec.updateStrategy?.rollingUpdate?.partition,
    'spec.updateStrategy.rollingUpdate.partition',
    causes,
  );
  if (spec.updateStrategy?.type === 'OnDelete' && spec.updateStrategy.rollingUpdate) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(spec.updateStrategy.rollingUpdate)}: only allowed for updateStrategy 'RollingUpdate'`,
      field: 'spec.updateStrategy.rollingUpdate',
    });
  }
  for (const [index, claim] of (spec.volumeClaimTemplates ?? []).entries()) {
    if (!claim?.metadata?.name) causes.push(required(`spec.volumeClaimTemplates[${index}].metadata.name`));
  }
  if (!previous) return;
  const before = (previous as StatefulSet).spec;
  const changed = Object.keys({ ...before, ...spec }).filter(
    (field) =>
      !STATEFULSET_MUTABLE.has(field) &&
      !isDeepStrictEqual(
        (before as Record<string, unknown>)[field],
        (spec as Record<string, unknown>)[field],
      ),
  );
  if (changed.length > 0) {
    causes.push({
      reason: 'FieldValueForbidden',
      message:
        "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      field: 'spec',
    });
  }
}

/** ValidateDaemonSetSpec: the update strategy and its bounds. */
function validateDaemonSet(ds: DaemonSet, causes: StatusCause[]): void {
  const strategy = ds.spec.updateStrategy;
  oneOf(strategy?.type, ['RollingUpdate', 'OnDelete'], 'spec.updateStrategy.type', causes);
  nonNegativeInteger(ds.spec.revisionHistoryLimit, 'spec.revisionHistoryLimit', causes);
  const rolling = strategy?.rollingUpdate;
  if (strategy?.type === 'RollingUpdate' && rolling) {
    const zero = (value: unknown) => value === 0 || value === '0%';
    if (zero(rolling.maxUnavailable) && zero(rolling.maxSurge)) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(rolling.maxUnavailable)}: may not be 0 when \`maxSurge\` is 0`,
        field: 'spec.updateStrategy.rollingUpdate.maxUnavailable',
      });
    }
  }
}

/**
 * Validates `object` for storage `type` (and, on update, against `previous`).
 * @throws ApiError 422 listing every broken field.
 */
export function validateObject(type: ResourceType, object: KubeObject, previous?: KubeObject): void {
  const causes: StatusCause[] = [];
  const name = object.metadata?.name;
  if (!name) causes.push(required('metadata.name'));
  else if (!DNS_SUBDOMAIN.test(name) || name.length > 253) {
    causes.push(
      invalidValue(
        'metadata.name',
        name,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
      ),
    );
  }
  for (const field of ['labels', 'annotations'] as const) {
    const map = object.metadata?.[field];
    if (
      map !== undefined &&
      (typeof map !== 'object' ||
        map === null ||
        Object.values(map).some((value) => typeof value !== 'string'))
    ) {
      causes.push(invalidValue(`metadata.${field}`, map, 'values must be strings'));
    }
  }
  if (WORKLOADS.has(type.storage)) {
    const spec = (object as Deployment).spec;
    if (!spec || typeof spec !== 'object') causes.push(required('spec'));
    else {
      nonNegativeInteger(spec.replicas, 'spec.replicas', causes);
      nonNegativeInteger(spec.minReadySeconds, 'spec.minReadySeconds', causes);
      const selector = spec.selector;
      if (
        !selector ||
        (Object.keys(selector.matchLabels ?? {}).length === 0 &&
          (selector.matchExpressions ?? []).length === 0)
      ) {
        causes.push(required('spec.selector'));
      } else if (!selectorParses(selector)) {
        causes.push(invalidValue('spec.selector', selector, 'not a valid label selector'));
      } else if (!matchesLabels(labelSelectorToMatcher(selector), spec.template?.metadata?.labels)) {
        causes.push(
          invalidValue(
            'spec.template.metadata.labels',
            spec.template?.metadata?.labels ?? {},
            '`selector` does not match template `labels`',
          ),
        );
      }
      validateContainers(spec.template?.spec, 'spec.template.spec', causes);
      if (type.storage === 'deployments') {
        const deployment = spec as Deployment['spec'];
        nonNegativeInteger(deployment.revisionHistoryLimit, 'spec.revisionHistoryLimit', causes);
        if (
          deployment.progressDeadlineSeconds !== undefined &&
          deployment.progressDeadlineSeconds <= (deployment.minReadySeconds ?? 0)
        ) {
          causes.push(
            invalidValue(
              'spec.progressDeadlineSeconds',
              deployment.progressDeadlineSeconds,
              'must be greater than minReadySeconds',
            ),
          );
        }
        if (deployment.paused !== undefined && typeof deployment.paused !== 'boolean') {
          causes.push(invalidValue('spec.paused', deployment.paused, 'must be a boolean'));
        }
      }
      if (type.storage === 'statefulsets') validateStatefulSet(object as StatefulSet, previous, causes);
      if (type.storage === 'daemonsets') validateDaemonSet(object as DaemonSet, causes);
      if (previous && !isDeepStrictEqual((previous as Deployment).spec.selector, selector)) {
        causes.push(invalidValue('spec.selector', selector, 'field is immutable'));
      }
    }
  }
  if (type.storage === 'pods') validateContainers(object['spec'] as PodSpec | undefined, 'spec', causes);
  if (causes.length > 0) throw invalid(type, name ?? '', causes);
}
