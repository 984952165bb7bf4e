/**
 * The simulator's Kubernetes REST API: authentication (bearer tokens), authorization (read-only
 * identities get 403 on writes), discovery, get/list/watch (label and field selectors, limit/continue
 * pagination, Table output), create/update/patch/delete with resourceVersion preconditions, the
 * `scale`, `status` and `log` subresources, and the mutation log. Every failure is a `Status` body;
 * nothing a client sends can crash the server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { timingSafeEqual } from 'node:crypto';
import type { SimulatedCluster } from '../cluster.ts';
import { qualifiedResource, groupVersion } from '../resources.ts';
import type { ResourceType } from '../resources.ts';
import { StoreConflictError } from '../store.ts';
import { randomSuffix } from '../controllers/replicaset.ts';
import type { KubeObject, Pod } from '../types.ts';
import { apply, recordUpdate } from './apply.ts';
import { applyDefaults } from './defaults.ts';
import { apiGroup, coreVersions, groupList, resourceList, versionInfo } from './discovery.ts';
import { flag, readPodLog } from './logs.ts';
import { serveFollowedLog } from './logs-follow.ts';
import { fieldValidationOf, validateFields } from './field-validation.ts';
import { hpaFromV1 } from './hpa-conversion.ts';
import { decodeKubernetesProtobuf } from './protobuf.ts';
import { ServedJson } from './served-json.ts';
import { auditFacts } from './audit-facts.ts';
import type { AuditLog } from './audit-log.ts';
import { deleteObject } from './delete.ts';
import { eventsV1ToCore, validateEventsV1Create, validateEventsV1Update } from './events-v1.ts';
import { parseDeleteOptions, queryDryRun } from './dry-run.ts';
import type { DeleteOptions } from './dry-run.ts';
import { serveOpenApi } from './openapi-endpoint.ts';
import { applyPatch, patchTypeOf } from './patch.ts';
import { parseRoute } from './routes.ts';
import { parseMetricsRoute, podMetrics, POD_METRICS } from './metrics.ts';
import type { Route } from './routes.ts';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.ts';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  expired,
  forbidden,
  forbiddenPath,
  methodNotAllowed,
  notFound,
  pathNotFound,
  unauthorized,
  unsupportedMediaType,
} from './status.ts';
import { tableVersionRequested, toTable } from './table.ts';
import type { IncludeObject } from './table.ts';
import { authorize } from '../rbac/authorizer.ts';
import type { UserInfo } from '../rbac/authorizer.ts';
import { answerReview } from '../rbac/reviews.ts';
import { definitionNameFor } from './schemas.ts';
import { validateObject } from './validation.ts';
import { toApiView, toScale } from './views.ts';
import { serveWatch, type WatchSilencers, type WatchTally } from './watch.ts';

/** A bearer token the simulator accepts and who it stands for. */
export interface SimIdentity {
  name: string;
  token: string;
  /**
   * Besides what RBAC grants it, get/list/watch on everything (writes still need RBAC). The
   * simulator's shorthand for a read-only user; bind Roles for least privilege.
   */
  readOnly?: boolean;
  /** Groups besides `system:authenticated` (`system:masters`: everything, as `sim-admin` has). */
  groups?: string[];
}

/** One mutating request (POST, PUT, PATCH, DELETE), recorded whatever its outcome. */
export interface MutationRecord {
  /** Simulated time of the request (RFC 3339 with milliseconds). */
  time: string;
  /** Identity name of the bearer token ("anonymous" when none or unknown). */
  identity: string;
  verb: 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';
  /** Request path with query string. */
  path: string;
  /** Qualified resource, e.g. `deployments.apps`. */
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** Content-Type of the request (the patch type for PATCH). */
  contentType?: string;
  /** PATCH body, parsed. */
  patch?: unknown;
  /** POST/PUT body, parsed. */
  object?: unknown;
  fieldManager?: string;
  dryRun: boolean;
  /** HTTP status code of the response. */
  code: number;
}

/** Largest request body accepted (the API server's limit is 3 MiB). */
const MAX_BODY_BYTES = 3 * 1024 * 1024;
/** Storages whose main endpoint ignores status changes (they have a `status` subresource). */
const STATUS_SUBRESOURCE = new Set([
  'deployments',
  'replicasets',
  'statefulsets',
  'daemonsets',
  'persistentvolumeclaims',
  'pods',
  'services',
  'horizontalpodautoscalers',
  'namespaces',
  'nodes',
]);
/** Storages whose create drops the status sent (`PrepareForCreate` of their registry strategy). */
const STATUS_RESET_ON_CREATE = new Set(['deployments', 'replicasets', 'statefulsets', 'daemonsets', 'pods']);
/** Storages whose DELETE returns the deleted object rather than a Success Status. */
const RETURNS_DELETED_OBJECT = new Set(['pods', 'services', 'namespaces']);
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export interface RequestContext {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  identity: SimIdentity | undefined;
  record?: MutationRecord;
  /** DELETE options (body over query), set for delete and deletecollection. */
  deleteOptions?: DeleteOptions;
  /** For the audit log: the resource request's route and verb, and the body size. */
  route?: Route;
  verb?: string;
  requestBytes?: number;
  /** `Warning` headers of the response (e.g. unknown fields under fieldValidation=Warn). */
  warnings?: string[];
  /** A server-side apply: managedFields are already computed. */
  applied?: true;
}

