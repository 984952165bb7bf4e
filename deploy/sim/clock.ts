/**
 * Simulated time. Every timestamp the simulator writes and every timer its controllers set runs on
 * this clock, so tests can jump ahead (`advance`) and the CLI can run faster than wall time
 * (`timeScale`).
 *
 * The clock is a discrete-event scheduler: timers fire in time order, and while a timer runs,
 * `now()` is exactly the timer's due time — so a Pod that crashed at 12:00:10 says so even when the
 * simulation catches up with that moment later.
 */

/** A timer callback; runs with `now()` equal to its due time. */
export type TimerCallback = () => void;

interface Timer {
  at: number;
  seq: number;
  callback: TimerCallback;
}

export interface SimClockOptions {
  /** Simulated epoch milliseconds the clock starts at. */
  start: number;
  /**
   * Simulated milliseconds per wall-clock millisecond once `startRealTime()` is called: 1 = real
   * time, 60 = one simulated minute per second, 0 = frozen (only `advance` moves time).
   */
  timeScale: number;
}

export class SimClock {
  #current: number;
  #seq = 0;
  #timers: Timer[] = [];
  #timeScale: number;
  /** Wall-clock anchor of real-time mode: simulated `anchorSim` at wall `anchorWall`. */
  #anchor: { wall: number; sim: number } | undefined;
  #afterStep: (() => void) | undefined;

  constructor(options: SimClockOptions) {
    this.#current = options.start;
    this.#timeScale = options.timeScale;
  }

  /** Simulated time in epoch milliseconds. */
  now(): number {
    return this.#current;
  }

  /** Simulated time as a Kubernetes timestamp (RFC 3339, second precision, `Z`). */
  timestamp(at: number = this.#current): string {
    return new Date(Math.floor(at / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  }

  /** Simulated time with microseconds (Kubernetes `MicroTime`, used by events.k8s.io). */
  microTimestamp(at: number = this.#current): string {
    return new Date(at).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  }

  get timeScale(): number {
    return this.#timeScale;
  }

  /** Registers a hook run after every timer (the simulator settles its controllers there). */
  onStep(hook: () => void): void {
    this.#afterStep = hook;
  }

  /** Schedules `callback` at simulated time `at` (ms); a time in the past fires on the next step. */
  schedule(at: number, callback: TimerCallback): void {
    const timer: Timer = { at: Math.max(at, this.#current), seq: this.#seq++, callback };
    // Sorted insert (by time, then insertion order); timer counts stay in the hundreds.
    let index = this.#timers.length;
    while (index > 0 && compareTimers(this.#timers[index - 1]!, timer) > 0) index--;
    this.#timers.splice(index, 0, timer);
  }

  /**
   * Runs every timer due up to `target` in time order, then sets the clock to `target`. The step
   * hook runs once per simulated instant, after every timer due at it (the controllers' work queues
   * coalesce what happened at one moment into one sync per object).
   */
  runUntil(target: number): void {
    while (this.#timers.length > 0 && this.#timers[0]!.at <= target) {
      const at = this.#timers[0]!.at;
      this.#current = Math.max(this.#current, at);
      while (this.#timers.length > 0 && this.#timers[0]!.at <= this.#current)
        this.#timers.shift()!.callback();
      this.#afterStep?.();
    }
    this.#current = Math.max(this.#current, target);
  }

  /**
   * Moves simulated time forward by `ms`, firing every timer on the way. In real-time mode the
   * offset persists (the clock stays `ms` ahead of where wall time alone would put it).
   */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advance(ms) needs ms >= 0, got ${ms}`);
    if (this.#anchor) this.#anchor.sim += ms;
    this.runUntil(this.#current + ms);
  }

  /** Starts following wall time at `timeScale` from the current simulated time (no-op when frozen). */
  startRealTime(): void {
    this.#anchor = { wall: Date.now(), sim: this.#current };
  }

  /** Catches simulated time up with wall time (real-time mode); returns the simulated now. */
  sync(): number {
    if (this.#anchor && this.#timeScale > 0) {
      this.runUntil(this.#anchor.sim + (Date.now() - this.#anchor.wall) * this.#timeScale);
    }
    return this.#current;
  }

  /** Simulated time of the next pending timer, if any. */
  nextTimerAt(): number | undefined {
    return this.#timers[0]?.at;
  }
}

function compareTimers(a: Timer, b: Timer): number {
  return a.at - b.at || a.seq - b.seq;
}
