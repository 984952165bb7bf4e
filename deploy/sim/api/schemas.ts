/**
 * The schemas of the kinds the simulator serves, in the API server's OpenAPI terms (definition names
 * such as `io.k8s.api.apps.v1.Deployment`, the `x-kubernetes-*` list and map extensions that drive
 * strategic merge and server-side apply). One source for three readers: the OpenAPI v2/v3 documents
 * (`openapi.ts`, for `kubectl explain` and kubectl's field validation), unknown-field detection
 * (`fieldValidation=Strict|Warn`, `field-validation.ts`), and server-side apply's field sets and list
 * merge keys (`apply.ts`).
 *
 * Modelled: every field the simulator reads, writes or validates (validation.ts), with the real
 * types, merge keys and the first sentence of the real description. Subtrees the simulator does not
 * model (probes, volumes, affinity, security contexts, Node and Pod status details, HPA metrics) are
 * open objects (`x-kubernetes-preserve-unknown-fields`): kept as sent, never an unknown field.
 */

/** One schema node, a subset of the OpenAPI schema object; `$ref` holds a bare definition name. */
export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema;
  enum?: string[];
  $ref?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'map' | 'set';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const CORE = 'io.k8s.api.core.v1.';
const APPS = 'io.k8s.api.apps.v1.';
const RBAC = 'io.k8s.api.rbac.v1.';

const str = (description: string, extra: Partial<Schema> = {}): Schema => ({
  type: 'string',
  description,
  ...extra,
});
const i32 = (description: string): Schema => ({ type: 'integer', format: 'int32', description });
const i64 = (description: string): Schema => ({ type: 'integer', format: 'int64', description });
const bool = (description: string): Schema => ({ type: 'boolean', description });
const ref = (name: string, description?: string): Schema => ({
  $ref: name,
  ...(description && { description }),
});
const time = (description: string): Schema => ref(`${META}Time`, description);
const strMap = (description: string): Schema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string', default: '' } as Schema,
});
const quantityMap = (description: string): Schema => ({
  type: 'object',
  description,
  additionalProperties: ref('io.k8s.apimachinery.pkg.api.resource.Quantity'),
});
/** A subtree the simulator does not model: accepted and kept as sent. */
const open = (description: string): Schema => ({
  type: 'object',
  description,
  'x-kubernetes-preserve-unknown-fields': true,
});
const atomicList = (items: Schema, description: string): Schema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'atomic',
});
const setList = (description: string): Schema => ({
  type: 'array',
  description,
  items: { type: 'string' },
  'x-kubernetes-list-type': 'set',
});
/** A list merged by `keys` (strategic merge and server-side apply), like containers by name. */
const mapList = (items: Schema, description: string, keys: string[], patchKey = keys[0]!): Schema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': keys,
  'x-kubernetes-patch-merge-key': patchKey,
  'x-kubernetes-patch-strategy': 'merge',
});
const object = (description: string, properties: Record<string, Schema>, required?: string[]): Schema => ({
  type: 'object',
  description,
  properties,
  ...(required && { required }),
});
const gvk = (group: string, version: string, kind: string) => ({
  'x-kubernetes-group-version-kind': [{ group, version, kind }],
});

/** subjects and roleRef, as RoleBinding and ClusterRoleBinding have them. */
const bindingProperties = (roleRefDescription: string): Record<string, Schema> => ({
  subjects: atomicList(
    ref(`${RBAC}Subject`),
    'Subjects holds references to the objects the role applies to.',
  ),
  roleRef: ref(`${RBAC}RoleRef`, roleRefDescription),
});

/** apiVersion, kind, metadata, as every top-level kind has them. */
function kindProperties(): Record<string, Schema> {
  return {
    apiVersion: str(
      'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
    ),
    kind: str(
      'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.',
    ),
    metadata: ref(`${META}ObjectMeta`, "Standard object's metadata."),
  };
}

function topLevel(
  group: string,
  version: string,
  kind: string,
  description: string,
  properties: Record<string, Schema>,
  required?: string[],
): Schema {
  return {
    ...object(description, { ...kindProperties(), ...properties }, required),
    ...gvk(group, version, kind),
  };
}

function listOf(group: string, version: string, kind: string, item: string): Schema {
  return {
    ...object(
      `${kind}List is a list of ${kind.replace(/List$/, '')}s.`,
      {
        apiVersion: kindProperties()['apiVersion']!,
        kind: kindProperties()['kind']!,
        metadata: ref(`${META}ListMeta`, 'Standard list metadata.'),
        items: atomicList(ref(item), `Items is the list of ${kind.replace(/List$/, '')}s.`),
      },
      ['items'],
    ),
    ...gvk(group, version, kind),
  };
}

const LABEL_SELECTOR = ref(
  `${META}LabelSelector`,
  'A label query over a set of resources. The result of matchLabels and matchExpressions are ANDed.',
);

const podTemplateSpec = ref(`${CORE}PodTemplateSpec`, 'Template describes the pods that will be created.');

