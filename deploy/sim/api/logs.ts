/**
 * `GET pods/{name}/log`, with the query parameters and errors of the kubelet and API server
 * (k8s.io/kubernetes/pkg/kubelet/kubelet_pods.go `validateContainerLogStatus`): `container` required
 * when the Pod has several; `previous` reads the last terminated instance (400 when there is none);
 * a container waiting in back-off serves its last terminated instance; `tailLines`, `sinceSeconds`,
 * `sinceTime`, `limitBytes`, `timestamps`.
 */
import type { ContainerInstance, Kubelet, LogLine } from '../controllers/kubelet.ts';
import type { Pod } from '../types.ts';
import { badRequest } from './status.ts';

function nonNegativeInteger(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw))
    throw badRequest(`invalid value for ${name}: "${raw}": must be a non-negative integer`);
  return Number.parseInt(raw, 10);
}

/** A boolean query parameter (`true` or `1`). */
export function flag(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  return raw === 'true' || raw === '1';
}

/** The log text of a container of `pod` for the request's query. Throws 400 `ApiError`s. */
export function readPodLog(kubelet: Kubelet, pod: Pod, query: URLSearchParams, now: number): string {
  return selectPodLog(kubelet, pod, query, now).text;
}

/** A log read: the text so far, the container instance it comes from, and how to render a line. */
export interface PodLogSelection {
  text: string;
  instance: ContainerInstance | undefined;
  render: (line: LogLine) => string;
  limitBytes: number | undefined;
}

/** `readPodLog` with the instance read (for `follow`). Throws 400 `ApiError`s. */
export function selectPodLog(
  kubelet: Kubelet,
  pod: Pod,
  query: URLSearchParams,
  now: number,
): PodLogSelection {
  const names = pod.spec.containers.map((container) => container.name);
  let container = query.get('container') ?? '';
  if (!container) {
    if (names.length !== 1) {
      throw badRequest(
        `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(' ')}]`,
      );
    }
    container = names[0]!;
  }
  if (!names.includes(container)) {
    throw badRequest(`container ${container} is not valid for pod ${pod.metadata.name}`);
  }
  const tailLines = nonNegativeInteger(query, 'tailLines');
  const limitBytes = nonNegativeInteger(query, 'limitBytes');
  const sinceSeconds = nonNegativeInteger(query, 'sinceSeconds');
  const sinceTime = query.get('sinceTime');
  if (sinceSeconds !== undefined && sinceTime !== null)
    throw badRequest('at most one of sinceTime or sinceSeconds may be specified');
  if (sinceSeconds === 0) throw badRequest('sinceSeconds: Invalid value: 0: must be greater than 0');
  if (limitBytes === 0) throw badRequest('limitBytes: Invalid value: 0: must be greater than 0');
  const previous = flag(query, 'previous');

  const status = pod.status?.containerStatuses?.find((candidate) => candidate.name === container);
  const instances = kubelet.instances(pod.metadata.uid!, container) ?? [];
  const byId = (id: string | undefined): ContainerInstance | undefined =>
    instances.find((instance) => instance.containerID === id);
  const podName = pod.metadata.name;
  let instance: ContainerInstance | undefined;
  if (!status) {
    throw badRequest(`container "${container}" in pod "${podName}" is waiting to start: ContainerCreating`);
  } else if (previous) {
    const last = 'terminated' in status.lastState ? status.lastState.terminated : undefined;
    instance = byId(last?.containerID);
    if (!instance)
      throw badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
  } else if ('running' in status.state) {
    instance = instances.at(-1);
  } else if ('terminated' in status.lastState) {
    instance = byId(status.lastState.terminated.containerID);
  } else if ('waiting' in status.state) {
    const reason = status.state.waiting.reason;
    const why =
      reason === 'ErrImagePull'
        ? "image can't be pulled"
        : reason === 'ImagePullBackOff'
          ? 'trying and failing to pull image'
          : reason;
    throw badRequest(`container "${container}" in pod "${podName}" is waiting to start: ${why}`);
  }
  let lines = (instance?.lines ?? []).filter((line) => line.at <= now);
  const from =
    sinceTime !== null
      ? Date.parse(sinceTime)
      : sinceSeconds !== undefined
        ? now - sinceSeconds * 1000
        : undefined;
  if (sinceTime !== null && Number.isNaN(from))
    throw badRequest(`invalid value for sinceTime: "${sinceTime}"`);
  if (from !== undefined) lines = lines.filter((line) => line.at >= from);
  if (tailLines !== undefined) lines = tailLines === 0 ? [] : lines.slice(-tailLines);
  const timestamps = flag(query, 'timestamps');
  const render = (line: LogLine) =>
    `${timestamps ? `${new Date(line.at).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z')} ` : ''}${line.text}\n`;
  let text = lines.map(render).join('');
  if (limitBytes !== undefined) text = Buffer.from(text).subarray(0, limitBytes).toString();
  return { text, instance, render, limitBytes };
}
