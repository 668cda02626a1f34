import type { AppRouter } from "@maity/api";
import {
  agentOutput,
  conversationPage,
  conversationSchema,
  eventPage,
  groupViewSchema,
  meConversationPage,
  participationSchema,
  humanOutput,
  memberOutput,
  messagePage,
  messageSchema,
  projectOutput,
  tokenOutput,
} from "@maity/domain";
import { createTRPCClient, httpBatchLink } from "@trpc/client";

/** A refusal from the hub, as its REST routes render it (DESIGN.md §4). */
export class HubApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { fields?: Record<string, string>; reason?: string; [key: string]: unknown } = {},
  ) {
    super(message);
    this.name = "HubApiError";
  }
}

export interface RestClientOptions {
  baseUrl: string;
  token?: string | undefined;
  fetch?: typeof fetch;
}

type Schema<T> = { parse(value: unknown): T };
const enc = encodeURIComponent;

/** Typed REST client for the Maity routes; success bodies are parsed with the domain's schemas. */
export function createRestClient(options: RestClientOptions) {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, "");

  async function call<T>(method: string, path: string, schema: Schema<T> | null, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
    const headers: Record<string, string> = { ...extraHeaders };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await doFetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!res.ok) {
      const error = (parsed as { error?: { code?: string; message?: string; details?: HubApiError["details"] } } | null)?.error;
      throw new HubApiError(res.status, error?.code ?? `http_${res.status}`, error?.message ?? (text || res.statusText), error?.details ?? {});
    }
    return schema ? schema.parse(parsed) : (parsed as T);
  }

  const project = (owner: string, slug: string) => `/api/projects/${enc(owner)}/${enc(slug)}`;
  const conversation = (owner: string, slug: string, id: string) => `${project(owner, slug)}/conversations/${enc(id)}`;
  const qs = (query: Record<string, string | number | boolean | undefined>) => {
    const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
    return params.size ? `?${params}` : "";
  };
  type ListQuery = { observed?: boolean; limit?: number; cursor?: string };
  const adminProject = (owner: string, slug: string) => `/api/admin/projects/${enc(owner)}/${enc(slug)}`;

  return {
    admin: {
      createHuman: (input: { handle: string; name: string; password: string }) => call("POST", "/api/admin/humans", humanOutput, input),
      createAgent: (input: { owner: string; handle: string; name?: string; description?: string }) => call("POST", "/api/admin/agents", agentOutput, input),
      createProject: (input: { owner: string; slug: string; name: string }) => call("POST", "/api/admin/projects", projectOutput.omit({ archived: true }), input),
      addMember: (owner: string, slug: string, input: { member_id: string; permissions?: "members:admin"[] }) =>
        call("POST", `${adminProject(owner, slug)}/members`, memberOutput, input),
      removeMember: (owner: string, slug: string, memberId: string, reason?: "removed" | "isolated") =>
        call<{ member_id: string; status: string }>("DELETE", `${adminProject(owner, slug)}/members/${enc(memberId)}${reason ? `?reason=${enc(reason)}` : ""}`, null),
      archiveProject: (owner: string, slug: string) => call("POST", `${adminProject(owner, slug)}/archive`, projectOutput),
      mintToken: (input: { member_id: string }) => call("POST", "/api/admin/tokens", tokenOutput, input),
      revokeToken: (input: { token: string }) => call<{ revoked: boolean }>("POST", "/api/admin/tokens/revoke", null, input),
    },
    conversations: {
      list: (owner: string, slug: string, query: ListQuery = {}) => call("GET", `${project(owner, slug)}/conversations${qs(query)}`, conversationPage),
      mine: (query: ListQuery = {}) => call("GET", `/api/me/conversations${qs(query)}`, meConversationPage),
      get: (owner: string, slug: string, id: string) => call("GET", conversation(owner, slug, id), conversationSchema),
      /** A group chat (§9.2); pass an idempotency key to make a retry safe. */
      create: (owner: string, slug: string, input: { title?: string | null; participants: string[] }, options: { idempotencyKey?: string } = {}) =>
        call("POST", `${project(owner, slug)}/conversations`, groupViewSchema, input, options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {}),
      rename: (owner: string, slug: string, id: string, title: string | null) => call("PATCH", conversation(owner, slug, id), groupViewSchema, { title }),
      addParticipant: (owner: string, slug: string, id: string, memberId: string) => call("POST", `${conversation(owner, slug, id)}/participants`, groupViewSchema, { member_id: memberId }),
      removeParticipant: (owner: string, slug: string, id: string, memberId: string) =>
        call("DELETE", `${conversation(owner, slug, id)}/participants/${enc(memberId)}`, participationSchema),
      pin: (owner: string, slug: string, id: string) => call("PUT", `${conversation(owner, slug, id)}/pin`, null),
      unpin: (owner: string, slug: string, id: string) => call("DELETE", `${conversation(owner, slug, id)}/pin`, null),
      setMeatProxy: (owner: string, slug: string, id: string, value: boolean | null) => call("PUT", `${conversation(owner, slug, id)}/meat-proxy`, null, { meat_proxy: value }),
    },
    messages: {
      list: (owner: string, slug: string, id: string, query: { after?: number; before?: number; limit?: number } = {}) =>
        call("GET", `${conversation(owner, slug, id)}/messages${qs(query)}`, messagePage),
      post: (owner: string, slug: string, id: string, input: { body: string; to_instance?: string | null }) => call("POST", `${conversation(owner, slug, id)}/messages`, messageSchema, input),
      redact: (owner: string, slug: string, id: string, seq: number, reason?: string | null) =>
        call("POST", `${conversation(owner, slug, id)}/messages/${seq}/redact`, messageSchema, reason === undefined ? {} : { reason }),
    },
    events: {
      list: (owner: string, slug: string, query: { after?: number; limit?: number } = {}) => call("GET", `${project(owner, slug)}/events${qs(query)}`, eventPage),
      post: (owner: string, slug: string, input: { type: "chat"; conversation_id: string; body: string; to_instance?: string | null }) =>
        call("POST", `${project(owner, slug)}/events`, messageSchema, input),
    },
  };
}
export type RestClient = ReturnType<typeof createRestClient>;

/** The tRPC client the dashboard uses, for Node scripts and tests (bearer or cookie headers). */
export function createTrpcClient(baseUrl: string, headers: Record<string, string> = {}) {
  return createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${baseUrl.replace(/\/+$/, "")}/api/trpc`, headers })] });
}
export * from "./agent.ts";
export type { EventsOptions } from "./events.ts";
