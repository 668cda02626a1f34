import { agentRequestOf, isHubError } from "@maity/domain";
import { connect } from "./agent.ts";
import { AgentApiError, type AgentClientOptions, answerOf, assertSecureTransport, type CallOptions } from "./call.ts";
import type { RestInput, RestOutput, RestRouteName } from "./restTypes.ts";
import { restRouteTable } from "./routes.gen.ts";

// The device API (DESIGN §4e, B-310…B-331): what a person's `bay_u_` credential does itself —
// join, list and end its terminal sessions, list and create groups — and, as one of those sessions,
// everything an agent does (`as(session)`: the agent client with X-Maity-Session). Refusals are
// the agent protocol's (`{error, code}` → AgentApiError), like the agent client's.

export function connectDevice(options: Omit<AgentClientOptions, "session" | "instanceId"> & { token: string }) {
  assertSecureTransport(options);
  const base = options.baseUrl.replace(/\/+$/, "");
  async function call<K extends RestRouteName>(name: K, input: RestInput<K>, o: CallOptions = {}) {
    let request: ReturnType<typeof agentRequestOf>;
    try {
      request = agentRequestOf(
        restRouteTable[name] as Parameters<typeof agentRequestOf>[0],
        (input ?? {}) as Record<string, unknown>,
      );
    } catch (error) {
      if (!isHubError(error)) throw error;
      const body = { error: error.message, code: "INVALID_REQUEST", fields: error.details.fields ?? {} };
      throw new AgentApiError(400, body.code, body.error, body);
    }
    const doFetch = options.fetch ?? globalThis.fetch;
    const res = await doFetch(`${base}${request.path}`, {
      method: restRouteTable[name].method,
      headers: { accept: "application/json", authorization: `Bearer ${options.token}`, ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(o.signal ? { signal: o.signal } : {}),
    });
    return (await answerOf(res)) as RestOutput<K>;
  }
  return {
    options,
    /** join_session (B-314…B-321, B-327…B-330). */
    join: (input: RestInput<"sessions.join">, o?: CallOptions) => call("sessions.join", input, o),
    /** list_sessions, and this device's Codex registrations (B-331). */
    sessions: (o?: CallOptions) => call("sessions.list", {}, o),
    /** end_session (B-339). */
    end: (session: string, o?: CallOptions) => call("sessions.end", { session }, o),
    /** list_groups (B-311). */
    groups: (o?: CallOptions) => call("sessions.groups", {}, o),
    /** create_group (B-311, B-318). */
    createGroup: (input: RestInput<"sessions.createGroup">, o?: CallOptions) => call("sessions.createGroup", input, o),
    /** request_approval (B-313): a decision card to one person; its state, pending. */
    requestApproval: (input: RestInput<"sessions.requestApproval">, o?: CallOptions) =>
      call("sessions.requestApproval", input, o),
    /** await_approval: pending, approved or denied, held up to `wait` seconds. */
    awaitApproval: (input: RestInput<"sessions.awaitApproval">, o?: CallOptions) =>
      call("sessions.awaitApproval", input, o),
    /** listen_messages (B-332): the monitor's URL, subprotocol and single-use ticket. */
    listen: (input: RestInput<"sessions.listen">, o?: CallOptions) => call("sessions.listen", input, o),
    /** get_delivery_status (B-334). */
    deliveryStatus: (session: string, o?: CallOptions) => call("sessions.deliveryStatus", { session }, o),
    /** stop_listening (B-339). */
    stopListening: (session: string, o?: CallOptions) => call("sessions.stopListening", { session }, o),
    /** The agent client acting as the person's session `session` (B-310): every base tool's calls. */
    as: (session: string) => connect({ ...options, session }),
  };
}
export type DeviceClient = ReturnType<typeof connectDevice>;
