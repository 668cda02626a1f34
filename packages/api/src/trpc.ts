import { type AgentOperation, HubError, hubErrorStatus, isHubError, refusalOf, wireDetails } from "@maity/domain";
import type { AgentCaller, Caller, Credential, DeviceCaller, Hub, HumanCaller } from "@maity/hub";
import { initTRPC, TRPCError } from "@trpc/server";
import { accessRefusal } from "./access.ts";
import { ZodError } from "zod";

// The one tRPC init file: context, error shape and the base procedures.
export interface Context {
  hub: Hub;
  caller: Caller | null;
  /** A device credential's person (DESIGN §4e), on the device API's routes; null otherwise. */
  device?: DeviceCaller | null;
  /** The session cookie's value when the caller came by cookie (logout needs it). */
  session: string | null;
  /** Response headers (Set-Cookie on login/logout). */
  resHeaders: Headers;
  secure: boolean;
  /** The operator's bearer (MAITY_ADMIN_TOKEN): "hidden" when the hub runs without one. */
  admin: "ok" | "hidden" | "unauthenticated";
  /** The credential the caller came with, which a live stream watches (revocation ends it); absent in process. */
  credential?: Credential | null;
  /** The client's address (x-maity-remote, set by the Node dispatch) for the login limits. */
  address?: string;
  /** Aborts when the client goes away: a held read (/updates) stops holding. */
  signal?: AbortSignal;
  /** Where the hub is reached (MAITY_PUBLIC_URL, else the request's origin): pairing answers carry it. */
  baseUrl?: string;
  /**
   * Set by the REST adapter only — the request's body stream and content type, which a
   * multipart route (`meta.body`) reads itself. A REST-only route refuses a call without it (tRPC).
   */
  rest?: { body: ReadableStream<Uint8Array> | null; contentType: string | null };
}

/** How a procedure is served as a REST route (rest/index.ts) and documented (openapi.ts). */
export interface RestMeta {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** `{name}` segments fill the input field of that name. */
  path: string;
  summary: string;
  /** Success status (default 200); `respond` overrides it per answer. */
  status?: 200 | 201 | 204;
  /** Request headers that fill input fields (header name, lower case → field). */
  headers?: Record<string, string>;
  /** Maps the procedure's output onto the REST answer when it is not the body as it is. */
  respond?: (output: never) => { status: number; body: unknown };
  /** The REST body's schema when `respond` reshapes the output. */
  responseSchema?: import("zod").ZodType;
  /** The body is multipart/form-data, handed to the procedure as a stream (ctx.rest), not JSON. */
  body?: "multipart";
  /** The procedure answers a StreamAnswer (bytes and headers), not JSON. REST only. */
  stream?: true;
  /** Refusals in the agent protocol's `{error, code}` style although the route is not an agent operation. */
  style?: "agent";
  /** The agent protocol's name for a refused input of this operation (INVALID_NOTE). */
  invalidCode?: import("@maity/domain").AgentErrorCode;
  /** A JSON body's limit above the default (a note's 100,000 characters), in bytes. */
  bodyMax?: number;
}
/** A streamed answer (downloads): the REST adapter sends it as it is. */
export interface StreamAnswer {
  status: number;
  headers: Record<string, string>;
  body: import("node:stream").Readable | null;
}
/** An agent API operation (@maity/domain agentOperations), served in the protocol's error style. */
export interface AgentMeta extends AgentOperation {
  /** Maps the procedure's output onto the REST answer (a send's replay answers 200). */
  respond?: (output: never) => { status: number; body: unknown };
}
export interface Meta {
  rest?: RestMeta;
  agent?: AgentMeta;
}

const trpcCode = (code: HubError["code"]): TRPCError["code"] =>
  ({
    invalid: "BAD_REQUEST",
    unauthenticated: "UNAUTHORIZED",
    forbidden: "FORBIDDEN",
    not_found: "NOT_FOUND",
    method_not_allowed: "METHOD_NOT_SUPPORTED",
    conflict: "CONFLICT",
    conversation_closed: "CONFLICT",
    conversation_quota: "CONFLICT",
    version_conflict: "CONFLICT",
    note_limit: "CONFLICT",
    project_closed: "CONFLICT",
    rate_limited: "TOO_MANY_REQUESTS",
    too_large: "PAYLOAD_TOO_LARGE",
    unsupported_media_type: "UNSUPPORTED_MEDIA_TYPE",
  })[code] as TRPCError["code"];

export function toTRPCError(error: HubError): TRPCError {
  return new TRPCError({ code: trpcCode(error.code), message: error.message, cause: error });
}

const t = initTRPC
  .meta<Meta>()
  .context<Context>()
  .create({
    errorFormatter({ shape, error, input, type }) {
      const hub = hubErrorOfTrpc(error, input, type);
      // An unexpected error (a database's, a bug's) answers the generic message and no
      // stack; its detail goes to the server log only (fetch.ts onError).
      if (!hub && isInternal(error)) {
        const { stack: _stack, ...data } = shape.data;
        return { ...shape, message: "internal error", data: { ...data, hubError: null } };
      }
      return {
        ...shape,
        // The hub's words, not a parser's or zod's dump of issues.
        message: hub?.message ?? shape.message,
        data: {
          ...shape.data,
          // The hub's error, as the Maity REST routes render it (DESIGN.md §4).
          hubError: hub
            ? { code: hub.code, message: hub.message, details: wireDetails(hub), status: hubErrorStatus[hub.code] }
            : null,
        },
      };
    },
  });

