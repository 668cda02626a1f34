// Rate limits of the agent protocol (004 §11, B-360…B-363): token buckets in this process. Several
// app instances each keep their own (documented in docs/agent-api.md); a shared store is the
// scale-out step (DESIGN §5).

export interface LimitSettings {
  /** B-360: requests a minute per agent on the agent API. */
  agent: number;
  /** B-141: /updates calls a minute per agent, its own bucket. */
  updates: number;
  /** B-363: /ws connections a minute per agent (reconnecting too fast → 429). */
  ws: number;
  /** Pre-auth pairing and link calls a minute per client address (guessing codes). */
  preauth: number;
}
export type LimitBucket = keyof LimitSettings;
export const DEFAULT_LIMITS: LimitSettings = { agent: 60, updates: 20, ws: 20, preauth: 10 };

export function rateLimits(settings: Partial<LimitSettings> = {}, now: () => number = Date.now) {
  const perMinute: LimitSettings = { ...DEFAULT_LIMITS, ...settings };
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    settings: perMinute,
    /** Spends one request; null when allowed, else the seconds until the next one is (Retry-After). */
    take(bucket: LimitBucket, key: string): number | null {
      const capacity = perMinute[bucket];
      const rate = capacity / 60_000;
      const id = `${bucket} ${key}`;
      const t = now();
      // A bucket idle for a minute is full again: forget it, so the map stays small.
      if (buckets.size > 10_000) for (const [k, v] of buckets) if (t - v.at > 60_000) buckets.delete(k);
      const b = buckets.get(id) ?? { tokens: capacity, at: t };
      b.tokens = Math.min(capacity, b.tokens + (t - b.at) * rate);
      b.at = t;
      buckets.set(id, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return null;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000));
    },
  };
}
export type RateLimits = ReturnType<typeof rateLimits>;
