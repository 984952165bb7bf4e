/**
 * Write options as the API server reads them: `dryRun` from the query string of every write, and
 * for DELETE (one object or a collection) the `DeleteOptions` body as well — kubectl sends
 * `{"kind":"DeleteOptions","dryRun":["All"],"propagationPolicy":"Background"}` in the body and
 * nothing in the query. Mirrors k8s.io/apiserver/pkg/endpoints/handlers/delete.go (body decoded
 * over the query parameters) and k8s.io/apimachinery/pkg/apis/meta/v1/validation
 * `ValidateDeleteOptions` / `ValidateDryRun`.
 */
import { ApiError, badRequest } from './status.ts';

/** `metav1.DeletionPropagation`. */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** The options of a DELETE, after merging the body over the query string. */
export interface DeleteOptions {
  dryRun: boolean;
  /** Undefined: the storage's default (Background for every served kind). */
  propagationPolicy: PropagationPolicy | undefined;
  gracePeriodSeconds: number | undefined;
  preconditions: { uid?: string; resourceVersion?: string } | undefined;
}

const POLICIES: readonly PropagationPolicy[] = ['Foreground', 'Background', 'Orphan'];

function invalidOptions(kind: string, field: string, message: string): ApiError {
  return new ApiError(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    group: 'meta.k8s.io',
    kind,
    causes: [{ reason: 'FieldValueNotSupported', message, field }],
  });
}

/**
 * Checks `dryRun` values: only `All` exists.
 * @throws ApiError 400 naming the value, as the query-parameter decoder reports it.
 */
function checkDryRunValues(values: readonly unknown[]): boolean {
  for (const value of values)
    if (value !== 'All')
      throw badRequest(`dryRun: Unsupported value: ${JSON.stringify(value)}: supported values: "All"`);
  return values.length > 0;
}

/** Whether the query string asks for a dry run (`dryRun=All`). @throws ApiError 400 on another value. */
export function queryDryRun(params: URLSearchParams): boolean {
  return checkDryRunValues(params.getAll('dryRun'));
}

function integerParam(params: URLSearchParams, name: string): number | undefined {
  const text = params.get(name);
  if (text === null || text === '') return undefined;
  if (!/^-?\d+$/.test(text)) throw badRequest(`${name}: Invalid value: "${text}": must be an integer`);
  return Number.parseInt(text, 10);
}

/**
 * The DeleteOptions of a DELETE: the JSON/YAML body (any `kind: DeleteOptions` body, or none) over
 * the query parameters `dryRun`, `propagationPolicy`, `orphanDependents`, `gracePeriodSeconds`.
 * A dry run asked for in either place is a dry run.
 * @throws ApiError 400 for a body that is not an object or a malformed parameter; 422 (Invalid
 *   DeleteOptions) for an unknown propagationPolicy, both orphanDependents and propagationPolicy, or
 *   a negative grace period other than what the server clamps.
 */
export function parseDeleteOptions(params: URLSearchParams, body: unknown): DeleteOptions {
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body)))
    throw badRequest('the body of a DELETE must be a DeleteOptions object');
  const options = (body ?? {}) as Record<string, unknown>;
  const bodyDryRun = options['dryRun'];
  if (bodyDryRun !== undefined && bodyDryRun !== null && !Array.isArray(bodyDryRun))
    throw badRequest('dryRun: must be a list of strings');
  const dryRun = checkDryRunValues(params.getAll('dryRun')) || checkDryRunValues(bodyDryRun ?? []);

  let policy: unknown = options['propagationPolicy'] ?? params.get('propagationPolicy') ?? undefined;
  const orphanText = params.get('orphanDependents');
  const orphan: unknown =
    options['orphanDependents'] ?? (orphanText === null ? undefined : orphanText === 'true');
  if (policy !== undefined && !POLICIES.includes(policy as PropagationPolicy)) {
    throw invalidOptions(
      'DeleteOptions',
      'propagationPolicy',
      `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`,
    );
  }
  if (orphan !== undefined && orphan !== null) {
    if (policy !== undefined) {
      throw invalidOptions(
        'DeleteOptions',
        'propagationPolicy',
        `Invalid value: ${JSON.stringify(policy)}: orphanDependents and deletionPropagation cannot be both set`,
      );
    }
    policy = orphan === true ? 'Orphan' : 'Background';
  }

  const bodyGrace = options['gracePeriodSeconds'];
  if (bodyGrace !== undefined && bodyGrace !== null && !Number.isInteger(bodyGrace))
    throw badRequest('gracePeriodSeconds: must be an integer');
  const grace = (bodyGrace as number | null | undefined) ?? integerParam(params, 'gracePeriodSeconds');

  const preconditions = options['preconditions'];
  if (preconditions !== undefined && preconditions !== null && typeof preconditions !== 'object')
    throw badRequest('preconditions: must be an object');
  return {
    dryRun,
    propagationPolicy: policy as PropagationPolicy | undefined,
    // A negative grace period means "now" (the registry clamps it to 1 for pods; 0 here).
    gracePeriodSeconds: grace === undefined ? undefined : Math.max(grace, 0),
    preconditions: (preconditions ?? undefined) as DeleteOptions['preconditions'],
  };
}
