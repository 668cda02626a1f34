import { NOTE_CREATES_PER_MINUTE, NOTE_EDITS_PER_MINUTE } from "@maity/domain";

// Rate limits of the agent protocol (004 §11, B-360…B-363): token buckets in this process. Several
// app instances each keep their own (documented in docs/agent-api.md); a shared store is the
// scale-out step (DESIGN §5). The login limits are shared on PostgreSQL already (loginLimits.ts).

export interface LimitSettings {
  /** B-360: requests a minute per agent on the agent API. */
  agent: number;
  /** B-141: /updates calls a minute per agent, its own bucket. */
  updates: number;
  /** B-363: /ws connections a minute per agent (reconnecting too fast → 429). */
  ws: number;
  /** Pre-auth pairing and link calls a minute per client address (guessing codes). */
  preauth: number;
  /** B-246: notes an agent creates a minute, and edits, across HTTP and MCP. */
  noteCreates: number;
  noteEdits: number;
}
export type LimitBucket = keyof LimitSettings;
export const DEFAULT_LIMITS: LimitSettings = {
  agent: 60,
  updates: 20,
  ws: 20,
  preauth: 10,
  noteCreates: NOTE_CREATES_PER_MINUTE,
  noteEdits: NOTE_EDITS_PER_MINUTE,
};

export function rateLimits(settings: Partial<LimitSettings> = {}, now: () => number = Date.now) {
  const perMinute: LimitSettings = { ...DEFAULT_LIMITS, ...settings };
  const buckets = new Map<string, { tokens: number; at: number; windowMs: number }>();

  /** The bucket `id` refilled up to now: `capacity` tokens, all of them back within `windowMs`. */
  function bucketOf(id: string, capacity: number, windowMs: number) {
    const t = now();
    // A bucket idle for its whole window is full again: forget it, so the map stays small.
    if (buckets.size > 10_000) for (const [k, v] of buckets) if (t - v.at > v.windowMs) buckets.delete(k);
    const b = buckets.get(id) ?? { tokens: capacity, at: t, windowMs };
    b.tokens = Math.min(capacity, b.tokens + ((t - b.at) * capacity) / windowMs);
    b.at = t;
    buckets.set(id, b);
    return b;
  }

  /** Spends one token of `id`; null when allowed, else the seconds until one is back (Retry-After). */
  function spend(id: string, capacity: number, windowMs: number): number | null {
    const b = bucketOf(id, capacity, windowMs);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil(((1 - b.tokens) * windowMs) / capacity / 1000));
  }

  return {
    settings: perMinute,
    /** Spends one request; null when allowed, else the seconds until the next one is (Retry-After). */
    take(bucket: LimitBucket, key: string): number | null {
      return spend(`${bucket} ${key}`, perMinute[bucket], 60_000);
    },
    /** A bucket of its own size and window (the login limits): `take` for other shapes. */
    spend,
    /** Gives back a token `spend` took (a login that succeeded is no failure). */
    refund(id: string, capacity: number, windowMs: number): void {
      const b = bucketOf(id, capacity, windowMs);
      b.tokens = Math.min(capacity, b.tokens + 1);
    },
  };
}
export type RateLimits = ReturnType<typeof rateLimits>;

/** How much password guessing the hub takes (docs/api.md "Login limits"). */
export interface LoginSettings {
  /** Login attempts a minute per client address, spent before anything is looked up or hashed. */
  perAddress: number;
  /** Failed logins per handle (known or not, normalised) in `failureWindowMs`; one is back every window / count. */
  failuresPerHandle: number;
  failureWindowMs: number;
  /** Password hashes (scrypt: 16 MiB, tens of ms of CPU each) running at once per hub; the rest wait in line. */
  hashes: number;
  /** Logins waiting for a hash beyond which another is refused at once (429, Retry-After 1). */
  queue: number;
}
export const DEFAULT_LOGIN: LoginSettings = {
  perAddress: 30,
  failuresPerHandle: 10,
  failureWindowMs: 15 * 60_000,
  hashes: 2,
  queue: 50,
};

/**
 * At most `max` tasks at once, at most `queueMax` waiting (a login flood cannot take
 * every core from the event loop). `run` answers null when the line is full: the task did not run.
 */
export function workGate(max: number, queueMax: number) {
  let running = 0;
  let peak = 0;
  const waiting: (() => void)[] = [];
  return {
    async run<T>(task: () => Promise<T>): Promise<{ value: T } | null> {
      if (running >= max) {
        if (waiting.length >= queueMax) return null;
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else running += 1;
      // `running` counts this task here: a task woken from the line took the slot its predecessor left.
      peak = Math.max(peak, running);
      try {
        return { value: await task() };
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running -= 1;
      }
    },
    /** What runs and waits now, and the most that ever ran at once. */
    stats: () => ({ running, waiting: waiting.length, peak }),
  };
}
export type WorkGate = ReturnType<typeof workGate>;
