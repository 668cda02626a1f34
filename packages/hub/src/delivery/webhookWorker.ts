import type { SqlExecutor } from "@maity/db";
import type { Claim, Prepared } from "./webhookBodies.ts";
import { type Outcome, round, type Seek } from "./webhookQueue.ts";

/**
 * A claimed row's lock: another instance takes it again only after this (a crash, a stall). Longer
 * than a claimed row can wait here before it starts (see `claimMax`).
 */
const LOCK_MS = 120_000;
/** How long an attempt's outcome may wait to ride with the next round when nothing else needs one. */
const FLUSH_MS = 20;

/** A delivery whose body is built, waiting for a slot. */
export type Sendable = Extract<Prepared, { bytes: unknown }>;
/** How one POST went: its status (null: none), the error, or why the address is refused. */
export type Sent = { status: number | null; error: string | null; refused?: string };

export interface WorkerOptions {
  sql: SqlExecutor;
  /** The bodies of a round's claims (webhookBodies.ts). */
  prepare: (claims: Claim[]) => Promise<Prepared[]>;
  /** One POST to the agent's receiver (webhooks.ts: the address checked, pinned, signed). */
  send: (delivery: Sendable) => Promise<Sent>;
  /** Pauses before each retry (OQ-B-21); after the last one the delivery is failed. */
  backoff: number[];
  /** Requests in flight at most, over all agents. */
  concurrency: number;
}