export interface ApiHandlerOptions {
  cluster: SimulatedCluster;
  identities: SimIdentity[];
  /** `host:port` for `/api` serverAddressByClientCIDRs. */
  serverAddress: () => string;
  mutationLog: MutationRecord[];
  /** Aborted when the simulator closes (ends watches). */
  closeSignal: AbortSignal;
  /** Called with unexpected errors (a bug; the client gets a 500 Status). */
  onInternalError?: (error: unknown) => void;
  /** Where every request is recorded (`--audit-log`), if anywhere. */
  auditLog?: AuditLog;
  /** Counts watch streams (the simulator's `traffic`). */
  watchTally?: WatchTally;
  /** Holds the silencer of each open watch (the simulator's `silenceWatches()`). */
  watchSilencers?: WatchSilencers;
}

export class ApiHandler {
  #options: ApiHandlerOptions;
  #servedJson = new ServedJson();

  constructor(options: ApiHandlerOptions) {
    this.#options = options;
  }

  get #cluster(): SimulatedCluster {
    return this.#options.cluster;
  }

  /** Node `http` request listener. Never throws. */
  handle = (request: IncomingMessage, response: ServerResponse): void => {
    const context: RequestContext = {
      request,
      response,
      url: new URL(request.url ?? '/', 'https://simulator.invalid'),
      identity: undefined,
    };
    this.#options.auditLog?.observe(request, response, () => auditFacts(context));
    this.#dispatch(context).catch((error: unknown) => this.#fail(context, error));
  };

  #fail(context: RequestContext, error: unknown): void {
    let apiError: ApiError;
    if (error instanceof ApiError) apiError = error;
    else {
      this.#options.onInternalError?.(error);
      apiError = new ApiError(
        500,
        'InternalError',
        'Internal error occurred: the simulator hit an unexpected error',
      );
    }
    if (context.record) context.record.code = apiError.code;
    this.#send(context, apiError.code, apiError.toStatus());
  }

  #send(context: RequestContext, code: number, body: unknown): void {
    this.#sendText(context, code, JSON.stringify(body));
  }

  /** Answers `text`, a JSON document already serialised. */
  #sendText(context: RequestContext, code: number, text: string): void {
    const { response } = context;
    if (context.record) context.record.code = code;
    if (response.headersSent) {
      response.end();
      return;
    }
    response.writeHead(code, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-cache, private',
      ...(context.warnings?.length && { Warning: context.warnings.map(warningHeader) }),
    });
    response.end(text);
  }

  #authenticate(context: RequestContext, route: Route): void {
    const header = context.request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (match) {
      const presented = Buffer.from(match[1]!);
      context.identity = this.#options.identities.find((identity) => {
        const expected = Buffer.from(identity.token);
        return expected.length === presented.length && timingSafeEqual(expected, presented);
      });
    }
    if (!context.identity && route.kind !== 'health') throw unauthorized();
    if (context.identity) context.identity = this.#impersonate(context.request, context.identity);
  }

  /**
   * `Impersonate-User` / `Impersonate-Group` (kubectl `--as`, `--as-group`), allowed when the real
   * identity may `impersonate` that user, service account or group (the apiserver's impersonation
   * filter). @throws ApiError 403 otherwise.
   */
  #impersonate(request: IncomingMessage, identity: SimIdentity): SimIdentity {
    const user = request.headers['impersonate-user'];
    const groupHeader = request.headers['impersonate-group'];
    if (typeof user !== 'string' || user === '') return identity;
    const groups = (Array.isArray(groupHeader) ? groupHeader : groupHeader ? [groupHeader] : [])
      .flatMap((value) => value.split(','))
      .map((value) => value.trim())
      .filter(Boolean);
    const serviceAccount = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
    const checks = [
      serviceAccount
        ? { resource: 'serviceaccounts', namespace: serviceAccount[1]!, name: serviceAccount[2]! }
        : { resource: 'users', name: user },
      ...groups.map((name) => ({ resource: 'groups', name })),
    ];
    for (const check of checks) {
      const decision = authorize(this.#cluster.store, userInfoOf(identity), {
        verb: 'impersonate',
        group: '',
        ...check,
      });
      if (!decision.allowed) {
        const where =
          'namespace' in check ? ` in the namespace "${check.namespace}"` : ' at the cluster scope';
        throw new ApiError(
          403,
          'Forbidden',
          `${check.resource} "${check.name}" is forbidden: User "${identity.name}" cannot impersonate resource "${check.resource}" in API group ""${where}`,
          { name: check.name, kind: check.resource },
        );
      }
    }
    return { name: user, token: '', ...(groups.length > 0 && { groups }) };
  }

  async #dispatch(context: RequestContext): Promise<void> {
    const route = parseRoute(context.url.pathname);
    this.#authenticate(context, route);
    const method = context.request.method ?? 'GET';
    const metrics = parseMetricsRoute(context.url.pathname);
    if (metrics) return this.#podMetrics(context, method, metrics.namespace, metrics.name);
    if (route.kind !== 'resource') {
      if (method !== 'GET') throw methodNotAllowed(method);
      if (context.identity && route.kind !== 'health') {
        const path = context.url.pathname;
        if (!authorize(this.#cluster.store, userInfoOf(context.identity), { verb: 'get', path }).allowed)
          throw forbiddenPath(context.identity.name, 'get', path);
      }
      this.#discovery(context, route);
      return;
    }
    const verb = this.#verb(method, route, context.url.searchParams);
    context.route = route;
    context.verb = verb;
    if (WRITE_VERBS.has(verb)) {
      context.record = {
        time: new Date(this.#cluster.clock.sync()).toISOString(),
        identity: context.identity?.name ?? 'anonymous',
        verb: verb as MutationRecord['verb'],
        path: `${context.url.pathname}${context.url.search}`,
        resource: qualifiedResource(route.type),
        ...(route.namespace && { namespace: route.namespace }),
        ...(route.name && { name: route.name }),
        ...(route.subresource && { subresource: route.subresource }),
        ...(context.request.headers['content-type'] && {
          contentType: context.request.headers['content-type'],
        }),
        ...(context.url.searchParams.get('fieldManager') && {
          fieldManager: context.url.searchParams.get('fieldManager')!,
        }),
        dryRun: context.url.searchParams.getAll('dryRun').includes('All'),
        code: 0,
      };
      this.#options.mutationLog.push(context.record);
    }
    if (!route.type.verbs.includes(verb)) throw methodNotAllowed(method);
    if (route.subresource && !route.type.subresources.includes(route.subresource)) throw pathNotFound();
    this.#authorizeResource(context, verb, route);
    this.#cluster.reconcile();
    const deleting = verb === 'delete' || verb === 'deletecollection';
    const body = WRITE_VERBS.has(verb) ? await this.#readBody(context, deleting) : undefined;
    if (deleting) context.deleteOptions = parseDeleteOptions(context.url.searchParams, body);
    if (context.record) {
      context.record.dryRun = this.#dryRun(context);
      if (body !== undefined) {
        if (verb === 'patch') context.record.patch = body;
        else if (!deleting) context.record.object = body;
      }
    }
    switch (verb) {
      case 'get':
        return this.#get(context, route.type, route.namespace, route.name!, route.subresource);
      case 'list':
        return this.#list(context, route.type, route.namespace);
      case 'watch':
        return this.#watch(context, route.type, route.namespace);
      case 'create':
        return this.#create(context, route.type, route.namespace, body);
      case 'update':
        return this.#update(context, route.type, route.namespace, route.name!, route.subresource, body);
      case 'patch':
        return this.#patch(context, route.type, route.namespace, route.name!, route.subresource, body);
      case 'delete':
        return this.#delete(context, route.type, route.namespace, route.name!);
      case 'deletecollection':
        return this.#deleteCollection(context, route.type, route.namespace);
      default:
        throw methodNotAllowed(method);
    }
  }

  /** metrics.k8s.io PodMetrics (api/metrics.ts): get and list, RBAC-checked, computed from the kubelet. */
  #podMetrics(
    context: RequestContext,
    method: string,
    namespace: string | undefined,
    name: string | undefined,
  ): void {
    if (method !== 'GET') throw methodNotAllowed(method);
    const verb = name === undefined ? 'list' : 'get';
    const route = { kind: 'resource', type: POD_METRICS, namespace, name, subresource: undefined } as const;
    this.#authorizeResource(context, verb, route);
    this.#cluster.reconcile();
    const now = this.#cluster.clock.now();
    const of = (pod: Pod) => {
      const ran = this.#cluster.kubelet.ranContainers(pod.metadata.uid!);
      return ran && ran.length > 0 ? podMetrics(pod, ran, now) : undefined;
    };
    if (name !== undefined) {
      const pod = this.#cluster.store.get<Pod>('pods', namespace, name);
      const metrics = pod && of(pod);
      if (!metrics) throw notFound(POD_METRICS, name);
      return this.#send(context, 200, metrics);
    }
    const labels = parseLabelSelector(context.url.searchParams.get('labelSelector') ?? '');
    const items = this.#cluster.store
      .list<Pod>('pods', namespace)
      .filter((pod) => matchesLabels(labels, pod.metadata.labels))
      .flatMap((pod) => of(pod) ?? [])
      .map(({ kind: _kind, apiVersion: _apiVersion, ...item }) => item);
    this.#send(context, 200, {
      kind: 'PodMetricsList',
      apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: {},
      items,
    });
  }

  /** RBAC (rbac/authorizer.ts): 403 in the apiserver's wording when no binding grants the request. */
  #authorizeResource(
    context: RequestContext,
    verb: string,
    route: Extract<Route, { kind: 'resource' }>,
  ): void {
    const identity = context.identity!;
    const decision = authorize(this.#cluster.store, userInfoOf(identity), {
      verb,
      group: route.type.group,
      resource: route.type.plural,
      ...(route.subresource && { subresource: route.subresource }),
      ...(route.namespace && { namespace: route.namespace }),
      ...(route.name && { name: route.name }),
    });
    if (!decision.allowed)
      throw forbidden(identity.name, verb, route.type, route.namespace, route.name, route.subresource);
  }

  /** The Kubernetes verb of a request (what RBAC would authorize). */
  #verb(method: string, route: Extract<Route, { kind: 'resource' }>, params: URLSearchParams): string {
    const isWatch = ['true', '1'].includes(params.get('watch') ?? '');
    switch (method) {
      case 'GET':
        if (route.name === undefined) return isWatch ? 'watch' : 'list';
        return 'get';
      case 'POST':
        return route.name === undefined ? 'create' : 'unsupported';
      case 'PUT':
        return route.name === undefined ? 'unsupported' : 'update';
      case 'PATCH':
        return route.name === undefined ? 'unsupported' : 'patch';
      case 'DELETE':
        return route.name === undefined ? 'deletecollection' : 'delete';
      default:
        return 'unsupported';
    }
  }

  async #readBody(context: RequestContext, optional = false): Promise<unknown> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of context.request) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES)
        throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
      chunks.push(chunk as Buffer);
    }
    context.requestBytes = size;
    const bytes = Buffer.concat(chunks);
    const text = bytes.toString('utf8');
    if (!text.trim()) {
      if (optional) return undefined;
      throw badRequest('the request body is empty');
    }
    const mediaType = (context.request.headers['content-type'] ?? 'application/json')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (mediaType === 'application/vnd.kubernetes.protobuf') return decodeKubernetesProtobuf(bytes);
    if (mediaType === 'application/yaml' || mediaType.endsWith('+yaml')) {
      try {
        return parseYaml(text);
      } catch (error) {
        throw badRequest(`the body of the request is not valid YAML: ${(error as Error).message}`);
      }
    }
    // Patch bodies are JSON whatever their patch type; protobuf is not served.
    if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
      throw unsupportedMediaType(mediaType, ['application/json', 'application/yaml']);
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw badRequest(`the body of the request is not valid JSON: ${(error as Error).message}`);
    }
  }

  #discovery(context: RequestContext, route: Route): void {
    const send = (body: unknown) => this.#send(context, 200, body);
    switch (route.kind) {
      case 'version':
        return send(versionInfo());
      case 'health':
        context.response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        context.response.end('ok');
        return;
      case 'coreVersions':
        return send(coreVersions(this.#options.serverAddress()));
      case 'groupList':
        return send(groupList());
      case 'group': {
        const group = apiGroup(route.group);
        if (!group) throw pathNotFound();
        return send(group);
      }
      case 'resourceList': {
        const list = resourceList(route.group, route.version);
        if (!list) throw pathNotFound();
        return send(list);
      }
      case 'openapi':
        return serveOpenApi(context.request, context.response, route, context.url.searchParams);
      default:
        throw pathNotFound();
    }
  }

  #stored(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const object = this.#cluster.store.get(type.storage, type.namespaced ? namespace : undefined, name);
    if (!object) throw notFound(type, name);
    return object;
  }

  /** The object as served (API view) with apiVersion and kind set. */
  #served(type: ResourceType, object: KubeObject): KubeObject {
    const view = toApiView(type, object);
    return { apiVersion: groupVersion(type), kind: type.kind, ...view };
  }

  #get(
    context: RequestContext,
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    subresource: string | undefined,
  ): void {
    const tableVersion = tableVersionRequested(context.request.headers.accept);
    if (subresource === undefined && !tableVersion) {
      // The plain JSON GET (every client's single-object read): the stored object uncopied, its text
      // serialised once per version (served-json.ts), not a deep copy and a serialisation per GET.
      const stored = this.#cluster.store.peekOne(type.storage, type.namespaced ? namespace : undefined, name);
      if (!stored) throw notFound(type, name);
      const text = this.#servedJson.text(stored, groupVersion(type), () => this.#served(type, stored));
      return this.#sendText(context, 200, text);
    }
    const object = this.#stored(type, namespace, name);
    if (subresource === 'log') {
      if (flag(context.url.searchParams, 'follow'))
        return serveFollowedLog(
          this.#cluster,
          object as Pod,
          context.url.searchParams,
          context.response,
          this.#options.closeSignal,
        );
      const text = readPodLog(
        this.#cluster.kubelet,
        object as Pod,
        context.url.searchParams,
        this.#cluster.clock.now(),
      );
      context.response.writeHead(200, {
        'Content-Type': 'text/plain',
        'Content-Length': Buffer.byteLength(text),
      });
      context.response.end(text);
      return;
    }
    if (subresource === 'scale') return this.#send(context, 200, toScale(object));
    const served = this.#served(type, object);
    if (tableVersion) {
      return this.#send(
        context,
        200,
        toTable(type, [served], this.#cluster.clock.now(), {
          include: this.#includeObject(context),
          version: tableVersion,
          resourceVersion: object.metadata.resourceVersion ?? '',
        }),
      );
    }
    this.#send(context, 200, served);
  }

  #includeObject(context: RequestContext): IncludeObject {
    const value = context.url.searchParams.get('includeObject') ?? 'Metadata';
    if (value !== 'None' && value !== 'Metadata' && value !== 'Object') {
      throw badRequest(
        `includeObject: Unsupported value: "${value}": supported values: "None", "Metadata", "Object"`,
      );
    }
    return value;
  }

  /** The selector predicate of a list or watch request (400 on a malformed selector). */
  #matcher(context: RequestContext, type: ResourceType): (object: KubeObject) => boolean {
    const labels = parseLabelSelector(context.url.searchParams.get('labelSelector') ?? '');
    const fields = parseFieldSelector(context.url.searchParams.get('fieldSelector') ?? '', type.fieldLabels);
    return (object) => matchesLabels(labels, object.metadata.labels) && matchesFields(fields, object);
  }

  #list(context: RequestContext, type: ResourceType, namespace: string | undefined): void {
    const params = context.url.searchParams;
    const matches = this.#matcher(context, type);
    const store = this.#cluster.store;
    const limitText = params.get('limit');
    const limit = limitText === null || limitText === '' ? 0 : Number.parseInt(limitText, 10);
    if (!Number.isInteger(limit) || limit < 0)
      throw badRequest(`limit: Invalid value: "${limitText}": must be a non-negative integer`);
    let listVersion = String(store.revision);
    let after: string | undefined;
    const token = params.get('continue');
    if (token) {
      const decoded = decodeContinue(token);
      if (Number.parseInt(decoded.rv, 10) < store.oldestRetained) {
        throw expired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
      listVersion = decoded.rv;
      after = decoded.start;
    }
    // Uncopied: the answer is only serialised (the views build new objects, never change stored ones).
    const items = store
      .peekSorted(type.storage, type.namespaced ? namespace : undefined)
      .map((object) => toApiView(type, object))
      .filter(matches)
      .filter((object) => after === undefined || objectKey(object) > after);
    const page = limit > 0 ? items.slice(0, limit) : items;
    const remaining = items.length - page.length;
    const continueToken = remaining > 0 ? encodeContinue(listVersion, objectKey(page.at(-1)!)) : undefined;
    const tableVersion = tableVersionRequested(context.request.headers.accept);
    if (tableVersion) {
      return this.#send(
        context,
        200,
        toTable(type, page, this.#cluster.clock.now(), {
          include: this.#includeObject(context),
          version: tableVersion,
          resourceVersion: listVersion,
          ...(continueToken && { continueToken, remainingItemCount: remaining }),
        }),
      );
    }
    this.#send(context, 200, {
      kind: `${type.kind}List`,
      apiVersion: groupVersion(type),
      metadata: {
        resourceVersion: listVersion,
        ...(continueToken && { continue: continueToken, remainingItemCount: remaining }),
      },
      items: page.map(({ apiVersion: _apiVersion, kind: _kind, ...item }) => item),
    });
  }

  #watch(context: RequestContext, type: ResourceType, namespace: string | undefined): void {
    const matches = this.#matcher(context, type);
    const tableVersion = tableVersionRequested(context.request.headers.accept);
    const include = this.#includeObject(context);
    const timeout = context.url.searchParams.get('timeoutSeconds');
    serveWatch(
      this.#cluster.store,
      {
        type,
        namespace: type.namespaced ? namespace : undefined,
        resourceVersion: context.url.searchParams.get('resourceVersion') ?? undefined,
        timeoutSeconds: timeout && /^\d+$/.test(timeout) ? Number.parseInt(timeout, 10) : undefined,
        bookmarks: context.url.searchParams.get('allowWatchBookmarks') === 'true',
        matches,
        view: (object) => this.#served(type, object),
        render: (object) =>
          tableVersion
            ? toTable(type, [object], this.#cluster.clock.now(), {
                include,
                version: tableVersion,
                resourceVersion: object.metadata.resourceVersion ?? '',
              })
            : object,
      },
      context.response,
      this.#options.closeSignal,
      this.#options.watchTally,
      this.#options.watchSilencers,
    );
  }

  #fieldManager(context: RequestContext): string {
    const explicit = context.url.searchParams.get('fieldManager');
    if (explicit !== null) {
      if (explicit.length > 128)
        throw badRequest('fieldManager: Too long: may not be longer than 128 characters');
      return explicit;
    }
    return (context.request.headers['user-agent'] ?? 'unknown').split('/')[0]!.slice(0, 128);
  }

  /** Whether the request is a dry run: `dryRun=All` in the query, or in a DELETE's DeleteOptions body. */
  #dryRun(context: RequestContext): boolean {
    return context.deleteOptions?.dryRun ?? queryDryRun(context.url.searchParams);
  }

  /**
   * Field ownership of a write (apply.ts): a server-side apply has set it already; any other write
   * gives its manager what it added or changed.
   */
  #stampManager(
    context: RequestContext,
    type: ResourceType,
    object: KubeObject,
    subresource?: string,
    before?: KubeObject,
  ): void {
    if (context.applied) return;
    object.metadata.managedFields = recordUpdate({
      definition: definitionNameFor(type.group, type.version, type.kind) ?? '',
      before,
      after: object,
      manager: this.#fieldManager(context),
      apiVersion: groupVersion(type),
      time: this.#cluster.clock.timestamp(),
      ...(subresource && { subresource }),
    });
  }

  /** fieldValidation: unknown fields `object` adds to `before` are warnings or (Strict) a 400. */
  #checkFields(context: RequestContext, type: ResourceType, object: unknown, before?: unknown): void {
    const directive = fieldValidationOf(context.url.searchParams);
    let warnings = validateFields(type, object, directive === 'Strict' && before ? 'Warn' : directive);
    if (before && warnings.length > 0) {
      const existing = new Set(validateFields(type, before, 'Warn'));
      warnings = warnings.filter((warning) => !existing.has(warning));
      if (directive === 'Strict' && warnings.length > 0) {
        throw badRequest(
          `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ${warnings.join(', ')}`,
        );
      }
    }
    if (warnings.length > 0) (context.warnings ??= []).push(...warnings);
  }

  #checkBodyIdentity(
    type: ResourceType,
    body: KubeObject,
    namespace: string | undefined,
    name: string | undefined,
  ): void {
    if (
      typeof body !== 'object' ||
      body === null ||
      Array.isArray(body) ||
      typeof body.metadata !== 'object' ||
      body.metadata === null
    ) {
      throw badRequest("Object 'metadata' is missing or not an object");
    }
    const expectedVersion = groupVersion(type);
    if (body.apiVersion !== undefined && body.apiVersion !== expectedVersion) {
      throw badRequest(
        `the API version in the data (${body.apiVersion}) does not match the expected API version (${expectedVersion})`,
      );
    }
    if (body.kind !== undefined && body.kind !== type.kind) {
      throw badRequest(`the kind in the data (${body.kind}) does not match the expected kind (${type.kind})`);
    }
    if (
      type.namespaced &&
      namespace !== undefined &&
      body.metadata.namespace !== undefined &&
      body.metadata.namespace !== namespace
    ) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    if (name !== undefined && body.metadata.name !== undefined && body.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
  }

  #respondWritten(
    context: RequestContext,
    type: ResourceType,
    code: number,
    object: KubeObject,
    subresource?: string,
  ): void {
    this.#cluster.reconcile();
    this.#send(context, code, subresource === 'scale' ? toScale(object) : this.#served(type, object));
  }

  #create(context: RequestContext, type: ResourceType, namespace: string | undefined, body: unknown): void {
    if (type.review) {
      return this.#send(
        context,
        201,
        answerReview(type.kind, body, userInfoOf(context.identity!), this.#cluster.store),
      );
    }
    let object = structuredClone(body) as KubeObject;
    this.#checkBodyIdentity(type, object, namespace, undefined);
    if (type.namespaced) {
      if (namespace === undefined) throw pathNotFound();
      if (!this.#cluster.store.get('namespaces', undefined, namespace)) {
        throw new ApiError(404, 'NotFound', `namespaces "${namespace}" not found`, {
          name: namespace,
          kind: 'namespaces',
        });
      }
      object.metadata.namespace = namespace;
    } else delete object.metadata.namespace;
    if (!object.metadata.name && object.metadata.generateName) {
      object.metadata.name = `${object.metadata.generateName}${randomSuffix()}`;
    }
    for (const field of [
      'uid',
      'resourceVersion',
      'creationTimestamp',
      'deletionTimestamp',
      'generation',
    ] as const) {
      delete object.metadata[field];
    }
    if (STATUS_RESET_ON_CREATE.has(type.storage)) delete object['status'];
    this.#checkFields(context, type, object);
    object.apiVersion = groupVersion(type);
    object.kind = type.kind;
    if (type.group === 'events.k8s.io') {
      validateEventsV1Create(type, object);
      object = eventsV1ToCore(object);
    }
    if (isHpaV1(type)) object = hpaFromV1(object);
    applyDefaults(type.storage, object);
    validateObject(type, object);
    this.#stampManager(context, type, object);
    if (this.#dryRun(context)) {
      if (this.#cluster.store.get(type.storage, object.metadata.namespace, object.metadata.name))
        throw alreadyExists(type, object.metadata.name);
      return this.#send(context, 201, this.#served(type, object));
    }
    try {
      const created = this.#cluster.store.create(type.storage, object);
      this.#respondWritten(context, type, 201, created);
    } catch (error) {
      if (error instanceof StoreConflictError) throw alreadyExists(type, object.metadata.name);
      throw error;
    }
  }

  /** Shared tail of update and patch: status handling, defaults, validation, precondition, write. */
  #replace(
    context: RequestContext,
    type: ResourceType,
    current: KubeObject,
    next: KubeObject,
    subresource: string | undefined,
    expectedResourceVersion: string | undefined,
  ): void {
    const name = current.metadata.name;
    if (
      expectedResourceVersion !== undefined &&
      expectedResourceVersion !== '' &&
      expectedResourceVersion !== current.metadata.resourceVersion
    ) {
      throw conflict(type, name);
    }
    let result: KubeObject;
    if (subresource === 'scale') {
      const replicas = (next['spec'] as { replicas?: unknown } | undefined)?.replicas;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
        throw new ApiError(
          422,
          'Invalid',
          `Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
          {
            name,
            group: 'autoscaling',
            kind: 'Scale',
            causes: [
              {
                reason: 'FieldValueInvalid',
                message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
                field: 'spec.replicas',
              },
            ],
          },
        );
      }
      result = structuredClone(current);
      (result['spec'] as { replicas: number }).replicas = replicas;
    } else if (subresource === 'status') {
      result = structuredClone(current);
      result['status'] = next['status'];
    } else {
      this.#checkFields(context, type, next, this.#served(type, current));
      result = next;
      result.metadata.uid = current.metadata.uid;
      result.metadata.namespace = current.metadata.namespace;
      result.metadata.name = name;
      if (STATUS_SUBRESOURCE.has(type.storage)) {
        if (current['status'] === undefined) delete result['status'];
        else result['status'] = current['status'];
      }
    }
    result.apiVersion = groupVersion(type);
    result.kind = type.kind;
    if (type.group === 'events.k8s.io') {
      validateEventsV1Update(type, result);
      result = eventsV1ToCore(result);
    }
    if (isHpaV1(type) && subresource === undefined) result = hpaFromV1(result);
    applyDefaults(type.storage, result);
    validateObject(type, result, current);
    this.#stampManager(context, type, result, subresource, current);
    if (this.#dryRun(context))
      return this.#send(context, 200, subresource === 'scale' ? toScale(result) : this.#served(type, result));
    try {
      const written = this.#cluster.store.update(type.storage, result, current.metadata.resourceVersion);
      this.#respondWritten(context, type, 200, written, subresource);
    } catch (error) {
      if (error instanceof StoreConflictError)
        throw error.reason === 'missing' ? notFound(type, name) : conflict(type, name);
      throw error;
    }
  }

  #update(
    context: RequestContext,
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    subresource: string | undefined,
    body: unknown,
  ): void {
    if (subresource === 'log') throw methodNotAllowed('PUT');
    const current = this.#stored(type, namespace, name);
    const object = structuredClone(body) as KubeObject;
    if (subresource === 'scale') {
      if (typeof object !== 'object' || object === null || typeof object.metadata !== 'object')
        throw badRequest("Object 'metadata' is missing or not an object");
      return this.#replace(context, type, current, object, subresource, object.metadata.resourceVersion);
    }
    this.#checkBodyIdentity(type, object, namespace, name);
    this.#replace(context, type, current, object, subresource, object.metadata.resourceVersion);
  }

  #patch(
    context: RequestContext,
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    subresource: string | undefined,
    body: unknown,
  ): void {
    if (subresource === 'log') throw methodNotAllowed('PATCH');
    if (isApplyPatch(context.request.headers['content-type']))
      return this.#apply(context, type, namespace, name, subresource, body);
    checkForceParam(context.url.searchParams, false);
    const patchType = patchTypeOf(context.request.headers['content-type']);
    const current = this.#stored(type, namespace, name);
    const base = subresource === 'scale' ? toScale(current) : this.#served(type, current);
    let patched: KubeObject;
    try {
      patched = applyPatch(base, body, patchType) as KubeObject;
    } catch (error) {
      // A failed JSON Patch `test` (e.g. on metadata.resourceVersion) is a precondition failure.
      if (error instanceof ApiError && /TEST_OPERATION_FAILED/.test(error.message))
        throw conflict(type, name);
      throw error;
    }
    if (
      typeof patched !== 'object' ||
      patched === null ||
      typeof patched.metadata !== 'object' ||
      patched.metadata === null
    ) {
      throw badRequest("Object 'metadata' is missing or not an object");
    }
    const patchedVersion = patched.metadata.resourceVersion;
    if (subresource !== 'scale') this.#checkBodyIdentity(type, patched, namespace, name);
    this.#replace(context, type, current, patched, subresource, patchedVersion);
  }

  /** Server-side apply (`application/apply-patch+yaml`): creates the object or merges into it. */
  #apply(
    context: RequestContext,
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    subresource: string | undefined,
    body: unknown,
  ): void {
    const params = context.url.searchParams;
    const force = checkForceParam(params, true);
    const manager = params.get('fieldManager');
    if (!manager) {
      throw new ApiError(
        422,
        'Invalid',
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        {
          group: 'meta.k8s.io',
          kind: 'PatchOptions',
          causes: [
            {
              reason: 'FieldValueRequired',
              message: 'Required value: is required for apply patch',
              field: 'fieldManager',
            },
          ],
        },
      );
    }
    if (subresource !== undefined) {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `apply patches to the ${subresource} subresource are not served by the simulator`,
      );
    }
    const config = structuredClone(body) as KubeObject;
    this.#checkBodyIdentity(type, config, namespace, name);
    if (config.apiVersion === undefined || config.kind === undefined) {
      throw badRequest(
        `apply patch must have apiVersion and kind set (got apiVersion ${JSON.stringify(config.apiVersion ?? '')}, kind ${JSON.stringify(config.kind ?? '')})`,
      );
    }
    const stored = this.#cluster.store.get(type.storage, type.namespaced ? namespace : undefined, name);
    const live = stored && this.#served(type, stored);
    this.#checkFields(context, type, config, live);
    const merged = apply({
      definition: definitionNameFor(type.group, type.version, type.kind) ?? '',
      live,
      config: { ...config, metadata: { ...config.metadata, name } },
      manager,
      force,
      apiVersion: groupVersion(type),
      time: this.#cluster.clock.timestamp(),
    });
    context.applied = true;
    if (!stored) return this.#create(context, type, namespace, merged);
    this.#replace(context, type, stored, merged, undefined, config.metadata.resourceVersion);
  }

  #delete(context: RequestContext, type: ResourceType, namespace: string | undefined, name: string): void {
    const current = this.#stored(type, namespace, name);
    const options = context.deleteOptions!;
    const precondition = options.preconditions;
    if (precondition?.uid && precondition.uid !== current.metadata.uid) {
      throw new ApiError(
        409,
        'Conflict',
        `Precondition failed: UID in precondition: ${precondition.uid}, UID in object meta: ${current.metadata.uid}`,
      );
    }
    if (precondition?.resourceVersion && precondition.resourceVersion !== current.metadata.resourceVersion) {
      throw new ApiError(
        409,
        'Conflict',
        `Precondition failed: ResourceVersion in precondition: ${precondition.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
    const outcome = deleteObject(this.#cluster, type, current, options);
    if (!options.dryRun) this.#cluster.reconcile();
    if (outcome.pending || RETURNS_DELETED_OBJECT.has(type.storage))
      return this.#send(context, 200, this.#served(type, outcome.object));
    this.#send(context, 200, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name, group: type.group, kind: type.plural, uid: current.metadata.uid },
    });
  }

  /** `DELETE` on a collection: deletes every object matching the selectors, with the DeleteOptions. */
  #deleteCollection(context: RequestContext, type: ResourceType, namespace: string | undefined): void {
    const matches = this.#matcher(context, type);
    const store = this.#cluster.store;
    const options = context.deleteOptions!;
    const victims = store
      .list(type.storage, type.namespaced ? namespace : undefined)
      .filter((object) => matches(toApiView(type, object)));
    const results = victims.map((object) => deleteObject(this.#cluster, type, object, options).object);
    if (!options.dryRun) this.#cluster.reconcile();
    this.#send(context, 200, {
      kind: `${type.kind}List`,
      apiVersion: groupVersion(type),
      metadata: { resourceVersion: String(store.revision) },
      items: results.map((object) => toApiView(type, object)),
    });
  }
}