/**
 * The hub's error behind a tRPC error: a service's HubError; input refused by a procedure's zod
 * schema as `invalid` with the fields named; and tRPC's own transport refusals (DESIGN §4: every
 * refusal in the hub's shape, its field named) — a body that is not JSON (`fields.body`, or
 * `fields.input` for a query's `?input=`), a content type that is not JSON, an unknown procedure, a
 * query called as a mutation. Null for an error nobody meant (a 500).
 */
export function hubErrorOfTrpc(error: TRPCError, input: unknown, type: string): HubError | null {
  if (isHubError(error.cause)) return error.cause;
  if (error.cause instanceof ZodError) return refusalOf(error.cause, input);
  const field = type === "mutation" ? "body" : "input";
  switch (error.code) {
    case "PARSE_ERROR":
    case "BAD_REQUEST":
      // tRPC parses the body (or `?input=`) itself: its parser's message is no field's name.
      return error.cause instanceof SyntaxError
        ? HubError.invalid({ [field]: "not_json" }, `the call's ${field} is not valid JSON`)
        : HubError.invalid({ [field]: "malformed" }, `the call's ${field}: ${error.message}`);
    case "UNSUPPORTED_MEDIA_TYPE":
      return new HubError("unsupported_media_type", "a tRPC call sends application/json", {
        fields: { "content-type": "not_json" },
      });
    case "NOT_FOUND":
      return HubError.notFound("no such procedure");
    case "METHOD_NOT_SUPPORTED":
      return new HubError(
        "method_not_allowed",
        type === "mutation" ? "a mutation is called with POST" : "a query or subscription is called with GET",
        { fields: { method: type === "mutation" ? "use_post" : "use_get" } },
      );
    default:
      return null;
  }
}

/** An error the hub did not mean to answer: not a HubError, not refused input, tRPC's INTERNAL_SERVER_ERROR. */
export function isInternal(error: TRPCError): boolean {
  return error.code === "INTERNAL_SERVER_ERROR" && !isHubError(error.cause) && !(error.cause instanceof ZodError);
}

/** Services throw HubError; map it to tRPC's codes with the details kept. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isHubError(result.error.cause)) throw toTRPCError(result.error.cause);
  return result;
});

/** Which credentials the operation accepts, by the one table (access.ts), before its input is read. */
const checkAccess = t.middleware(({ ctx, path, next }) => {
  const refused = accessRefusal(path, ctx);
  if (refused) throw toTRPCError(refused);
  return next();
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapErrors).use(checkAccess);

export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.caller) throw toTRPCError(HubError.unauthenticated());
  return next({ ctx: { ...ctx, caller: ctx.caller } });
});

/** Routes that stream a body in or out are served by the REST adapter only, never over tRPC. */
export const restOnly = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.rest) throw toTRPCError(HubError.notFound("no such procedure"));
  return next({ ctx: { ...ctx, rest: ctx.rest } });
});
/** A REST-only route for a signed-in caller (an upload, a file's bytes). */
export const authedRestOnly = restOnly.use(({ ctx, next }) => {
  if (!ctx.caller) throw toTRPCError(HubError.unauthenticated());
  return next({ ctx: { ...ctx, caller: ctx.caller } });
});

/** A person's operation: the access table (access.ts) admitted only people; this narrows the caller's type. */
export const humanProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.caller) throw toTRPCError(HubError.unauthenticated());
  if (ctx.caller.kind !== "human") throw toTRPCError(HubError.forbidden("humans_only"));
  return next({ ctx: { ...ctx, caller: ctx.caller as HumanCaller } });
});

/**
 * Spends one call of an agent API operation's budget for `who` (the agent, or the client's address
 * on the pre-auth routes); the refusal names the budget and the seconds to wait (429 Retry-After).
 */
export function spendBudget(hub: Hub, op: Pick<AgentOperation, "bucket">, who: string): HubError | null {
  const wait = hub.limits.take(op.bucket, who);
  if (wait === null) return null;
  const limit = hub.limits.settings[op.bucket];
  const message = {
    agent: `over ${limit} requests a minute`,
    updates: `over ${limit} /updates calls a minute; back off the poll loop`,
    preauth: "too many attempts; wait and try again",
  }[op.bucket];
  const agentCode = op.bucket === "updates" ? "UPDATES_RATE_LIMITED" : "RATE_LIMITED";
  return new HubError("rate_limited", message, { limit: op.bucket, retry_after: wait }, { agentCode });
}

/**
 * The agent API (004 §2, B-010/B-011): a bay_ agent token and nothing else — a person's token or
 * session answers the same 401 as none. Each call spends the agent's budget (B-360; /updates its
 * own, B-141) before its input is read.
 */
export const agentProcedure = publicProcedure.use(({ ctx, meta, next }) => {
  if (ctx.caller?.kind !== "agent") throw toTRPCError(HubError.unauthenticated());
  const caller = ctx.caller as AgentCaller;
  const refused = meta?.agent ? spendBudget(ctx.hub, meta.agent, caller.id) : null;
  if (refused) throw toTRPCError(refused);
  return next({ ctx: { ...ctx, caller } });
});

/** The pre-auth pairing routes guess at codes: a budget per client address (B-010). */
export const preauthProcedure = publicProcedure.use(({ ctx, meta, next }) => {
  const refused = meta?.agent ? spendBudget(ctx.hub, meta.agent, ctx.address ?? "unknown") : null;
  if (refused) throw toTRPCError(refused);
  return next({ ctx });
});

/** Operator routes: 404 when the hub runs without MAITY_ADMIN_TOKEN, 401 for a wrong bearer. */
export const adminProcedure = publicProcedure.use(({ ctx, next }) => {
  if (ctx.admin === "hidden") throw toTRPCError(HubError.notFound("no such route"));
  if (ctx.admin !== "ok") throw toTRPCError(HubError.unauthenticated());
  return next({ ctx });
});
