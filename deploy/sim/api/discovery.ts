/**
 * Legacy (unaggregated) discovery documents: `/version`, `/api`, `/apis`, `/apis/<group>` and the
 * APIResourceLists of each group version. kubectl 1.32 asks for aggregated discovery first
 * (`Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`) and falls back
 * to these when the response is plain `application/json`, as it is from this server.
 */
import { SIMULATED_VERSION } from '../cluster.ts';
import { RESOURCE_TYPES, groupVersion } from '../resources.ts';
import type { ResourceType } from '../resources.ts';
import { METRICS_GROUP, METRICS_VERSION, metricsGroup, metricsResourceList } from './metrics.ts';

/** Subresource kinds and verbs as the real server lists them. */
const SUBRESOURCES: Record<string, { group?: string; version?: string; kind: string; verbs: string[] }> = {
  scale: { group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
  status: { kind: '', verbs: ['get', 'patch', 'update'] },
  log: { kind: 'Pod', verbs: ['get'] },
};

export function versionInfo() {
  return {
    ...SIMULATED_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-02-12T21:17:48Z',
    goVersion: 'go1.23.6',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function coreVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groups(): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const type of RESOURCE_TYPES) {
    if (!type.group) continue;
    const versions = result.get(type.group) ?? [];
    if (!versions.includes(type.version)) versions.push(type.version);
    result.set(type.group, versions);
  }
  return result;
}

function group(name: string, versions: string[]) {
  const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: entries, preferredVersion: entries[0]! };
}

export function groupList() {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...[...groups()].map(([name, versions]) => group(name, versions)), metricsGroup()],
  };
}

/** `/apis/<group>`, or undefined when the group is not served. */
export function apiGroup(name: string) {
  if (name === METRICS_GROUP) return { kind: 'APIGroup', apiVersion: 'v1', ...metricsGroup() };
  const versions = groups().get(name);
  return versions && { kind: 'APIGroup', apiVersion: 'v1', ...group(name, versions) };
}

/** `/api/v1` or `/apis/<group>/<version>`, or undefined when not served. */
export function resourceList(groupName: string, version: string) {
  if (groupName === METRICS_GROUP && version === METRICS_VERSION) return metricsResourceList();
  const types = RESOURCE_TYPES.filter((type) => type.group === groupName && type.version === version);
  if (types.length === 0) return undefined;
  const resources = types.flatMap((type: ResourceType) => [
    {
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: type.verbs,
      ...(type.shortNames && { shortNames: type.shortNames }),
      ...(type.categories && { categories: type.categories }),
    },
    ...type.subresources.map((sub) => {
      const info = SUBRESOURCES[sub]!;
      return {
        name: `${type.plural}/${sub}`,
        singularName: '',
        namespaced: type.namespaced,
        ...(info.group && { group: info.group, version: info.version }),
        kind: info.kind || type.kind,
        verbs: info.verbs,
      };
    }),
  ]);
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersion({ group: groupName, version }),
    resources,
  };
}
