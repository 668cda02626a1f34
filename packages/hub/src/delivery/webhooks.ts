import { createHmac, randomBytes } from "node:crypto";
import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import {
  addressRefusal,
  allowsName,
  budgetHistory,
  HISTORY_TURNS_MAX,
  type HistoryTurn,
  HubError,
  parseAllowList,
  parseIp,
  type WebhookDelivery,
  type WebhookSet,
  type WebhookView,
  type webhookInput,
} from "@maity/domain";
import type { z } from "zod";
import type { Db } from "@maity/db";
import { type Signer, signAgentMessage } from "../files/render.ts";
import type { AgentService } from "../agents/service.ts";
import { agentMessageSelect, eventMessage, renderForAgent, toUpdatesEvent } from "../messages/agentView.ts";
import type { AgentCaller } from "../access/caller.ts";
import type { KeyRow } from "../access/visibility.ts";

// Webhook contract v2 (004 §11, B-162…B-177): an agent that takes pushes instead of polling names a
// URL; every message in its rooms but its own is POSTed there with the context envelope, its verdict
// and a budgeted history, signed with HMAC-SHA256 of the body. Deliveries are rows queued in the
// message's own transaction, sent after it commits and retried with backoff, so the sender never
// waits on a receiver and a restart loses none.

export const WEBHOOK_SIGNATURE_HEADER = "x-maity-signature";
/** Pauses before each retry — three retries (OQ-B-21); after the last one the delivery is failed. */
export const DEFAULT_WEBHOOK_BACKOFF_MS = [5_000, 30_000, 120_000];
const LOCK_MS = 60_000;
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
export const signWebhook = (secret: string, body: string): string =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

