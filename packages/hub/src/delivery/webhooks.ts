import { createHmac, randomBytes } from "node:crypto";
import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import {
  addressRefusal,
  allowsName,
  HubError,
  parseAllowList,
  parseIp,
  type WebhookSet,
  type WebhookView,
  type webhookInput,
} from "@maity/domain";
import type { z } from "zod";
import type { Db, SqlExecutor } from "@maity/db";
import type { Signer } from "../files/render.ts";
import type { AgentService } from "../agents/service.ts";
import type { AgentCaller } from "../access/caller.ts";
import type { KeyRow } from "../access/visibility.ts";
import { bodyBuilder, type Prepared } from "./webhookBodies.ts";
import { type Outcome, round } from "./webhookQueue.ts";

// Webhook contract v2 (004 §11, B-162…B-177): an agent that takes pushes instead of polling names a
// URL; every message in its rooms but its own is POSTed there with the context envelope, its verdict
// and a budgeted history, signed with HMAC-SHA256 of the body. Deliveries are rows queued in the
// message's own transaction, sent after it commits and retried with backoff, so the sender never
// waits on a receiver and a restart loses none.

export const WEBHOOK_SIGNATURE_HEADER = "x-maity-signature";
/** Pauses before each retry — three retries (OQ-B-21); after the last one the delivery is failed. */
export const DEFAULT_WEBHOOK_BACKOFF_MS = [5_000, 30_000, 120_000];
const LOCK_MS = 60_000;
/** How long an attempt's outcome may wait to ride with the next round when nothing else needs one. */
const FLUSH_MS = 20;
/** Requests in flight at most, over all agents (MAITY_WEBHOOK_CONCURRENCY). */
export const DEFAULT_WEBHOOK_CONCURRENCY = 16;

type Resolved = { address: string; family: number };
/** A host name's addresses, as `dns.promises.lookup(name, {all: true})` answers them. */
export type WebhookLookup = (hostname: string) => Promise<Resolved[]>;

export interface WebhookOptions {
  backoffMs?: number[];
  timeoutMs?: number;
  /**
   * Issue 13 #1: host names, IP literals and CIDR ranges a webhook may reach although they are not
   * public (local development; MAITY_WEBHOOK_ALLOW at the composition root). Default: none.
   */
  allow?: readonly string[];
  /** Requests in flight at most (default DEFAULT_WEBHOOK_CONCURRENCY); each agent's one at a time. */
  concurrency?: number;
  /** How host names are resolved (tests simulate DNS); default the system resolver. */
  lookup?: WebhookLookup;
}

const systemLookup: WebhookLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Where a webhook URL may be sent: the checked addresses, or why not. */
type Target = { ok: true; addresses: Resolved[] } | { ok: false; refused: boolean; reason: string };

/** The URL's host without an IPv6 literal's brackets: what is resolved and classified. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1");

/** A `lookup` for node:http that answers only the addresses checked beforehand (no second DNS query). */
function pinnedLookup(addresses: Resolved[]): LookupFunction {
  return (_hostname, options, callback) => {
    const first = addresses[0] ?? { address: "", family: 4 };
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  };
}

/** `sha256=<hex>` of the exact body bytes, keyed by the webhook's secret. */
export const signWebhook = (secret: string, body: string | Uint8Array): string =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

/** A delivery whose body is built, waiting for a slot. */
type Sendable = Extract<Prepared, { bytes: unknown }>;

