import { z } from "zod";
import { appRouter } from "./routers/index.ts";
import { restRoutes } from "./rest/routes.ts";

// The OpenAPI 3.1 document of the REST routes — the Maity routes and the agent API alike, from the
// procedures' own zod schemas (one schema: validation, types and this document). Served at
// GET /api/openapi.json.

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  [key: string]: unknown;
};
type ProcedureDef = { _def: { inputs: z.ZodType[]; output?: z.ZodType } };

const toJson = (schema: z.ZodType, io: "input" | "output"): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
};
const unwrap = (schema: z.ZodType): z.ZodType =>
  schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;

const errorSchema: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "details"],
      properties: {
        code: {
          type: "string",
          enum: [
            "invalid",
            "unauthenticated",
            "forbidden",
            "not_found",
            "method_not_allowed",
            "conflict",
            "conversation_closed",
            "conversation_quota",
            "version_conflict",
            "note_limit",
            "project_closed",
            "too_large",
            "unsupported_media_type",
            "rate_limited",
          ],
        },
        message: { type: "string" },
        details: {
          type: "object",
          description: "invalid: fields.<name> names each refused field; forbidden: reason",
          properties: {
            fields: { type: "object", additionalProperties: { type: "string" } },
            reason: { type: "string" },
          },
        },
      },
    },
  },
};

const agentErrorSchema: JsonSchema = {
  type: "object",
  required: ["error", "code"],
  description:
    "The agent protocol's error: a message and a code (NOT_PARTICIPANT, CURSOR_EXPIRED, INVALID_REQUEST with fields, …)",
  properties: {
    error: { type: "string" },
    code: { type: "string" },
    fields: { type: "object", additionalProperties: { type: "string" } },
  },
};

const AGENT_ERRORS = [
  [
    "400",
    "INVALID_REQUEST (fields named), INVALID_JSON, INVALID_REPLY_TARGET, RESERVED_MESSAGE_TYPE, INVALID_PAIRING_CODE, " +
      "INVALID_UPLOAD",
  ],
  ["401", "UNAUTHORIZED: a missing, unknown or revoked agent token"],
  ["403", "NOT_PARTICIPANT (context and poll): never confirms the room exists"],
  ["404", "NOT_FOUND (send, typing, contact, link polls): never confirms the room exists"],
  ["409", "CURSOR_EXPIRED (/updates), ROUND_CAP_REACHED (contact), CONVERSATION_CLOSED, IDEMPOTENCY_KEY_REUSED"],
  ["413", "BODY_TOO_LARGE; uploads: FILE_TOO_LARGE, IMAGE_TOO_LARGE"],
  ["415", "UNSUPPORTED_FILE_TYPE (uploads): the bytes are not an allowed type"],
  ["429", "RATE_LIMITED (60/min), UPDATES_RATE_LIMITED (/updates, 20/min); Retry-After"],
] as const;
const MAITY_ERRORS = [
  ["400", "invalid: the refused fields are named in details.fields"],
  ["401", "unauthenticated"],
  ["403", "forbidden: details.reason says why"],
  ["404", "not_found: what the caller may not see answers like what does not exist"],
  ["405", "method_not_allowed: the route exists for another method (the Allow header names it)"],
  ["409", "conversation_closed, conversation_quota, project_closed, version_conflict, note_limit or conflict"],
  ["413", "too_large: the body passed its limit (details.limit); read no further"],
  ["415", "unsupported_media_type: a change made with the session cookie that is not JSON (CSRF)"],
  ["429", "rate_limited"],
] as const;

/** The agent API's WebSocket (004 §11): not a procedure, documented here. */
function socketPath(paths: Record<string, Record<string, unknown>>): void {
  paths["/api/agent-api/ws"] = {
    get: {
      operationId: "agent GET /api/agent-api/ws",
      summary:
        "The /updates events over a WebSocket (§11): send {t: hello, resume, features} within 10 s; frames {t: event}, {t: cursor}, {t: reset}; close codes 4000 displaced, 4001 credential, 4002 framing, 4003 going away",
      tags: ["agent-api"],
      security: [{ agent: [] }],
      responses: {
        "101": { description: "Switching protocols" },
        "401": { description: "a wrong credential" },
        "429": { description: "reconnecting too fast" },
      },
    },
  };
}