export function webhookService(
  db: Db,
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
  function post(url: URL, addresses: Resolved[], headers: Record<string, string>, text: string): Promise<number> {
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
          headers: { ...headers, "content-length": String(Buffer.byteLength(text)) },
        },
        (res) => {
          resolve(res.statusCode ?? 0);
          res.destroy();
        },
      );
      req.on("error", reject);
      req.end(text);
    });
  }

  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  /** The body of one delivery, rendered for the receiving agent; null when it left the room since. */
  async function bodyFor(deliveryId: string, agentId: string, seq: number): Promise<WebhookDelivery | null> {
    const agent = await db.agent.findUnique({
      where: { id: agentId },
      select: { id: true, handle: true, ownerId: true },
    });
    const event = await db.event.findUnique({ where: { seq }, select: agentMessageSelect });
    if (!agent || !event?.conversation) return null;
    const caller: AgentCaller = {
      kind: "agent",
      id: agent.id,
      handle: agent.handle,
      ownerId: agent.ownerId,
      instanceId: null,
    };
    const row = await agents.room(caller, event.conversation.id);
    if (!row) return null;
    const [rendered] = await renderForAgent(db, agent.id, [event]);
    if (!rendered) return null;
    const [context, fileCount] = await Promise.all([agents.envelope(caller, row), files.count?.(caller, row) ?? 0]);
    // B-175: the turns before this message, newest 20 read, and how many older ones exist; a
    // visitor's start at its placement (B-301).
    const floor = await agents.historyFloor(caller, row);
    const before = await db.event.findMany({
      where: { conversationId: row.key, kind: "message", seq: { lt: seq, gt: floor } },
      orderBy: { seq: "desc" },
      take: HISTORY_TURNS_MAX,
      select: agentMessageSelect,
    });
    const earlier =
      before.length < HISTORY_TURNS_MAX
        ? 0
        : await db.event.count({
            where: { conversationId: row.key, kind: "message", seq: { lt: before.at(-1)?.seq ?? 0, gt: floor } },
          });
    const turns = (await renderForAgent(db, agent.id, before.reverse())).map(
      ({ message }): HistoryTurn => ({
        id: message.id,
        senderId: message.senderId,
        senderName: message.sender.name,
        senderType: message.senderType,
        content: message.content,
        createdAt: message.createdAt,
        replyTo: message.replyTo,
      }),
    );
    const event_ = toUpdatesEvent(rendered);
    return {
      event: "message.created" as const,
      deliveryId,
      conversationId: event_.conversationId,
      conversation: event_.conversation,
      // B-167: metadata only; no notes exist yet. B-168: fileCount is what this agent's list_files here lists.
      project: { ...event_.project, notes: { pinned: [], shelfCount: 0, fileCount } },
      // B-181, B-185: the files signed when the body is made (each attempt anew).
      message: eventMessage(files.sign ? signAgentMessage(rendered.message, files.sign) : rendered.message),
      sender: rendered.message.sender,
      replyTo: rendered.message.replyTo,
      participants: context.participants,
      instructions: context.instructions,
      context,
      // B-164: the same signal as `→ you should respond`.
      you: { ...context.you, shouldRespond: rendered.message.shouldRespond },
      history: budgetHistory(turns, earlier),
    };
  }

  async function attempt(delivery: { id: string; agentId: string; eventSeq: number; attempts: number }): Promise<void> {
    const hook = await db.webhook.findUnique({
      where: { agentId: delivery.agentId },
      select: { url: true, secret: true },
    });
    const body = hook ? await bodyFor(delivery.id, delivery.agentId, delivery.eventSeq) : null;
    if (!hook || !body) {
      await db.webhookDelivery.update({
        where: { id: delivery.id },
        data: {
          status: "dropped",
          lockedUntil: null,
          lastError: hook ? "no longer in the conversation" : "webhook removed",
        },
      });
      return;
    }
    const text = JSON.stringify(body);
    let status: number | null = null;
    let error: string | null = null;
    const url = new URL(hook.url);
    const to = await target(url);
    if (!to.ok && to.refused) {
      // Issue 13 #1: refused at once and never retried, whether or not anything listens there, so the
      // delivery counts of GET /webhook tell nothing about the hub's network.
      await db.webhookDelivery.updateMany({
        where: { id: delivery.id, status: "pending" },
        data: { status: "failed", lockedUntil: null, lastStatus: null, lastError: `address not allowed: ${to.reason}` },
      });
      return;
    }
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
            "x-maity-delivery": delivery.id,
            [WEBHOOK_SIGNATURE_HEADER]: signWebhook(hook.secret, text),
          },
          text,
        );
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
    }
    if (status !== null && status >= 200 && status < 300) {
      await db.webhookDelivery.updateMany({
        where: { id: delivery.id, status: "pending" },
        data: { status: "delivered", deliveredAt: new Date(), lockedUntil: null, lastStatus: status, lastError: null },
      });
      return;
    }
    const pause = backoff[delivery.attempts - 1];
    // Conditional: a DELETE /webhook while this was in flight keeps the row dropped.
    await db.webhookDelivery.updateMany({
      where: { id: delivery.id, status: "pending" },
      data:
        pause === undefined
          ? { status: "failed", lockedUntil: null, lastStatus: status, lastError: error ?? `answered ${status}` }
          : {
              nextAttemptAt: new Date(Date.now() + pause),
              lockedUntil: null,
              lastStatus: status,
              lastError: error ?? `answered ${status}`,
            },
    });
  }

  /** Sends what is due; several app instances share the table: a conditional update claims a row. */
  async function drain(): Promise<void> {
    for (;;) {
      const now = new Date();
      // In seq order per agent (issue 12): only each agent's oldest pending delivery is due, so a
      // receiver sees its messages in the log's order; different agents are sent in parallel.
      const due = (
        await db.$queryRawUnsafe<{ id: string; agent_id: string; event_seq: number; attempts: number }[]>(
          `SELECT id, agent_id, event_seq, attempts FROM (
             SELECT DISTINCT ON (agent_id) id, agent_id, event_seq, attempts, next_attempt_at, locked_until
             FROM webhook_deliveries WHERE status = 'pending' ORDER BY agent_id, event_seq) head
           WHERE next_attempt_at <= $1::timestamp AND (locked_until IS NULL OR locked_until < $1::timestamp)
           ORDER BY event_seq LIMIT 20`,
          now.toISOString(),
        )
      ).map((r) => ({ id: r.id, agentId: r.agent_id, eventSeq: Number(r.event_seq), attempts: Number(r.attempts) }));
      if (due.length === 0 || closed) break;
      await Promise.all(
        due.map(async (d) => {
          const claimed = await db.webhookDelivery.updateMany({
            where: { id: d.id, status: "pending", OR: [{ lockedUntil: null }, { lockedUntil: { lt: now } }] },
            data: { lockedUntil: new Date(Date.now() + LOCK_MS), attempts: { increment: 1 } },
          });
          if (claimed.count === 1)
            await attempt({ ...d, attempts: d.attempts + 1 }).catch((e: unknown) =>
              console.error("maity: webhook delivery failed", e),
            );
        }),
      );
    }
    // Wake up for the next retry that is waiting.
    const next = closed
      ? null
      : await db.webhookDelivery.findFirst({
          where: { status: "pending" },
          orderBy: { nextAttemptAt: "asc" },
          select: { nextAttemptAt: true },
        });
    if (timer) clearTimeout(timer);
    timer = next ? setTimeout(kick, Math.max(10, next.nextAttemptAt.getTime() - Date.now())) : null;
  }

  /** Start sending (once at a time; a kick while sending runs one more round). */
  function kick(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await drain().catch((e: unknown) => console.error("maity: webhook worker", e));
      } while (again && !closed);
      running = null;
    })();
  }

  return {
    kick,
    /** Resume what a previous process left pending. */
    start: kick,
    /** Waits for the round in flight (tests, shutdown). */
    async idle(): Promise<void> {
      while (running) await running;
    },
    async close(): Promise<void> {
      closed = true;
      if (timer) clearTimeout(timer);
      while (running) await running;
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