export function webhookWorker({ sql, prepare, send, backoff, concurrency }: WorkerOptions) {
  // The worker (OQ-B-21, B-163): deliveries to different agents go out at once, at most
  // `concurrency` requests in flight; each agent's one at a time, in seq order (webhookQueue.ts).
  // A round runs when fewer than `concurrency` bodies wait for a slot, and claims up to eight times
  // the bound in all: several times the bound a round, so the bodies of one message to many agents
  // are built from shared reads (webhookBodies.ts) and a round's statement carries many rows (measured
  // on PGlite: 0.16 → 0.13 statements a delivery, +3–7 % deliveries a second against four times),
  // while a claimed row still starts within its lock (8 × the 10 s timeout < LOCK_MS) when every
  // slot waits out a timeout.
  const claimMax = 8 * concurrency;
  /** Agents with a delivery claimed here, waiting or in flight: never a second one of theirs at once. */
  const busy = new Set<string>();
  const ready: Sendable[] = [];
  /** Attempts that ended, written by the next round. */
  const ended: Outcome[] = [];
  /**
   * Whom the next round claims for (webhookQueue.ts): the agents whose head ended for good (their
   * next row, if pending, is their head), and whether it looks for heads anywhere — at start,
   * when a message is queued, on a timer, and while the last scan left due heads behind.
   */
  const seek: Seek = { follow: new Map(), scan: true };
  let inFlight = 0;
  /** The last round's statement failed (its outcomes wait in `ended`). */
  let failed = false;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let timerAt = Number.POSITIVE_INFINITY;
  let closed = false;
  /** No round starts (what is in flight ends; its outcome waits): an operator's hold, the bench's phases. */
  let paused = false;
  let changed: (() => void)[] = [];
  const notify = () => {
    for (const resolve of changed.splice(0)) resolve();
  };

  /** Wakes the worker at `at` (a retry's pause, another instance's lock), unless it wakes earlier. */
  function wakeAt(at: number, reset = false): void {
    if (closed || (!reset && at >= timerAt)) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = Number.isFinite(at)
      ? setTimeout(
          () => {
            timer = null;
            timerAt = Number.POSITIVE_INFINITY;
            kick();
          },
          Math.max(10, at - Date.now()),
        )
      : null;
  }

  /** One attempt and how it ended (a refused address is failed at once, never retried). */
  async function attempt(next: Sendable): Promise<Outcome> {
    const { claim } = next;
    const sent = await send(next);
    if (sent.refused !== undefined)
      return { id: claim.id, status: "failed", lastStatus: null, lastError: sent.refused };
    const status = sent.status;
    if (status !== null && status >= 200 && status < 300)
      return { id: claim.id, status: "delivered", lastStatus: status, at: new Date() };
    const pause = backoff[claim.attempts - 1];
    const lastError = sent.error ?? `answered ${status}`;
    return pause === undefined
      ? { id: claim.id, status: "failed", lastStatus: status, lastError }
      : { id: claim.id, status: "pending", lastStatus: status, lastError, nextAttemptAt: new Date(Date.now() + pause) };
  }

  function end(claim: Claim, outcome: Outcome): void {
    const agentId = claim.agentId;
    ended.push(outcome);
    busy.delete(agentId);
    // Ended for good: the agent's next row, if any, is its head (rows queued while it was busy too).
    if (outcome.status === "delivered" || outcome.status === "failed" || outcome.status === "dropped")
      seek.follow.set(agentId, claim.eventSeq);
    else if (outcome.status === "released") seek.scan = true;
    if (outcome.status === "pending") wakeAt(outcome.nextAttemptAt.getTime());
  }

  let flushing: NodeJS.Timeout | null = null;
  function flushSoon(): void {
    if (closed) {
      run();
      return;
    }
    flushing ??= setTimeout(() => {
      flushing = null;
      run();
    }, FLUSH_MS);
  }

  /** Starts what is ready, up to the bound. */
  function dispatch(): void {
    while (inFlight < concurrency && ready.length > 0) {
      const next = ready.shift() as Sendable;
      inFlight += 1;
      void attempt(next)
        .catch((e: unknown): Outcome => {
          console.error("maity: webhook delivery failed", e);
          const pause = backoff[next.claim.attempts - 1];
          const lastError = e instanceof Error ? e.message : String(e);
          return pause === undefined
            ? { id: next.claim.id, status: "failed", lastStatus: null, lastError }
            : {
                id: next.claim.id,
                status: "pending",
                lastStatus: null,
                lastError,
                nextAttemptAt: new Date(Date.now() + pause),
              };
        })
        .then((outcome) => {
          inFlight -= 1;
          end(next.claim, outcome);
          dispatch();
          // A round at once when the agent has a next delivery to claim (or many outcomes wait);
          // else the outcome rides with the next round, at most FLUSH_MS later.
          if (next.claim.more || ended.length >= concurrency) run();
          else flushSoon();
          notify();
        });
    }
  }

  /** One round: outcomes written and the next due claimed, in one statement; true while more may be due. */
  async function oneRound(): Promise<boolean> {
    // Enough is waiting for the slots: the outcomes ride with the next claim.
    if (!closed && ready.length >= concurrency) return false;
    const outcomes = ended.splice(0);
    const room = closed ? 0 : claimMax - busy.size;
    if (outcomes.length === 0 && room <= 0) return false;
    // With no room, nobody is followed nor scanned for: both wait for a round that can claim.
    const asked: Seek =
      room > 0 ? { follow: new Map(seek.follow), scan: seek.scan } : { follow: new Map(), scan: false };
    for (const agentId of asked.follow.keys()) seek.follow.delete(agentId);
    let result: Awaited<ReturnType<typeof round>>;
    try {
      result = await round(sql, outcomes, busy, Math.max(0, room), LOCK_MS, asked);
      failed = false;
    } catch (e) {
      // The outcomes wait for the next round (a second from now), so no delivery is sent twice;
      // that round looks for every head.
      ended.unshift(...outcomes);
      seek.scan = true;
      failed = true;
      wakeAt(Date.now() + 1_000);
      throw e;
    }
    const { claims, wake, seen, leftBehind } = result;
    // A scan that left due heads past its limit scans again; a followed agent whose next row is
    // pending but was not claimed (past the limit, locked elsewhere) is followed again.
    const claimed = new Set(claims.map((c) => c.agentId));
    if (asked.scan) seek.scan = leftBehind > 0;
    for (const [agentId, after] of asked.follow)
      if (seen.has(agentId) && !claimed.has(agentId) && !seek.follow.has(agentId)) seek.follow.set(agentId, after);
    const retries = outcomes.flatMap((o) => (o.status === "pending" ? [o.nextAttemptAt.getTime()] : []));
    // Only a scan sees every waiting head: its wake replaces the timer, a follow's only brings it nearer.
    wakeAt(Math.min(wake?.getTime() ?? Number.POSITIVE_INFINITY, ...retries), asked.scan);
    if (claims.length === 0) return ended.length > 0;
    for (const c of claims) busy.add(c.agentId);
    try {
      for (const p of await prepare(claims)) {
        if ("drop" in p) end(p.claim, { id: p.claim.id, status: "dropped", lastError: p.drop });
        else ready.push(p);
      }
    } catch (e) {
      // The claimed rows stay locked and are taken again when the lock ends (counted as an attempt).
      console.error("maity: webhook bodies", e);
      for (const c of claims) busy.delete(c.agentId);
    }
    dispatch();
    return claims.length === room || ended.length > 0;
  }

  /** Look for heads everywhere (a message queued, a resume, the timer), then run. */
  function kick(): void {
    seek.scan = true;
    run();
  }

  /** Start sending (one round at a time; a kick during a round runs one more). */
  function run(): void {
    if (running) {
      again = true;
      return;
    }
    if ((closed && ended.length === 0) || (paused && !closed)) return;
    running = (async () => {
      let more = true;
      while (more || again) {
        again = false;
        more = await oneRound().catch((e: unknown) => {
          console.error("maity: webhook worker", e);
          return false;
        });
        if ((closed && ended.length === 0) || (paused && !closed)) break;
      }
      running = null;
      notify();
    })();
  }

  /** Until nothing is claimed, in flight or unwritten here. */
  async function idle(): Promise<void> {
    while (running || inFlight > 0 || ready.length > 0 || ended.length > 0) {
      // The database refused the last round: the timer tries again; nothing to wait for here.
      if (!running && inFlight === 0 && (failed || paused)) return;
      if (!running && inFlight === 0 && ready.length === 0) run();
      await new Promise<void>((resolve) => changed.push(resolve));
    }
  }

  return {
    kick,
    /** Resume what a previous process left pending. */
    start: kick,
    /** Holds the queue: no round (no claim, no outcome written) until `resume`; idle() waits for no more. */
    pause(): void {
      paused = true;
    },
    resume(): void {
      paused = false;
      kick();
    },
    /** Waits for the rounds and the requests in flight, and their outcomes written (tests, shutdown). */
    idle,
    async close(): Promise<void> {
      closed = true;
      if (timer) clearTimeout(timer);
      if (flushing) clearTimeout(flushing);
      flushing = null;
      timer = null;
      // What was claimed but not sent goes back to the queue, its attempt not counted.
      for (const p of ready.splice(0)) end(p.claim, { id: p.claim.id, status: "released" });
      run();
      await idle();
      changed = [];
    },
  };
}
export type WebhookWorker = ReturnType<typeof webhookWorker>;
