import { REQUEST_BODY_MAX_BYTES } from "@maity/domain";
import { z } from "zod";
import { appRouter } from "./routers/index.ts";
import { restRoutes } from "./rest/index.ts";

// The OpenAPI 3.1 document of the REST routes, generated from the procedures' own zod schemas
// (one schema: validation, types and this document). Served at GET /api/openapi.json.

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; [key: string]: unknown };
type ProcedureDef = { _def: { inputs: z.ZodType[]; output?: z.ZodType } };

const toJson = (schema: z.ZodType, io: "input" | "output"): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
};
const unwrap = (schema: z.ZodType): z.ZodType => (schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema);

const errorSchema: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "details"],
      properties: {
        code: { type: "string", enum: ["invalid", "unauthenticated", "forbidden", "not_found", "conflict", "conversation_closed", "conversation_quota", "project_closed", "rate_limited"] },
        message: { type: "string" },
        details: {
          type: "object",
          description: "invalid: fields.<name> names each refused field; forbidden: reason",
          properties: { fields: { type: "object", additionalProperties: { type: "string" } }, reason: { type: "string" } },
        },
      },
    },
  },
};

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
    const inQuery = route.meta.method === "GET" || route.meta.method === "DELETE";
    for (const [name, schema] of Object.entries(properties)) {
      if (route.keys.includes(name)) parameters.push({ name, in: "path", required: true, schema });
      else if (headerFields.has(name)) parameters.push({ name: headerFields.get(name), in: "header", required: false, schema });
      else if (inQuery) parameters.push({ name, in: "query", required: required.has(name), schema });
      else bodyProperties[name] = schema;
    }
    const bodyRequired = Object.keys(bodyProperties).filter((k) => required.has(k));
    const status = route.meta.status ?? 200;
    const outputSchema = route.meta.responseSchema ?? def.output;
    const success =
      status === 204
        ? { description: "No content" }
        : { description: "OK", content: { "application/json": { schema: outputSchema ? toJson(outputSchema, "output") : {} } } };
    const responses: Record<string, unknown> = { [String(status)]: success };
    if (route.meta.respond && route.meta.responseSchema) responses["200"] = { description: "A replay of an earlier request", content: { "application/json": { schema: toJson(route.meta.responseSchema, "output") } } };
    for (const [code, description] of [
      ["400", "invalid: the refused fields are named in details.fields"],
      ["401", "unauthenticated"],
      ["403", "forbidden: details.reason says why"],
      ["404", "not_found: what the caller may not see answers like what does not exist"],
      ["409", "conversation_closed, conversation_quota, project_closed or conflict"],
      ["429", "rate_limited"],
    ] as const)
      responses[code] = { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
    const operation: Record<string, unknown> = {
      operationId: route.name,
      summary: route.meta.summary,
      tags: [route.name.split(".")[0]],
      parameters,
      responses,
      security: route.meta.path.startsWith("/api/admin/") ? [{ admin: [] }] : route.name === "health" ? [] : [{ bearer: [] }, { session: [] }],
    };
    if (!inQuery) {
      operation.requestBody = {
        required: bodyRequired.length > 0,
        description: `JSON, at most ${REQUEST_BODY_MAX_BYTES} bytes; unknown fields are refused`,
        content: { "application/json": { schema: { type: "object", additionalProperties: false, properties: bodyProperties, required: bodyRequired } } },
      };
    }
    paths[route.meta.path] ??= {};
    (paths[route.meta.path] as Record<string, unknown>)[route.meta.method.toLowerCase()] = operation;
  }
  cached = {
    openapi: "3.1.0",
    info: { title: "Maity hub", version: "0.3.0", description: "The Maity routes of the hub (§9 Conversations). Generated from the zod schemas of the tRPC procedures." },
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "a personal access token (mty_…) or an agent token (bay_…)" },
        session: { type: "apiKey", in: "cookie", name: "maity_session" },
        admin: { type: "http", scheme: "bearer", description: "the operator's MAITY_ADMIN_TOKEN" },
      },
    },
  };
  return cached;
}