const DEFINITIONS_LIST: [string, Schema][] = [
  // meta/v1 and the shared scalar types
  [
    'io.k8s.apimachinery.pkg.api.resource.Quantity',
    str('Quantity is a fixed-point representation of a number, e.g. 100m, 512Mi, 1.5.'),
  ],
  [
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
    {
      type: 'string',
      format: 'int-or-string',
      description: 'IntOrString is a type that can hold an int32 or a string.',
      'x-kubernetes-int-or-string': true,
    },
  ],
  [
    `${META}Time`,
    str('Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON, RFC 3339.', {
      format: 'date-time',
    }),
  ],
  [
    `${META}MicroTime`,
    str('MicroTime is version of Time with microsecond level precision.', { format: 'date-time' }),
  ],
  [
    `${META}FieldsV1`,
    open('FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.'),
  ],
  [
    `${META}ObjectMeta`,
    object(
      'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
      {
        name: str(
          'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
        ),
        generateName: str(
          'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.',
        ),
        namespace: str(
          'Namespace defines the space within which each name must be unique. An empty namespace is equivalent to the "default" namespace.',
        ),
        uid: str(
          'UID is the unique in time and space value for this object. It is typically generated by the server on successful creation of a resource and is not allowed to change on PUT operations.',
        ),
        resourceVersion: str(
          'An opaque value that represents the internal version of this object that can be used by clients to determine when objects have changed.',
        ),
        generation: i64(
          'A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.',
        ),
        creationTimestamp: time(
          'CreationTimestamp is a timestamp representing the server time when this object was created.',
        ),
        deletionTimestamp: time(
          'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.',
        ),
        deletionGracePeriodSeconds: i64(
          'Number of seconds allowed for this object to gracefully terminate before it will be removed from the system.',
        ),
        labels: strMap(
          'Map of string keys and values that can be used to organize and categorize (scope and select) objects.',
        ),
        annotations: strMap(
          'Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.',
        ),
        ownerReferences: mapList(ref(`${META}OwnerReference`), 'List of objects depended by this object.', [
          'uid',
        ]),
        finalizers: {
          ...setList('Must be empty before the object is deleted from the registry.'),
          'x-kubernetes-patch-strategy': 'merge',
        },
        managedFields: atomicList(
          ref(`${META}ManagedFieldsEntry`),
          'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
        ),
        selfLink: str(
          'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.',
        ),
      },
    ),
  ],
  [
    `${META}OwnerReference`,
    {
      ...object(
        'OwnerReference contains enough information to let you identify an owning object.',
        {
          apiVersion: str('API version of the referent.'),
          kind: str('Kind of the referent.'),
          name: str('Name of the referent.'),
          uid: str('UID of the referent.'),
          controller: bool('If true, this reference points to the managing controller.'),
          blockOwnerDeletion: bool(
            'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.',
          ),
        },
        ['apiVersion', 'kind', 'name', 'uid'],
      ),
      'x-kubernetes-map-type': 'atomic',
    },
  ],
  [
    `${META}ManagedFieldsEntry`,
    object(
      'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
      {
        manager: str('Manager is an identifier of the workflow managing these fields.'),
        operation: str(
          "Operation is the type of operation which lead to this ManagedFieldsEntry being created. The only valid values for this field are 'Apply' and 'Update'.",
        ),
        apiVersion: str('APIVersion defines the version of this resource that this field set applies to.'),
        time: time('Time is the timestamp of when the ManagedFields entry was added.'),
        fieldsType: str(
          'FieldsType is the discriminator for the different fields format and version. There is currently only one possible value: "FieldsV1"',
        ),
        fieldsV1: ref(
          `${META}FieldsV1`,
          'FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.',
        ),
        subresource: str(
          'Subresource is the name of the subresource used to update that object, or empty string if the object was updated through the main resource.',
        ),
      },
    ),
  ],
  [
    `${META}LabelSelector`,
    {
      ...object('A label selector is a label query over a set of resources.', {
        matchLabels: strMap('matchLabels is a map of {key,value} pairs.'),
        matchExpressions: atomicList(
          ref(`${META}LabelSelectorRequirement`),
          'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
        ),
      }),
      'x-kubernetes-map-type': 'atomic',
    },
  ],
  [
    `${META}LabelSelectorRequirement`,
    object(
      'A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
      {
        key: str('key is the label key that the selector applies to.'),
        operator: str(
          "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.",
        ),
        values: atomicList({ type: 'string' }, 'values is an array of string values.'),
      },
      ['key', 'operator'],
    ),
  ],
  [
    `${META}ListMeta`,
    object(
      'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
      {
        resourceVersion: str("String that identifies the server's internal version of this object."),
        continue: str('continue may be set if the user set a limit on the number of items returned.'),
        remainingItemCount: i64(
          'remainingItemCount is the number of subsequent items in the list which are not included in this list response.',
        ),
      },
    ),
  ],
  // core/v1
  [
    `${CORE}Namespace`,
    topLevel(
      '',
      'v1',
      'Namespace',
      'Namespace provides a scope for Names. Use of multiple namespaces is optional.',
      {
        spec: object('Spec defines the behavior of the Namespace.', {
          finalizers: atomicList(
            { type: 'string' },
            'Finalizers is an opaque list of values that must be empty to permanently remove object from storage.',
          ),
        }),
        status: open('Status describes the current status of a Namespace.'),
      },
    ),
  ],
  [
    `${CORE}Node`,
    topLevel(
      '',
      'v1',
      'Node',
      'Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).',
      {
        spec: object('Spec defines the behavior of a node.', {
          podCIDR: str('PodCIDR represents the pod IP range assigned to the node.'),
          providerID: str('ID of the node assigned by the cloud provider.'),
          unschedulable: bool(
            'Unschedulable controls node schedulability of new pods. By default, node is schedulable.',
          ),
          taints: atomicList(
            open(
              'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.',
            ),
            "If specified, the node's taints.",
          ),
        }),
        status: open('Most recently observed status of the node.'),
      },
    ),
  ],
  [
    `${CORE}Pod`,
    topLevel(
      '',
      'v1',
      'Pod',
      'Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.',
      {
        spec: ref(`${CORE}PodSpec`, 'Specification of the desired behavior of the pod.'),
        status: open('Most recently observed status of the pod. This data may not be up to date.'),
      },
    ),
  ],
  [
    `${CORE}PodTemplateSpec`,
    object('PodTemplateSpec describes the data a pod should have when created from a template', {
      metadata: ref(`${META}ObjectMeta`, "Standard object's metadata."),
      spec: ref(`${CORE}PodSpec`, 'Specification of the desired behavior of the pod.'),
    }),
  ],
  [
    `${CORE}PodSpec`,
    object(
      'PodSpec is a description of a pod.',
      {
        containers: mapList(
          ref(`${CORE}Container`),
          'List of containers belonging to the pod. Containers cannot currently be added or removed. There must be at least one container in a Pod. Cannot be updated.',
          ['name'],
        ),
        initContainers: mapList(
          ref(`${CORE}Container`),
          'List of initialization containers belonging to the pod.',
          ['name'],
        ),
        restartPolicy: str(
          'Restart policy for all containers within the pod. One of Always, OnFailure, Never. Default to Always.',
        ),
        terminationGracePeriodSeconds: i64(
          'Optional duration in seconds the pod needs to terminate gracefully.',
        ),
        activeDeadlineSeconds: i64(
          'Optional duration in seconds the pod may be active on the node relative to StartTime before the system will actively try to mark it failed and kill associated containers.',
        ),
        dnsPolicy: str('Set DNS policy for the pod. Defaults to "ClusterFirst".'),
        nodeSelector: {
          ...strMap('NodeSelector is a selector which must be true for the pod to fit on a node.'),
          'x-kubernetes-map-type': 'atomic',
        },
        serviceAccountName: str(
          'ServiceAccountName is the name of the ServiceAccount to use to run this pod.',
        ),
        serviceAccount: str('DeprecatedServiceAccount is a deprecated alias for ServiceAccountName.'),
        nodeName: str('NodeName indicates in which node this pod is scheduled.'),
        hostname: str(
          "Specifies the hostname of the Pod If not specified, the pod's hostname will be set to a system-defined value.",
        ),
        subdomain: str(
          'If specified, the fully qualified Pod hostname will be "<hostname>.<subdomain>.<pod namespace>.svc.<cluster domain>".',
        ),
        hostNetwork: bool("Host networking requested for this pod. Use the host's network namespace."),
        schedulerName: str('If specified, the pod will be dispatched by specified scheduler.'),
        priorityClassName: str("If specified, indicates the pod's priority."),
        priority: i32('The priority value.'),
        enableServiceLinks: bool(
          "EnableServiceLinks indicates whether information about services should be injected into pod's environment variables.",
        ),
        preemptionPolicy: str('PreemptionPolicy is the Policy for preempting pods with lower priority.'),
        securityContext: open(
          'SecurityContext holds pod-level security attributes and common container settings.',
        ),
        affinity: open("If specified, the pod's scheduling constraints"),
        tolerations: atomicList(
          open(
            'The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect>.',
          ),
          "If specified, the pod's tolerations.",
        ),
        volumes: mapList(
          open('Volume represents a named volume in a pod that may be accessed by any container in the pod.'),
          'List of volumes that can be mounted by containers belonging to the pod.',
          ['name'],
        ),
        imagePullSecrets: mapList(
          open(
            'LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.',
          ),
          'ImagePullSecrets is an optional list of references to secrets in the same namespace to use for pulling any of the images used by this PodSpec.',
          ['name'],
        ),
        topologySpreadConstraints: atomicList(
          open('TopologySpreadConstraint specifies how to spread matching pods among the given topology.'),
          'TopologySpreadConstraints describes how a group of pods ought to spread across topology domains.',
        ),
      },
      ['containers'],
    ),
  ],
  [
    `${CORE}Container`,
    object(
      'A single application container that you want to run within a pod.',
      {
        name: str(
          'Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name (DNS_LABEL). Cannot be updated.',
        ),
        image: str('Container image name.'),
        imagePullPolicy: str(
          'Image pull policy. One of Always, Never, IfNotPresent. Defaults to Always if :latest tag is specified, or IfNotPresent otherwise.',
        ),
        command: atomicList(
          { type: 'string' },
          "Entrypoint array. Not executed within a shell. The container image's ENTRYPOINT is used if this is not provided.",
        ),
        args: atomicList(
          { type: 'string' },
          "Arguments to the entrypoint. The container image's CMD is used if this is not provided.",
        ),
        workingDir: str("Container's working directory."),
        env: mapList(
          ref(`${CORE}EnvVar`),
          'List of environment variables to set in the container. Cannot be updated.',
          ['name'],
        ),
        envFrom: atomicList(
          open('EnvFromSource represents the source of a set of ConfigMaps or Secrets'),
          'List of sources to populate environment variables in the container.',
        ),
        ports: mapList(
          ref(`${CORE}ContainerPort`),
          'List of ports to expose from the container.',
          ['containerPort', 'protocol'],
          'containerPort',
        ),
        resources: ref(
          `${CORE}ResourceRequirements`,
          'Compute Resources required by this container. Cannot be updated.',
        ),
        volumeMounts: mapList(
          open('VolumeMount describes a mounting of a Volume within a container.'),
          "Pod volumes to mount into the container's filesystem. Cannot be updated.",
          ['mountPath'],
        ),
        livenessProbe: open(
          'Periodic probe of container liveness. Container will be restarted if the probe fails.',
        ),
        readinessProbe: open(
          'Periodic probe of container service readiness. Container will be removed from service endpoints if the probe fails.',
        ),
        startupProbe: open('StartupProbe indicates that the Pod has successfully initialized.'),
        lifecycle: open(
          'Actions that the management system should take in response to container lifecycle events.',
        ),
        securityContext: open(
          'SecurityContext defines the security options the container should be run with.',
        ),
        terminationMessagePath: str(
          "Optional: Path at which the file to which the container's termination message will be written is mounted into the container's filesystem.",
        ),
        terminationMessagePolicy: str(
          'Indicate how the termination message should be populated. File or FallbackToLogsOnError.',
        ),
        stdin: bool('Whether this container should allocate a buffer for stdin in the container runtime.'),
        tty: bool('Whether this container should allocate a TTY for itself.'),
      },
      ['name'],
    ),
  ],
  [
    `${CORE}EnvVar`,
    object(
      'EnvVar represents an environment variable present in a Container.',
      {
        name: str('Name of the environment variable. Must be a C_IDENTIFIER.'),
        value: str(
          'Variable references $(VAR_NAME) are expanded using the previously defined environment variables in the container and any service environment variables.',
        ),
        valueFrom: open("Source for the environment variable's value. Cannot be used if value is not empty."),
      },
      ['name'],
    ),
  ],
  [
    `${CORE}ContainerPort`,
    object(
      'ContainerPort represents a network port in a single container.',
      {
        name: str('If specified, this must be an IANA_SVC_NAME and unique within the pod.'),
        containerPort: i32(
          "Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536.",
        ),
        hostPort: i32('Number of port to expose on the host.'),
        hostIP: str('What host IP to bind the external port to.'),
        protocol: str('Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".'),
      },
      ['containerPort'],
    ),
  ],
  [
    `${CORE}ResourceRequirements`,
    object('ResourceRequirements describes the compute resource requirements.', {
      limits: quantityMap('Limits describes the maximum amount of compute resources allowed.'),
      requests: quantityMap('Requests describes the minimum amount of compute resources required.'),
    }),
  ],
  [
    `${CORE}Service`,
    topLevel(
      '',
      'v1',
      'Service',
      'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.',
      {
        spec: object('Spec defines the behavior of a service.', {
          selector: {
            ...strMap('Route service traffic to pods with label keys and values matching this selector.'),
            'x-kubernetes-map-type': 'atomic',
          },
          ports: mapList(
            ref(`${CORE}ServicePort`),
            'The list of ports that are exposed by this service.',
            ['port', 'protocol'],
            'port',
          ),
          type: str('type determines how the Service is exposed. Defaults to ClusterIP.'),
          clusterIP: str('clusterIP is the IP address of the service and is usually assigned randomly.'),
          clusterIPs: atomicList(
            { type: 'string' },
            'ClusterIPs is a list of IP addresses assigned to this service.',
          ),
          sessionAffinity: str('Supports "ClientIP" and "None". Used to maintain session affinity.'),
          ipFamilies: atomicList(
            { type: 'string' },
            'IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service.',
          ),
          ipFamilyPolicy: str(
            'IPFamilyPolicy represents the dual-stack-ness requested or required by this Service.',
          ),
          internalTrafficPolicy: str(
            'InternalTrafficPolicy describes how nodes distribute service traffic they receive on the ClusterIP.',
          ),
          externalTrafficPolicy: str(
            'externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the Service\'s "externally-facing" addresses.',
          ),
          externalName: str(
            'externalName is the external reference that discovery mechanisms will return as an alias for this service.',
          ),
        }),
        status: open('Most recently observed status of the service.'),
      },
    ),
  ],
  [
    `${CORE}ServicePort`,
    object(
      "ServicePort contains information on service's port.",
      {
        name: str('The name of this port within the service.'),
        protocol: str('The IP protocol for this port. Supports "TCP", "UDP", and "SCTP". Default is TCP.'),
        port: i32('The port that will be exposed by this service.'),
        targetPort: ref(
          'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
          'Number or name of the port to access on the pods targeted by the service.',
        ),
        nodePort: i32(
          'The port on each node on which this service is exposed when type is NodePort or LoadBalancer.',
        ),
        appProtocol: str('The application protocol for this port.'),
      },
      ['port'],
    ),
  ],
  [
    `${CORE}ServiceAccount`,
    topLevel(
      '',
      'v1',
      'ServiceAccount',
      'ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets',
      {
        automountServiceAccountToken: bool(
          'AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted.',
        ),
        secrets: mapList(
          open(
            'ObjectReference contains enough information to let you inspect or modify the referred object.',
          ),
          'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
          ['name'],
        ),
        imagePullSecrets: atomicList(
          open(
            'LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.',
          ),
          'ImagePullSecrets is a list of references to secrets in the same namespace to use for pulling any images in pods that reference this ServiceAccount.',
        ),
      },
    ),
  ],
  [
    `${CORE}ConfigMap`,
    topLevel('', 'v1', 'ConfigMap', 'ConfigMap holds configuration data for pods to consume.', {
      data: strMap('Data contains the configuration data.'),
      binaryData: strMap('BinaryData contains the binary data (base64).'),
      immutable: bool(
        'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.',
      ),
    }),
  ],
  [
    `${CORE}Secret`,
    topLevel(
      '',
      'v1',
      'Secret',
      'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.',
      {
        data: strMap('Data contains the secret data (base64-encoded values).'),
        stringData: strMap('stringData allows specifying non-binary secret data in string form.'),
        type: str('Used to facilitate programmatic handling of secret data.'),
        immutable: bool(
          'Immutable, if set to true, ensures that data stored in the Secret cannot be updated.',
        ),
      },
    ),
  ],
  [
    `${CORE}Event`,
    topLevel(
      '',
      'v1',
      'Event',
      'Event is a report of an event somewhere in the cluster.',
      {
        involvedObject: ref(`${CORE}ObjectReference`, 'The object that this event is about.'),
        reason: str(
          "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
        ),
        message: str('A human-readable description of the status of this operation.'),
        source: object('The component reporting this event.', {
          component: str('Component from which the event is generated.'),
          host: str('Node name on which the event is generated.'),
        }),
        firstTimestamp: time(
          'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
        ),
        lastTimestamp: time('The time at which the most recent occurrence of this event was recorded.'),
        count: i32('The number of times this event has occurred.'),
        type: str('Type of this event (Normal, Warning), new types could be added in the future'),
        eventTime: ref(`${META}MicroTime`, 'Time when this Event was first observed.'),
        series: open("Data about the Event series this event represents or nil if it's a singleton Event."),
        action: str('What action was taken/failed regarding to the Regarding object.'),
        related: ref(`${CORE}ObjectReference`, 'Optional secondary object for more complex actions.'),
        reportingComponent: str(
          'Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.',
        ),
        reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`.'),
      },
      ['metadata', 'involvedObject'],
    ),
  ],
  [
    `${CORE}ObjectReference`,
    {
      ...object(
        'ObjectReference contains enough information to let you inspect or modify the referred object.',
        {
          apiVersion: str('API version of the referent.'),
          kind: str('Kind of the referent.'),
          name: str('Name of the referent.'),
          namespace: str('Namespace of the referent.'),
          uid: str('UID of the referent.'),
          resourceVersion: str('Specific resourceVersion to which this reference is made, if any.'),
          fieldPath: str(
            'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].',
          ),
        },
      ),
      'x-kubernetes-map-type': 'atomic',
    },
  ],
  // apps/v1
  [
    `${APPS}Deployment`,
    topLevel('apps', 'v1', 'Deployment', 'Deployment enables declarative updates for Pods and ReplicaSets.', {
      spec: ref(`${APPS}DeploymentSpec`, 'Specification of the desired behavior of the Deployment.'),
      status: ref(`${APPS}DeploymentStatus`, 'Most recently observed status of the Deployment.'),
    }),
  ],
  [
    `${APPS}DeploymentSpec`,
    object(
      'DeploymentSpec is the specification of the desired behavior of the Deployment.',
      {
        replicas: i32(
          'Number of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults to 1.',
        ),
        selector: {
          ...LABEL_SELECTOR,
          description:
            "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
        },
        template: podTemplateSpec,
        strategy: ref(
          `${APPS}DeploymentStrategy`,
          'The deployment strategy to use to replace existing pods with new ones.',
        ),
        minReadySeconds: i32(
          'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0.',
        ),
        revisionHistoryLimit: i32(
          'The number of old ReplicaSets to retain to allow rollback. Defaults to 10.',
        ),
        paused: bool('Indicates that the deployment is paused.'),
        progressDeadlineSeconds: i32(
          'The maximum time in seconds for a deployment to make progress before it is considered to be failed. Defaults to 600s.',
        ),
      },
      ['selector', 'template'],
    ),
  ],
  [
    `${APPS}DeploymentStrategy`,
    object('DeploymentStrategy describes how to replace existing pods with new ones.', {
      type: str('Type of deployment. Can be "Recreate" or "RollingUpdate". Default is RollingUpdate.'),
      rollingUpdate: ref(
        `${APPS}RollingUpdateDeployment`,
        'Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate.',
      ),
    }),
  ],
  [
    `${APPS}RollingUpdateDeployment`,
    object('Spec to control the desired behavior of rolling update.', {
      maxUnavailable: ref(
        'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
        'The maximum number of pods that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Defaults to 25%.',
      ),
      maxSurge: ref(
        'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
        'The maximum number of pods that can be scheduled above the desired number of pods. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Defaults to 25%.',
      ),
    }),
  ],
  [
    `${APPS}DeploymentStatus`,
    object('DeploymentStatus is the most recently observed status of the Deployment.', {
      observedGeneration: i64('The generation observed by the deployment controller.'),
      replicas: i32(
        'Total number of non-terminated pods targeted by this deployment (their labels match the selector).',
      ),
      updatedReplicas: i32(
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      ),
      readyReplicas: i32(
        'readyReplicas is the number of pods targeted by this Deployment with a Ready Condition.',
      ),
      availableReplicas: i32(
        'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      ),
      unavailableReplicas: i32('Total number of unavailable pods targeted by this deployment.'),
      conditions: mapList(
        ref(`${APPS}DeploymentCondition`),
        "Represents the latest available observations of a deployment's current state.",
        ['type'],
      ),
      collisionCount: i32('Count of hash collisions for the Deployment.'),
    }),
  ],
  [
    `${APPS}DeploymentCondition`,
    object(
      'DeploymentCondition describes the state of a deployment at a certain point.',
      {
        type: str('Type of deployment condition.'),
        status: str('Status of the condition, one of True, False, Unknown.'),
        lastUpdateTime: time('The last time this condition was updated.'),
        lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
        reason: str("The reason for the condition's last transition."),
        message: str('A human readable message indicating details about the transition.'),
      },
      ['type', 'status'],
    ),
  ],
  [
    `${APPS}ReplicaSet`,
    topLevel(
      'apps',
      'v1',
      'ReplicaSet',
      'ReplicaSet ensures that a specified number of pod replicas are running at any given time.',
      {
        spec: ref(
          `${APPS}ReplicaSetSpec`,
          'Spec defines the specification of the desired behavior of the ReplicaSet.',
        ),
        status: ref(
          `${APPS}ReplicaSetStatus`,
          'Status is the most recently observed status of the ReplicaSet.',
        ),
      },
    ),
  ],
  [
    `${APPS}ReplicaSetSpec`,
    object(
      'ReplicaSetSpec is the specification of a ReplicaSet.',
      {
        replicas: i32('Replicas is the number of desired pods. Defaults to 1.'),
        minReadySeconds: i32(
          'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available.',
        ),
        selector: {
          ...LABEL_SELECTOR,
          description: 'Selector is a label query over pods that should match the replica count.',
        },
        template: podTemplateSpec,
      },
      ['selector'],
    ),
  ],
  [
    `${APPS}ReplicaSetStatus`,
    object('ReplicaSetStatus represents the current status of a ReplicaSet.', {
      replicas: i32('Replicas is the most recently observed number of non-terminating pods.'),
      fullyLabeledReplicas: i32(
        'The number of non-terminating pods that have labels matching the labels of the pod template of the replicaset.',
      ),
      readyReplicas: i32(
        'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.',
      ),
      availableReplicas: i32(
        'The number of available non-terminating pods (ready for at least minReadySeconds) for this replica set.',
      ),
      observedGeneration: i64(
        'ObservedGeneration reflects the generation of the most recently observed ReplicaSet.',
      ),
      conditions: mapList(
        open('ReplicaSetCondition describes the state of a replica set at a certain point.'),
        "Represents the latest available observations of a replica set's current state.",
        ['type'],
      ),
    }),
  ],
  [
    `${APPS}StatefulSet`,
    topLevel(
      'apps',
      'v1',
      'StatefulSet',
      'StatefulSet represents a set of pods with consistent identities.',
      {
        spec: ref(`${APPS}StatefulSetSpec`, 'Spec defines the desired identities of pods in this set.'),
        status: ref(
          `${APPS}StatefulSetStatus`,
          'Status is the current status of Pods in this StatefulSet. This data may be out of date by some window of time.',
        ),
      },
    ),
  ],
  [
    `${APPS}StatefulSetSpec`,
    object(
      'A StatefulSetSpec is the specification of a StatefulSet.',
      {
        replicas: i32(
          'replicas is the desired number of replicas of the given Template. These are replicas in the sense that they are instantiations of the same Template, but individual replicas also have a consistent identity.',
        ),
        selector: {
          ...LABEL_SELECTOR,
          description:
            "selector is a label query over pods that should match the replica count. It must match the pod template's labels.",
        },
        template: podTemplateSpec,
        volumeClaimTemplates: atomicList(
          ref(`${CORE}PersistentVolumeClaim`),
          'volumeClaimTemplates is a list of claims that pods are allowed to reference.',
        ),
        serviceName: str(
          'serviceName is the name of the service that governs this StatefulSet. This service must exist before the StatefulSet, and is responsible for the network identity of the set.',
        ),
        podManagementPolicy: str(
          'podManagementPolicy controls how pods are created during initial scale up, when replacing pods on nodes, or when scaling down. The default policy is `OrderedReady`.',
        ),
        updateStrategy: ref(
          `${APPS}StatefulSetUpdateStrategy`,
          'updateStrategy indicates the StatefulSetUpdateStrategy that will be employed to update Pods in the StatefulSet when a revision is made to Template.',
        ),
        revisionHistoryLimit: i32(
          "revisionHistoryLimit is the maximum number of revisions that will be maintained in the StatefulSet's revision history. The revision history consists of all revisions not represented by a currently applied StatefulSetSpec version. The default value is 10.",
        ),
        minReadySeconds: i32(
          'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing for it to be considered available. Defaults to 0.',
        ),
        persistentVolumeClaimRetentionPolicy: object(
          'StatefulSetPersistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the StatefulSet VolumeClaimTemplates.',
          {
            whenDeleted: str(
              'WhenDeleted specifies what happens to PVCs created from StatefulSet VolumeClaimTemplates when the StatefulSet is deleted. The default policy of `Retain` causes PVCs to not be affected by StatefulSet deletion.',
            ),
            whenScaled: str(
              'WhenScaled specifies what happens to PVCs created from StatefulSet VolumeClaimTemplates when the StatefulSet is scaled down. The default policy of `Retain` causes PVCs to not be affected by a scaledown.',
            ),
          },
        ),
        ordinals: object(
          'StatefulSetOrdinals describes the policy used for replica ordinal assignment in this StatefulSet.',
          {
            start: i32(
              "start is the number representing the first replica's index. It may be used to number replicas from an alternate index (eg: 1-indexed) over the default 0-indexed names.",
            ),
          },
        ),
      },
      ['selector', 'template'],
    ),
  ],
  [
    `${APPS}StatefulSetUpdateStrategy`,
    object(
      'StatefulSetUpdateStrategy indicates the strategy that the StatefulSet controller will use to perform updates.',
      {
        type: str('Type indicates the type of the StatefulSetUpdateStrategy. Default is RollingUpdate.'),
        rollingUpdate: object(
          'RollingUpdateStatefulSetStrategy is used to communicate parameter for RollingUpdateStatefulSetStrategyType.',
          {
            partition: i32(
              'Partition indicates the ordinal at which the StatefulSet should be partitioned for updates. During a rolling update, all pods from ordinal Replicas-1 to Partition are updated. All pods from ordinal Partition-1 to 0 remain untouched.',
            ),
            maxUnavailable: ref(
              'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
              'The maximum number of pods that can be unavailable during the update.',
            ),
          },
        ),
      },
    ),
  ],
  [
    `${APPS}StatefulSetStatus`,
    object('StatefulSetStatus represents the current state of a StatefulSet.', {
      observedGeneration: i64(
        "observedGeneration is the most recent generation observed for this StatefulSet. It corresponds to the StatefulSet's generation, which is updated on mutation by the API Server.",
      ),
      replicas: i32('replicas is the number of Pods created by the StatefulSet controller.'),
      readyReplicas: i32(
        'readyReplicas is the number of pods created for this StatefulSet with a Ready Condition.',
      ),
      currentReplicas: i32(
        'currentReplicas is the number of Pods created by the StatefulSet controller from the StatefulSet version indicated by currentRevision.',
      ),
      updatedReplicas: i32(
        'updatedReplicas is the number of Pods created by the StatefulSet controller from the StatefulSet version indicated by updateRevision.',
      ),
      currentRevision: str(
        'currentRevision, if not empty, indicates the version of the StatefulSet used to generate Pods in the sequence [0,currentReplicas).',
      ),
      updateRevision: str(
        'updateRevision, if not empty, indicates the version of the StatefulSet used to generate Pods in the sequence [replicas-updatedReplicas,replicas)',
      ),
      collisionCount: i32(
        'collisionCount is the count of hash collisions for the StatefulSet. The StatefulSet controller uses this field as a collision avoidance mechanism when it needs to create the name for the newest ControllerRevision.',
      ),
      availableReplicas: i32(
        'Total number of available pods (ready for at least minReadySeconds) targeted by this statefulset.',
      ),
      conditions: mapList(
        open('StatefulSetCondition describes the state of a statefulset at a certain point.'),
        "Represents the latest available observations of a statefulset's current state.",
        ['type'],
      ),
    }),
  ],
  [
    `${APPS}DaemonSet`,
    topLevel('apps', 'v1', 'DaemonSet', 'DaemonSet represents the configuration of a daemon set.', {
      spec: ref(`${APPS}DaemonSetSpec`, 'The desired behavior of this daemon set.'),
      status: ref(`${APPS}DaemonSetStatus`, 'The current status of this daemon set.'),
    }),
  ],
  [
    `${APPS}DaemonSetSpec`,
    object(
      'DaemonSetSpec is the specification of a daemon set.',
      {
        selector: {
          ...LABEL_SELECTOR,
          description:
            "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels.",
        },
        template: podTemplateSpec,
        updateStrategy: ref(
          `${APPS}DaemonSetUpdateStrategy`,
          'An update strategy to replace existing DaemonSet pods with new pods.',
        ),
        minReadySeconds: i32(
          'The minimum number of seconds for which a newly created DaemonSet pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0.',
        ),
        revisionHistoryLimit: i32('The number of old history to retain to allow rollback. Defaults to 10.'),
      },
      ['selector', 'template'],
    ),
  ],
  [
    `${APPS}DaemonSetUpdateStrategy`,
    object('DaemonSetUpdateStrategy is a struct used to control the update strategy for a DaemonSet.', {
      type: str('Type of daemon set update. Can be "RollingUpdate" or "OnDelete". Default is RollingUpdate.'),
      rollingUpdate: object('Spec to control the desired behavior of daemon set rolling update.', {
        maxUnavailable: ref(
          'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
          'The maximum number of DaemonSet pods that can be unavailable during the update. Default value is 1.',
        ),
        maxSurge: ref(
          'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
          'The maximum number of nodes with an existing available DaemonSet pod that can have an updated DaemonSet pod during during an update. Default value is 0.',
        ),
      }),
    }),
  ],
  [
    `${APPS}DaemonSetStatus`,
    object('DaemonSetStatus represents the current status of a daemon set.', {
      currentNumberScheduled: i32(
        'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
      ),
      numberMisscheduled: i32(
        'The number of nodes that are running the daemon pod, but are not supposed to run the daemon pod.',
      ),
      desiredNumberScheduled: i32(
        'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).',
      ),
      numberReady: i32(
        'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
      ),
      observedGeneration: i64('The most recent generation observed by the daemon set controller.'),
      updatedNumberScheduled: i32('The total number of nodes that are running updated daemon pod'),
      numberAvailable: i32(
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
      ),
      numberUnavailable: i32(
        'The number of nodes that should be running the daemon pod and have none of the daemon pod running and available (ready for at least spec.minReadySeconds)',
      ),
      collisionCount: i32('Count of hash collisions for the DaemonSet.'),
      conditions: mapList(
        open('DaemonSetCondition describes the state of a DaemonSet at a certain point.'),
        "Represents the latest available observations of a DaemonSet's current state.",
        ['type'],
      ),
    }),
  ],
  [
    `${APPS}ControllerRevision`,
    topLevel(
      'apps',
      'v1',
      'ControllerRevision',
      'ControllerRevision implements an immutable snapshot of state data. Clients are responsible for serializing and deserializing the objects that contain their internal state.',
      {
        data: open('Data is the serialized representation of the state.'),
        revision: i64('Revision indicates the revision of the state represented by Data.'),
      },
      ['revision'],
    ),
  ],
  [
    `${CORE}PersistentVolumeClaim`,
    topLevel(
      '',
      'v1',
      'PersistentVolumeClaim',
      "PersistentVolumeClaim is a user's request for and claim to a persistent volume",
      {
        spec: object(
          'PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes',
          {
            accessModes: atomicList(
              { type: 'string' },
              'accessModes contains the desired access modes the volume should have.',
            ),
            resources: open('resources represents the minimum resources the volume should have.'),
            storageClassName: str('storageClassName is the name of the StorageClass required by the claim.'),
            volumeMode: str(
              'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.',
            ),
            volumeName: str(
              'volumeName is the binding reference to the PersistentVolume backing this claim.',
            ),
            selector: LABEL_SELECTOR,
            dataSource: open(
              'dataSource field can be used to specify an existing VolumeSnapshot object or an existing PVC.',
            ),
            dataSourceRef: open(
              'dataSourceRef specifies the object from which to populate the volume with data.',
            ),
            volumeAttributesClassName: str(
              'volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.',
            ),
          },
        ),
        status: open('status represents the current information/status of a persistent volume claim.'),
      },
    ),
  ],
  // events.k8s.io/v1
  [
    'io.k8s.api.events.v1.Event',
    topLevel(
      'events.k8s.io',
      'v1',
      'Event',
      'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system.',
      {
        eventTime: ref(
          `${META}MicroTime`,
          'eventTime is the time when this Event was first observed. It is required.',
        ),
        series: object(
          "series is data about the Event series this event represents or nil if it's a singleton Event.",
          {
            count: i32('count is the number of occurrences in this series up to the last heartbeat time.'),
            lastObservedTime: ref(
              `${META}MicroTime`,
              'lastObservedTime is the time when last Event from the series was seen before last heartbeat.',
            ),
          },
          ['count', 'lastObservedTime'],
        ),
        reportingController: str(
          'reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.',
        ),
        reportingInstance: str(
          'reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`.',
        ),
        action: str('action is what action was taken/failed regarding to the regarding object.'),
        reason: str('reason is why the action was taken. It is human-readable.'),
        regarding: ref(`${CORE}ObjectReference`, 'regarding contains the object this Event is about.'),
        related: ref(
          `${CORE}ObjectReference`,
          'related is the optional secondary object for more complex actions.',
        ),
        note: str('note is a human-readable description of the status of this operation.'),
        type: str(
          'type is the type of this event (Normal, Warning), new types could be added in the future.',
        ),
        deprecatedSource: object(
          'deprecatedSource is the deprecated field assuring backward compatibility with core.v1 Event type.',
          {
            component: str('Component from which the event is generated.'),
            host: str('Node name on which the event is generated.'),
          },
        ),
        deprecatedFirstTimestamp: time(
          'deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
        ),
        deprecatedLastTimestamp: time(
          'deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
        ),
        deprecatedCount: i32(
          'deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type.',
        ),
      },
      ['eventTime'],
    ),
  ],
  // autoscaling
  [
    'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler',
    topLevel(
      'autoscaling',
      'v2',
      'HorizontalPodAutoscaler',
      'HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the replica count of any resource implementing the scale subresource based on the metrics specified.',
      {
        spec: object(
          'spec is the specification for the behaviour of the autoscaler.',
          {
            scaleTargetRef: ref(
              'io.k8s.api.autoscaling.v2.CrossVersionObjectReference',
              'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.',
            ),
            minReplicas: i32(
              'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down. It defaults to 1 pod.',
            ),
            maxReplicas: i32(
              'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.',
            ),
            metrics: atomicList(
              open('MetricSpec specifies how to scale based on a single metric.'),
              'metrics contains the specifications for which to use to calculate the desired replica count.',
            ),
            behavior: open(
              'behavior configures the scaling behavior of the target in both Up and Down directions.',
            ),
          },
          ['scaleTargetRef', 'maxReplicas'],
        ),
        status: open('status is the current information about the autoscaler.'),
      },
    ),
  ],
  [
    'io.k8s.api.autoscaling.v2.CrossVersionObjectReference',
    object(
      'CrossVersionObjectReference contains enough information to let you identify the referred resource.',
      {
        kind: str('kind is the kind of the referent.'),
        name: str('name is the name of the referent.'),
        apiVersion: str('apiVersion is the API version of the referent'),
      },
      ['kind', 'name'],
    ),
  ],
  [
    'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler',
    topLevel(
      'autoscaling',
      'v1',
      'HorizontalPodAutoscaler',
      'configuration of a horizontal pod autoscaler.',
      {
        spec: object(
          'spec defines the behaviour of autoscaler.',
          {
            scaleTargetRef: ref(
              'io.k8s.api.autoscaling.v1.CrossVersionObjectReference',
              'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.',
            ),
            minReplicas: i32(
              'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down. It defaults to 1 pod.',
            ),
            maxReplicas: i32(
              'maxReplicas is the upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.',
            ),
            targetCPUUtilizationPercentage: i32(
              'targetCPUUtilizationPercentage is the target average CPU utilization (represented as a percentage of requested CPU) over all the pods; if not specified the default autoscaling policy will be used.',
            ),
          },
          ['scaleTargetRef', 'maxReplicas'],
        ),
        status: open('status is the current information about the autoscaler.'),
      },
    ),
  ],
  [
    'io.k8s.api.autoscaling.v1.CrossVersionObjectReference',
    object(
      'CrossVersionObjectReference contains enough information to let you identify the referred resource.',
      {
        kind: str('kind is the kind of the referent.'),
        name: str('name is the name of the referent.'),
        apiVersion: str('apiVersion is the API version of the referent'),
      },
      ['kind', 'name'],
    ),
  ],
  // rbac.authorization.k8s.io/v1
  [
    `${RBAC}PolicyRule`,
    object(
      'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.',
      {
        verbs: atomicList(
          { type: 'string' },
          "Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs.",
        ),
        apiGroups: atomicList(
          { type: 'string' },
          'APIGroups is the name of the APIGroup that contains the resources. If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed. "" represents the core API group and "*" represents all API groups.',
        ),
        resources: atomicList(
          { type: 'string' },
          "Resources is a list of resources this rule applies to. '*' represents all resources.",
        ),
        resourceNames: atomicList(
          { type: 'string' },
          'ResourceNames is an optional white list of names that the rule applies to. An empty set means that everything is allowed.',
        ),
        nonResourceURLs: atomicList(
          { type: 'string' },
          'NonResourceURLs is a set of partial urls that a user should have access to. *s are allowed, but only as the full, final step in the path.',
        ),
      },
      ['verbs'],
    ),
  ],
  [
    `${RBAC}Role`,
    topLevel(
      'rbac.authorization.k8s.io',
      'v1',
      'Role',
      'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
      {
        rules: atomicList(ref(`${RBAC}PolicyRule`), 'Rules holds all the PolicyRules for this Role'),
      },
    ),
  ],
  [
    `${RBAC}ClusterRole`,
    topLevel(
      'rbac.authorization.k8s.io',
      'v1',
      'ClusterRole',
      'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
      {
        rules: atomicList(ref(`${RBAC}PolicyRule`), 'Rules holds all the PolicyRules for this ClusterRole'),
        aggregationRule: open(
          'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole.',
        ),
      },
    ),
  ],
  [
    `${RBAC}RoleRef`,
    {
      ...object(
        'RoleRef contains information that points to the role being used',
        {
          apiGroup: str('APIGroup is the group for the resource being referenced'),
          kind: str('Kind is the type of resource being referenced'),
          name: str('Name is the name of resource being referenced'),
        },
        ['apiGroup', 'kind', 'name'],
      ),
      'x-kubernetes-map-type': 'atomic',
    },
  ],
  [
    `${RBAC}Subject`,
    {
      ...object(
        'Subject contains a reference to the object or user identities a role binding applies to.',
        {
          kind: str(
            'Kind of object being referenced. Values defined by this API group are "User", "Group", and "ServiceAccount".',
          ),
          apiGroup: str(
            'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects. Defaults to "rbac.authorization.k8s.io" for User and Group subjects.',
          ),
          name: str('Name of the object being referenced.'),
          namespace: str(
            'Namespace of the referenced object. If the object kind is non-namespace, such as "User" or "Group", and this value is not empty the Authorizer should report an error.',
          ),
        },
        ['kind', 'name'],
      ),
      'x-kubernetes-map-type': 'atomic',
    },
  ],
  [
    `${RBAC}RoleBinding`,
    topLevel(
      'rbac.authorization.k8s.io',
      'v1',
      'RoleBinding',
      'RoleBinding references a role, but does not contain it. It can reference a Role in the same namespace or a ClusterRole in the global namespace.',
      bindingProperties(
        'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. This field is immutable.',
      ),
      ['roleRef'],
    ),
  ],
  [
    `${RBAC}ClusterRoleBinding`,
    topLevel(
      'rbac.authorization.k8s.io',
      'v1',
      'ClusterRoleBinding',
      'ClusterRoleBinding references a ClusterRole, but not contain it. It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
      bindingProperties(
        'RoleRef can only reference a ClusterRole in the global namespace. This field is immutable.',
      ),
      ['roleRef'],
    ),
  ],
  // access reviews (create-only, answered, never stored)
  [
    'io.k8s.api.authorization.v1.SelfSubjectAccessReview',
    topLevel(
      'authorization.k8s.io',
      'v1',
      'SelfSubjectAccessReview',
      'SelfSubjectAccessReview checks whether or the current user can perform an action.',
      {
        spec: open('Spec holds information about the request being evaluated. user and groups must be empty'),
        status: open('Status is filled in by the server and indicates whether the request is allowed or not'),
      },
      ['spec'],
    ),
  ],
  [
    'io.k8s.api.authorization.v1.SelfSubjectRulesReview',
    topLevel(
      'authorization.k8s.io',
      'v1',
      'SelfSubjectRulesReview',
      'SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace.',
      {
        spec: open('Spec holds information about the request being evaluated.'),
        status: open(
          'Status is filled in by the server and indicates the set of actions a user can perform.',
        ),
      },
      ['spec'],
    ),
  ],
  [
    'io.k8s.api.authentication.v1.SelfSubjectReview',
    topLevel(
      'authentication.k8s.io',
      'v1',
      'SelfSubjectReview',
      'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request.',
      {
        status: open('Status is filled in by the server with the user attributes.'),
      },
    ),
  ],
  [
    'io.k8s.api.autoscaling.v1.Scale',
    topLevel('autoscaling', 'v1', 'Scale', 'Scale represents a scaling request for a resource.', {
      spec: object('spec defines the behavior of the scale.', {
        replicas: i32('replicas is the desired number of instances for the scaled object.'),
      }),
      status: open('status is the current status of the scale.'),
    }),
  ],
];

