import {
  type AgentOperation,
  type AgentOperationInput,
  type AgentOperationName,
  type AgentOperationOutput,
  agentOperations,
  agentRequestOf,
  isHubError,
} from "@maity/domain";

// One agent API call (004 §11): the operation's request from the one table in @maity/domain, its
// answer or its refusal as AgentApiError. Below the client and its event stream, which both use it.

/** A refusal in the agent protocol's words: `{error, code}` and the status (004 §11). */
export class AgentApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
    /** Seconds to wait (429's Retry-After), when the hub said. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "AgentApiError";
  }
  /** The fields a 400 named, e.g. `{ content: "required" }`. */
  get fields(): Record<string, string> {
    return (this.body.fields as Record<string, string> | undefined) ?? {};
  }
}

/**
 * B-161: a token (or a pairing answer, which carries one) never crosses the network in clear text:
 * plain http only to this machine (localhost, 127.0.0.0/8, ::1). A hub elsewhere is reached over
 * https, or the caller says the network is trusted (`allowInsecureHttp`, the CLI's
 * MAITY_ALLOW_INSECURE_HTTP=1).
 */
export function sendsInClear(baseUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return false; // not a URL: fetch refuses it with its own error
  }
  if (url.protocol !== "http:" && url.protocol !== "ws:") return false;
  const host = url.hostname.toLowerCase();
  return !(
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "[::1]" ||
    /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}

/** The refusal of a plain-http hub on another machine (B-161), before anything is sent. */
export class InsecureUrlError extends Error {
  constructor(readonly baseUrl: string) {
    super(
      `refusing to send credentials over plain http to ${new URL(baseUrl).host}: use https (or allow it for a trusted network)`,
    );
    this.name = "InsecureUrlError";
  }
}

/** Throws InsecureUrlError when a call would carry credentials in clear text to another machine. */
export function assertSecureTransport(
  options: Pick<AgentClientOptions, "baseUrl" | "fetch" | "allowInsecureHttp">,
): void {
  // A fetch of the caller's own (in process, a test's) carries nothing over the network here.
  if (options.fetch || options.allowInsecureHttp) return;
  if (sendsInClear(options.baseUrl)) throw new InsecureUrlError(options.baseUrl);
}

export interface AgentClientOptions {
  /** Where the hub is, e.g. `http://127.0.0.1:3000` (the credentials file's `baseUrl`). */
  baseUrl: string;
  /** The agent's `bay_…` token (omit for the pre-auth calls only). */
  token?: string;
  /** This running copy's instance id (`X-Agent-Instance`), when the agent runs several. */
  instanceId?: string;
  /**
   * A device credential's (`bay_u_`) terminal session to act as (`X-Maity-Session`, DESIGN §4e):
   * `token` is then the device credential, and every call is that session's.
   */
  session?: string;
  fetch?: typeof fetch;
  /** Allow plain http to a hub on another machine (B-161); only for a network you trust. */
  allowInsecureHttp?: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** Calls one operation of the agent API and answers its typed output, or throws AgentApiError. */
export async function callAgentOperation<K extends AgentOperationName>(
  options: AgentClientOptions,
  name: K,
  input: AgentOperationInput<K>,
  call: CallOptions = {},
): Promise<AgentOperationOutput<K>> {
  assertSecureTransport(options);
  const op: AgentOperation = agentOperations[name];
  const request = requestOf(op, input as Record<string, unknown>);
  const headers: Record<string, string> = { accept: "application/json", ...request.headers };
  if (op.access === "agent" && options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.instanceId) headers["x-agent-instance"] = options.instanceId;
  if (options.session) headers["x-maity-session"] = options.session;
  const doFetch = options.fetch ?? globalThis.fetch;
  const res = await doFetch(`${options.baseUrl.replace(/\/+$/, "")}${request.path}`, {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(call.signal ? { signal: call.signal } : {}),
  });
  return (await answerOf(res)) as AgentOperationOutput<K>;
}

/**
 * The operation's request, or — for input that cannot go on the wire as given (a lone surrogate in a
 * path or query, a header value that is not Latin-1) — the refusal the hub would give, 400
 * INVALID_REQUEST naming the field, before anything is sent (not a network error).
 */
function requestOf(op: AgentOperation, input: Record<string, unknown>): ReturnType<typeof agentRequestOf> {
  try {
    return agentRequestOf(op, input);
  } catch (error) {
    if (!isHubError(error)) throw error;
    const body = { error: error.message, code: "INVALID_REQUEST", fields: error.details.fields ?? {} };
    throw new AgentApiError(400, body.code, body.error, body);
  }
}

/** A hub's answer: its JSON body (null for 204), or its refusal as AgentApiError. */
export async function answerOf(res: Response): Promise<unknown> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const refusal = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
    const retryAfter = Number(res.headers.get("retry-after"));
    throw new AgentApiError(
      res.status,
      typeof refusal.code === "string" ? refusal.code : `HTTP_${res.status}`,
      typeof refusal.error === "string" ? refusal.error : text || res.statusText,
      refusal,
      Number.isFinite(retryAfter) && res.headers.has("retry-after") ? retryAfter : null,
    );
  }
  return res.status === 204 ? null : body;
}