/** An RFC 7234 `Warning` header value as the API server writes it (code 299, agent `-`). */
function warningHeader(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

/** What RBAC knows of an identity: its name and groups (service accounts get theirs). */
function userInfoOf(identity: SimIdentity): UserInfo {
  const groups = new Set(identity.groups ?? []);
  const serviceAccount = /^system:serviceaccount:([^:]+):[^:]+$/.exec(identity.name);
  if (serviceAccount) {
    groups.add('system:serviceaccounts');
    groups.add(`system:serviceaccounts:${serviceAccount[1]}`);
  }
  groups.add('system:authenticated');
  return {
    username: identity.name,
    groups: [...groups],
    ...(identity.readOnly && {
      extraRules: [{ verbs: ['get', 'list', 'watch'], apiGroups: ['*'], resources: ['*'] }],
    }),
  };
}

/** Whether a PATCH is a server-side apply (YAML; JSON is valid YAML). */
function isApplyPatch(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/apply-patch+yaml';
}

/** `force` of a PATCH: only for apply patches (the apiserver's PatchOptions validation). */
function checkForceParam(params: URLSearchParams, isApply: boolean): boolean {
  const value = params.get('force');
  if (value === null) return false;
  if (!isApply) {
    throw new ApiError(
      422,
      'Invalid',
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
  }
  return value === 'true' || value === '1';
}

/** autoscaling/v1 HorizontalPodAutoscalers are stored as autoscaling/v2. */
function isHpaV1(type: ResourceType): boolean {
  return type.group === 'autoscaling' && type.version === 'v1';
}

function objectKey(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

/** Continue tokens: base64url JSON of the list's resourceVersion and the last key returned. */
function encodeContinue(rv: string, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: string; start: string } {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      rv?: unknown;
      start?: unknown;
    };
    if (typeof decoded.rv === 'string' && typeof decoded.start === 'string')
      return { rv: decoded.rv, start: decoded.start };
  } catch {
    // fall through to the 400 below
  }
  throw badRequest('continue key is not valid: the continue token is malformed');
}
