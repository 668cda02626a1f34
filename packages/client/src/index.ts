import type { AppRouter } from "@maity/api";
import { agentRequestOf, isHubError } from "@maity/domain";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { assertSecureTransport } from "./call.ts";
import { restRouteTable } from "./routes.gen.ts";
import type { RestInput, RestOutput, RestRouteName } from "./restTypes.ts";

// The Maity (human and operator) side of the SDK: one `call(name, input)` over the REST routes, whose
// paths come from the router itself (routes.gen.ts, generated from restRoutes()) and whose input and
// answer are typed by the procedures' zod schemas through tRPC's inference (hand-typed
// paths drift: messages.post once lacked reply_to).

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

export { restRouteTable };
export type { RestInput, RestOutput, RestRouteName } from "./restTypes.ts";
export interface RestCallOptions {
  signal?: AbortSignal;
}
type CallArgs<K extends RestRouteName> =
  undefined extends RestInput<K>
    ? [input?: RestInput<K>, options?: RestCallOptions]
    : [input: RestInput<K>, options?: RestCallOptions];

/** The REST client: `call("messages.post", { owner, slug, conversation_id, body })`; throws HubApiError. */
export function createRestClient(options: RestClientOptions) {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, "");

  async function call<K extends RestRouteName>(name: K, ...[input, callOptions]: CallArgs<K>): Promise<RestOutput<K>> {
    const route = restRouteTable[name];
    // The agent API's wire mapping is the same (`{field}` segments, headers, query or JSON body).
    const fields = (input ?? {}) as Record<string, unknown>;
    let request: ReturnType<typeof agentRequestOf>;
    try {
      request = agentRequestOf(route as Parameters<typeof agentRequestOf>[0], fields);
    } catch (error) {
      // Input that cannot go on the wire as given: the hub's 400, the field named, nothing sent.
      if (!isHubError(error)) throw error;
      throw new HubApiError(400, error.code, error.message, error.details);
    }
    const headers: Record<string, string> = { accept: "application/json", ...request.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const res = await doFetch(`${base}${request.path}`, {
      method: route.method,
      headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(callOptions?.signal ? { signal: callOptions.signal } : {}),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!res.ok) {
      type Refusal = { error?: { code?: string; message?: string; details?: HubApiError["details"] } } | null;
      const error = (parsed as Refusal)?.error;
      const message = error?.message ?? (text || res.statusText);
      throw new HubApiError(res.status, error?.code ?? `http_${res.status}`, message, error?.details ?? {});
    }
    return parsed as RestOutput<K>;
  }

  return { call, routes: restRouteTable };
}
export type RestClient = ReturnType<typeof createRestClient>;

type DeviceOptions = { fetch?: typeof fetch; allowInsecureHttp?: boolean };
const deviceClient = (baseUrl: string, o: DeviceOptions) => {
  // A credential never goes over plain http to another machine (as the agent client, B-013).
  assertSecureTransport({ baseUrl, ...o });
  return createRestClient({ baseUrl, ...(o.fetch ? { fetch: o.fetch } : {}) });
};
/** DESIGN §4e `maity login`: open a device login the person approves at `approveUrl`. */
export const openDeviceLogin = (baseUrl: string, label?: string, o: DeviceOptions = {}) =>
  deviceClient(baseUrl, o).call("devices.open", label === undefined ? {} : { label });
/** Pending, denied, expired — or once, a `bay_u_` credential per Bay the person chose. */
export const pollDeviceLogin = (baseUrl: string, id: string, secret: string, o: DeviceOptions = {}) =>
  deviceClient(baseUrl, o).call("devices.poll", { id, secret });
/** `maity logout`: the computer signs itself out with one of its credentials (every Bay of it). */
export const deviceLogout = (baseUrl: string, token: string, o: DeviceOptions = {}) =>
  deviceClient(baseUrl, o).call("devices.logout", { token });

/** The tRPC client the dashboard uses, for Node scripts and tests (bearer or cookie headers). */
export function createTrpcClient(baseUrl: string, headers: Record<string, string> = {}) {
  const url = `${baseUrl.replace(/\/+$/, "")}/api/trpc`;
  return createTRPCClient<AppRouter>({ links: [httpBatchLink({ url, headers })] });
}
export * from "./agent.ts";
export { connectDevice, type DeviceClient } from "./device.ts";
export type { EventsOptions } from "./events.ts";
