/**
 * `GET pods/{name}/log?follow=true`: the log so far, then every new line of the same container
 * instance as simulated time reaches it, until the container stops (the kubelet's follow ends at the
 * container's exit), the Pod goes, `limitBytes` is reached, the client disconnects or the simulator
 * closes. Simulated time is checked every {@link FOLLOW_POLL_MS} wall milliseconds (the simulator
 * also moves only then, or when a test calls `clock.advance`).
 */
import type { ServerResponse } from 'node:http';
import type { SimulatedCluster } from '../cluster.ts';
import type { Pod } from '../types.ts';
import { selectPodLog } from './logs.ts';

/** Wall-clock interval between looks for new lines. */
export const FOLLOW_POLL_MS = 100;

/**
 * Streams the followed log of `pod` to `response` (chunked `text/plain`). Throws the same 400
 * `ApiError`s as a plain log read, before anything is sent.
 */
export function serveFollowedLog(
  cluster: SimulatedCluster,
  pod: Pod,
  query: URLSearchParams,
  response: ServerResponse,
  closeSignal: AbortSignal,
): void {
  const start = cluster.clock.now();
  const selection = selectPodLog(cluster.kubelet, pod, query, start);
  const { instance, render, limitBytes } = selection;
  let budget = limitBytes ?? Number.POSITIVE_INFINITY;
  let sentUpTo = start;
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  const send = (text: string): void => {
    if (!text) return;
    const bytes = Buffer.from(text);
    const chunk = bytes.length > budget ? bytes.subarray(0, budget) : bytes;
    budget -= chunk.length;
    response.write(chunk);
  };
  send(selection.text);
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    closeSignal.removeEventListener('abort', stop);
    if (!response.writableEnded) response.end();
  };
  const poll = () => {
    cluster.reconcile();
    const now = cluster.clock.now();
    const finishedAt = instance?.finishedAt;
    const until = finishedAt !== undefined ? Math.min(now, finishedAt) : now;
    const fresh = (instance?.lines ?? []).filter((line) => line.at > sentUpTo && line.at <= until);
    send(fresh.map(render).join(''));
    sentUpTo = Math.max(sentUpTo, until);
    const current = cluster.store.peekOne<Pod>('pods', pod.metadata.namespace, pod.metadata.name);
    const gone = !current || current.metadata.uid !== pod.metadata.uid;
    if (!instance || gone || budget <= 0 || (finishedAt !== undefined && finishedAt <= now)) stop();
  };
  if (!instance || budget <= 0) return stop();
  timer = setInterval(poll, FOLLOW_POLL_MS);
  response.once('close', stop);
  closeSignal.addEventListener('abort', stop);
}