/** Every definition by its OpenAPI name. */
export const DEFINITIONS: ReadonlyMap<string, Schema> = new Map(DEFINITIONS_LIST);

/** List kinds (`DeploymentList`, ...) of the top-level kinds, named as the real documents name them. */
for (const [name, schema] of DEFINITIONS_LIST) {
  const kinds = schema['x-kubernetes-group-version-kind'];
  if (!kinds || name.includes('Review') || name.endsWith('.Scale')) continue;
  const { group, version, kind } = kinds[0]!;
  (DEFINITIONS as Map<string, Schema>).set(`${name}List`, listOf(group, version, `${kind}List`, name));
}

/** The definition name of a served kind (`apps`, `v1`, `Deployment` → `io.k8s.api.apps.v1.Deployment`). */
export function definitionNameFor(group: string, version: string, kind: string): string | undefined {
  for (const [name, schema] of DEFINITIONS) {
    const found = schema['x-kubernetes-group-version-kind']?.some(
      (entry) => entry.group === group && entry.version === version && entry.kind === kind,
    );
    if (found) return name;
  }
  return undefined;
}

/** The schema a `$ref` points at, or the node itself (a `$ref` with a description is still the ref). */
export function resolve(schema: Schema): Schema {
  return schema.$ref ? (DEFINITIONS.get(schema.$ref) ?? {}) : schema;
}