let cached: unknown;
export function openApiDocument(): unknown {
  if (cached) return cached;
  const procedures = appRouter._def.procedures as unknown as Record<string, ProcedureDef>;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of restRoutes()) {
    const def = procedures[route.name]?._def;
    if (!def) continue;
    const input = def.inputs[0] ? toJson(unwrap(def.inputs[0]), "input") : { type: "object", properties: {} };
    const properties = input.properties ?? {};
    const required = new Set(input.required ?? []);
    const headerFields = new Map(Object.entries(route.meta.headers ?? {}).map(([header, field]) => [field, header]));
    const parameters: unknown[] = [];
    const bodyProperties: Record<string, JsonSchema> = {};
    const multipart = route.meta.body === "multipart";
    // B-196: an upload's own fields ride in the query (or as multipart fields); the body is the file.
    const inQuery = route.meta.method === "GET" || route.meta.method === "DELETE" || multipart;
    for (const [name, schema] of Object.entries(properties)) {
      if (route.keys.includes(name)) parameters.push({ name, in: "path", required: true, schema });
      else if (headerFields.has(name))
        parameters.push({ name: headerFields.get(name), in: "header", required: false, schema });
      else if (inQuery) parameters.push({ name, in: "query", required: required.has(name), schema });
      else bodyProperties[name] = schema;
    }
    const bodyRequired = Object.keys(bodyProperties).filter((k) => required.has(k));
    const status = route.meta.status ?? 200;
    const outputSchema = route.meta.responseSchema ?? def.output;
    const success =
      status === 204
        ? { description: "No content" }
        : route.meta.stream
          ? {
              description: "The file's bytes; Content-Type, Content-Disposition (the name, RFC 6266) and Cache-Control",
              content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
            }
          : {
              description: "OK",
              content: { "application/json": { schema: outputSchema ? toJson(outputSchema, "output") : {} } },
            };
    const responses: Record<string, unknown> = { [String(status)]: success };
    if (route.meta.respond && route.meta.responseSchema)
      responses["200"] = {
        description: "A replay of an earlier request",
        content: { "application/json": { schema: toJson(route.meta.responseSchema, "output") } },
      };
    const agent = route.style === "agent";
    const errorRef = { $ref: `#/components/schemas/${agent ? "AgentError" : "Error"}` };
    for (const [code, description] of agent ? AGENT_ERRORS : MAITY_ERRORS)
      responses[code] = { description, content: { "application/json": { schema: errorRef } } };
    const security = {
      admin: [{ admin: [] }],
      public: [],
      agent: [{ agent: [] }],
      member: [{ bearer: [] }, { session: [] }],
    }[route.access];
    const operation: Record<string, unknown> = {
      operationId: route.name,
      summary: route.meta.summary,
      tags: [agent ? "agent-api" : route.name.split(".")[0]],
      parameters,
      responses,
      security,
    };
    if (multipart) {
      operation.requestBody = {
        required: true,
        description: "multipart/form-data: one file in the part `file`; `original=1` may come as a field too",
        content: {
          "multipart/form-data": {
            schema: {
              type: "object",
              required: ["file"],
              properties: {
                file: { type: "string", format: "binary" },
                original: { type: "string", enum: ["0", "1", "true", "false"] },
              },
            },
          },
        },
      };
    } else if (!inQuery) {
      operation.requestBody = {
        required: bodyRequired.length > 0,
        description: `JSON, at most ${route.bodyLimit} bytes; unknown fields are refused`,
        content: {
          "application/json": {
            schema: { type: "object", additionalProperties: false, properties: bodyProperties, required: bodyRequired },
          },
        },
      };
    }
    paths[route.meta.path] ??= {};
    (paths[route.meta.path] as Record<string, unknown>)[route.meta.method.toLowerCase()] = operation;
  }
  socketPath(paths);
  cached = {
    openapi: "3.1.0",
    info: {
      title: "Maity hub",
      version: "0.4.0",
      description:
        "The Maity routes of the hub (§9 Conversations), generated from the zod schemas of the tRPC procedures, and the agent API (/api/agent-api, protocol 1.23) from the same procedures' schemas.",
    },
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas: { Error: errorSchema, AgentError: agentErrorSchema },
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "a personal access token (mty_…) or an agent token (bay_…)",
        },
        session: { type: "apiKey", in: "cookie", name: "maity_session" },
        admin: { type: "http", scheme: "bearer", description: "the operator's MAITY_ADMIN_TOKEN" },
        agent: { type: "http", scheme: "bearer", description: "an agent token (bay_…)" },
      },
    },
  };
  return cached;
}
