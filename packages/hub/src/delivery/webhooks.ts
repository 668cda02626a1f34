import { createHmac, randomBytes } from "node:crypto";
import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import {
  addressRefusal,
  type ContextNotice,
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
import { bodyBuilder } from "./webhookBodies.ts";
import { type Sendable, type Sent, webhookWorker } from "./webhookWorker.ts";

// Webhook contract v2 (004 §11, B-162…B-177): an agent that takes pushes instead of polling names a
// URL; every message in its rooms but its own is POSTed there with the context envelope, its verdict
// and a budgeted history, signed with HMAC-SHA256 of the body. Deliveries are rows queued in the
// message's own transaction, sent after it commits and retried with backoff, so the sender never
// waits on a receiver and a restart loses none.

export const WEBHOOK_SIGNATURE_HEADER = "x-maity-signature";
/** Pauses before each retry — three retries (OQ-B-21); after the last one the delivery is failed. */
export const DEFAULT_WEBHOOK_BACKOFF_MS = [5_000, 30_000, 120_000];
/** Requests in flight at most, over all agents (MAITY_WEBHOOK_CONCURRENCY). */
export const DEFAULT_WEBHOOK_CONCURRENCY = 16;

type Resolved = { address: string; family: number };
/** A host name's addresses, as `dns.promises.lookup(name, {all: true})` answers them. */
export type WebhookLookup = (hostname: string) => Promise<Resolved[]>;

export interface WebhookOptions {
  backoffMs?: number[];
  timeoutMs?: number;
  /**
   * Host names, IP literals and CIDR ranges a webhook may reach although they are not
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

export function webhookService(
  db: Db,
  sql: SqlExecutor,
  agents: AgentService,
  options: WebhookOptions = {},
  files: {
    sign?: Signer;
    count?: (agent: AgentCaller, row: KeyRow) => Promise<number>;
    notices?: (agentIds: readonly string[]) => Promise<Map<string, ContextNotice>>;
  } = {},
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
  /** What `target` answered for an IP literal host. */
  const literals = new Map<string, Target>();
  /** Webhook URLs parsed (a fan-out posts to the same few URLs again and again); never mutated. */
  const urls = new Map<string, URL>();
  const parsedUrl = (href: string): URL => {
    let url = urls.get(href);
    if (!url) {
      url = new URL(href);
      if (urls.size >= 10_000) urls.clear();
      urls.set(href, url);
    }
    return url;
  };
  const prepareBodies = bodyBuilder({
    sql,
    agents,
    ...(files.sign ? { sign: files.sign } : {}),
    ...(files.count ? { count: files.count } : {}),
    ...(files.notices ? { notices: files.notices } : {}),
  });

  /**
   * SSRF guard: the addresses a webhook URL may be sent to. An IP literal must be public (or
   * allowed); a name must resolve, and every address it resolves to must be public (or allowed), so
   * no answer of a round-robin name reaches inside. Asked at registration and again at every delivery
   * (DNS can change between them); the delivery connects only to the addresses checked here.
   */
  async function target(url: URL): Promise<Target> {
    const host = hostOf(url);
    const literal = literals.get(host);
    if (literal) return literal;
    const ip = parseIp(host);
    if (ip) {
      // An IP literal's answer depends on nothing that changes (the allow list is fixed at start).
      const kind = addressRefusal(host, allow);
      const answer: Target = kind
        ? { ok: false, refused: true, reason: `${host} is a ${kind} address` }
        : { ok: true, addresses: [{ address: host, family: ip.family }] };
      if (literals.size < 10_000) literals.set(host, answer);
      return answer;
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

  /** One POST: the address checked again at every delivery (DNS may change), then sent pinned to it, signed. */
  async function deliver({ claim, url: hookUrl, secret, bytes }: Sendable): Promise<Sent> {
    const url = parsedUrl(hookUrl);
    const to = await target(url);
    // Refused at once and never retried, whether or not anything listens there, so the
    // delivery counts of GET /webhook tell nothing about the hub's network.
    if (!to.ok && to.refused) return { status: null, error: null, refused: `address not allowed: ${to.reason}` };
    if (!to.ok) return { status: null, error: to.reason };
    try {
      const status = await post(
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
      return { status, error: null };
    } catch (e) {
      return { status: null, error: e instanceof Error ? e.message : String(e) };
    }
  }

  // The worker (OQ-B-21, B-163, webhookWorker.ts): different agents at once, at most `concurrency`
  // requests in flight; each agent's one at a time, in seq order.
  const worker = webhookWorker({
    sql,
    prepare: prepareBodies,
    send: deliver,
    backoff,
    concurrency: Math.max(1, Math.floor(options.concurrency ?? DEFAULT_WEBHOOK_CONCURRENCY)),
  });

  return {
    ...worker,
    /** POST /webhook (B-162): set (or replace) the URL; the secret is shown in this answer only. */
    async set(agent: AgentCaller, data: z.output<typeof webhookInput>): Promise<WebhookSet> {
      const url = new URL(data.url);
      const to = await target(url);
      if (!to.ok) {
        // A name that does not resolve and one that resolves inside get one answer, so
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