export function webhookService(
  db: Db,
  sql: SqlExecutor,
  agents: AgentService,
  options: WebhookOptions = {},
  files: { sign?: Signer; count?: (agent: AgentCaller, row: KeyRow) => Promise<number> } = {},
) {
  const backoff = options.backoffMs ?? DEFAULT_WEBHOOK_BACKOFF_MS;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const lookup = options.lookup ?? systemLookup;
  const parsedAllow = parseAllowList(options.allow ?? []);
  // An operator's typo must show at start, not as webhooks silently refused.
  if (parsedAllow.invalid.length) {
    throw new Error(`webhook allow list: not a host name, IP address or CIDR: ${parsedAllow.invalid.join(", ")}`);
  }
  const allow = parsedAllow.list;
  const prepareBodies = bodyBuilder({
    db,
    sql,
    agents,
    ...(files.sign ? { sign: files.sign } : {}),
    ...(files.count ? { count: files.count } : {}),
  });

  /**
   * Issue 13 #1 (SSRF): the addresses a webhook URL may be sent to. An IP literal must be public (or
   * allowed); a name must resolve, and every address it resolves to must be public (or allowed), so
   * no answer of a round-robin name reaches inside. Asked at registration and again at every delivery
   * (DNS can change between them); the delivery connects only to the addresses checked here.
   */
  async function target(url: URL): Promise<Target> {
    const host = hostOf(url);
    const ip = parseIp(host);
    if (ip) {
      const kind = addressRefusal(host, allow);
      if (kind) return { ok: false, refused: true, reason: `${host} is a ${kind} address` };
      return { ok: true, addresses: [{ address: host, family: ip.family }] };
    }
    let addresses: Resolved[];
    try {
      // `localhost.` is `localhost`: some resolvers fail the absolute form, and a name that fails here
      // is retried rather than refused.
      addresses = await lookup(host.replace(/\.$/, ""));
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { ok: false, refused: false, reason: `${host} does not resolve` };
    if (!allowsName(allow, host)) {
      for (const { address } of addresses) {
        const kind = addressRefusal(address, allow);
        if (kind) return { ok: false, refused: true, reason: `${host} resolves to ${address}, a ${kind} address` };
      }
    }
    return { ok: true, addresses };
  }

  /** One POST to a checked address; answers the status (the body is not read), or throws. */
  function post(url: URL, addresses: Resolved[], headers: Record<string, string>, bytes: Buffer): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(
        {
          protocol: url.protocol,
          // The name stays the Host header and the TLS server name; the connection goes only to
          // `addresses` (pinnedLookup). Redirects are never followed: the status is the answer.
          hostname: hostOf(url),
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: "POST",
          lookup: pinnedLookup(addresses),
          agent: false,
          signal: AbortSignal.timeout(timeoutMs),
          headers: { ...headers, "content-length": String(bytes.byteLength) },
        },
        (res) => {
          resolve(res.statusCode ?? 0);
          res.destroy();
        },
      );
      req.on("error", reject);
      req.end(bytes);
    });
  }

  // The worker (OQ-B-21, B-163): deliveries to different agents go out at once, at most
  // `concurrency` requests in flight; each agent's one at a time, in seq order (webhookQueue.ts).
  // A round runs when fewer than `concurrency` bodies wait for a slot, and claims up to four times
  // the bound in all: at least twice the bound a round, so the bodies of one message to many agents
  // are built from shared reads (webhookBodies.ts), while a claimed row still starts within its lock
  // (4 × the 10 s timeout < LOCK_MS) when every slot waits out a timeout.
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_WEBHOOK_CONCURRENCY));
  const claimMax = 4 * concurrency;
  /** Agents with a delivery claimed here, waiting or in flight: never a second one of theirs at once. */
  const busy = new Set<string>();
  const ready: Sendable[] = [];
  /** Attempts that ended, written by the next round. */
  const ended: Outcome[] = [];
  let inFlight = 0;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let timerAt = Number.POSITIVE_INFINITY;
  let closed = false;
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

  /** One attempt: the address checked again (issue 13 #1), the POST, and how it ended. */
  async function attempt({ claim, url: hookUrl, secret, bytes }: Sendable): Promise<Outcome> {
    let status: number | null = null;
    let error: string | null = null;
    const url = new URL(hookUrl);
    const to = await target(url);
    // Issue 13 #1: refused at once and never retried, whether or not anything listens there, so the
    // delivery counts of GET /webhook tell nothing about the hub's network.
    if (!to.ok && to.refused)
      return { id: claim.id, status: "failed", lastStatus: null, lastError: `address not allowed: ${to.reason}` };
    if (!to.ok) error = to.reason;
    else {
      try {
        status = await post(
          url,
          to.addresses,
          {
            "content-type": "application/json",
            "user-agent": "maity-hub-webhook/2",
            "x-maity-event": "message.created",
            "x-maity-delivery": claim.id,
            [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, bytes),
          },
          bytes,
        );
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
    }
    if (status !== null && status >= 200 && status < 300)
      return { id: claim.id, status: "delivered", lastStatus: status, at: new Date() };
    const pause = backoff[claim.attempts - 1];
    const lastError = error ?? `answered ${status}`;
    return pause === undefined
      ? { id: claim.id, status: "failed", lastStatus: status, lastError }
      : { id: claim.id, status: "pending", lastStatus: status, lastError, nextAttemptAt: new Date(Date.now() + pause) };
  }

  function end(agentId: string, outcome: Outcome): void {
    ended.push(outcome);
    busy.delete(agentId);
    if (outcome.status === "pending") wakeAt(outcome.nextAttemptAt.getTime());
  }

  let flushing: NodeJS.Timeout | null = null;
  function flushSoon(): void {
    if (closed) return kick();
    flushing ??= setTimeout(() => {
      flushing = null;
      kick();
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
          end(next.claim.agentId, outcome);
          dispatch();
          // A round at once when the agent has a next delivery to claim (or many outcomes wait);
          // else the outcome rides with the next round, at most FLUSH_MS later.
          if (next.claim.more || ended.length >= concurrency) kick();
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
    const { claims, wake } = await round(sql, outcomes, busy, Math.max(0, room), LOCK_MS);
    const retries = outcomes.flatMap((o) => (o.status === "pending" ? [o.nextAttemptAt.getTime()] : []));
    wakeAt(Math.min(wake?.getTime() ?? Number.POSITIVE_INFINITY, ...retries), true);
    if (claims.length === 0) return ended.length > 0;
    for (const c of claims) busy.add(c.agentId);
    try {
      for (const p of await prepareBodies(claims)) {
        if ("drop" in p) end(p.claim.agentId, { id: p.claim.id, status: "dropped", lastError: p.drop });
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

  /** Start sending (one round at a time; a kick during a round runs one more). */
  function kick(): void {
    if (running) {
      again = true;
      return;
    }
    if (closed && ended.length === 0) return;
    running = (async () => {
      let more = true;
      while (more || again) {
        again = false;
        more = await oneRound().catch((e: unknown) => {
          console.error("maity: webhook worker", e);
          return false;
        });
        if (closed && ended.length === 0) break;
      }
      running = null;
      notify();
    })();
  }

  /** Until nothing is claimed, in flight or unwritten here. */
  async function idle(): Promise<void> {
    while (running || inFlight > 0 || ready.length > 0 || ended.length > 0) {
      if (!running && inFlight === 0 && ready.length === 0) kick();
      await new Promise<void>((resolve) => changed.push(resolve));
    }
  }

  return {
    kick,
    /** Resume what a previous process left pending. */
    start: kick,
    /** Waits for the rounds and the requests in flight, and their outcomes written (tests, shutdown). */
    idle,
    async close(): Promise<void> {
      closed = true;
      if (timer) clearTimeout(timer);
      if (flushing) clearTimeout(flushing);
      flushing = null;
      timer = null;
      // What was claimed but not sent goes back to the queue, its attempt not counted.
      for (const p of ready.splice(0)) end(p.claim.agentId, { id: p.claim.id, status: "released" });
      kick();
      await idle();
      changed = [];
    },

    /** POST /webhook (B-162): set (or replace) the URL; the secret is shown in this answer only. */
    async set(agent: AgentCaller, data: z.output<typeof webhookInput>): Promise<WebhookSet> {
      const url = new URL(data.url);
      const to = await target(url);
      if (!to.ok) {
        // Issue 13 #1: a name that does not resolve and one that resolves inside get one answer, so
        // the refusal tells nothing about the hub's own DNS.
        const host = hostOf(url);
        const why = parseIp(host) ? to.reason : `${host} does not resolve to public addresses only`;
        throw HubError.invalid({ url: "a public address" }, `webhooks go to public addresses only: ${why}`);
      }
      const secret = data.secret ?? `whsec_${randomBytes(24).toString("base64url")}`;
      const row = await db.webhook.upsert({
        where: { agentId: agent.id },
        create: { agentId: agent.id, url: data.url, secret },
        update: { url: data.url, secret },
        select: { url: true, createdAt: true, updatedAt: true },
      });
      return {
        url: row.url,
        secret,
        signatureHeader: WEBHOOK_SIGNATURE_HEADER,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
      };
    },

    async get(agent: AgentCaller): Promise<WebhookView> {
      const row = await db.webhook.findUnique({
        where: { agentId: agent.id },
        select: { url: true, createdAt: true, updatedAt: true },
      });
      if (!row) throw HubError.notFound("no webhook is set");
      const [pending, failed] = await Promise.all([
        db.webhookDelivery.count({ where: { agentId: agent.id, status: "pending" } }),
        db.webhookDelivery.count({ where: { agentId: agent.id, status: "failed" } }),
      ]);
      return {
        url: row.url,
        signatureHeader: WEBHOOK_SIGNATURE_HEADER,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
        deliveries: { pending, failed },
      };
    },

    /** DELETE /webhook: no more pushes; what was queued is dropped. */
    async remove(agent: AgentCaller): Promise<void> {
      await db.$transaction([
        db.webhookDelivery.updateMany({
          where: { agentId: agent.id, status: "pending" },
          data: { status: "dropped", lastError: "webhook removed" },
        }),
        db.webhook.deleteMany({ where: { agentId: agent.id } }),
      ]);
    },
  };
}
export type WebhookService = ReturnType<typeof webhookService>;
