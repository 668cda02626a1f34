import { seedDemo } from "@maity/hub";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { startApiServer } from "../src/node.ts";
import { openApiDocument } from "../src/openapi.ts";
import { appRouter } from "../src/routers/index.ts";
import { testHub } from "./helpers.ts";

// Issue 13 (hardening), "a fuzz test drives every route with malformed input": every REST route of
// the OpenAPI document, every agent API route and every tRPC procedure, through the Node dispatch
// the app server runs, with malformed path segments, queries and bodies (NUL, unpaired surrogates,
// broken percent-encoding, wrong types, deep and huge values, non-JSON). Asserted for every answer:
// no 5xx; a 4xx carries a code (and `invalid` names its fields); after a 4xx nothing was written.
// Seeded and bounded: the same requests every run.

const SEED = 1_313;
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 6);

const hub = await testHub();
await seedDemo(hub);
const api = await startApiServer(hub);
afterAll(async () => {
  await api.close();
  await hub.close();
});
const human = (await hub.admin.mintToken({ member_id: "hum-maintainer" })).token;
const agentId = (await hub.db.agent.findFirstOrThrow({ where: { handle: "agent-a" }, select: { id: true } })).id;
const agent = (await hub.admin.mintToken({ member_id: agentId })).token;
const group = await hub.db.conversation.findFirstOrThrow({ where: { kind: "group" }, select: { publicId: true } });

/** Strings a careless parser trips on. */
const nasty = fc.oneof(
  fc.constantFrom(
    "a\u0000b",
    "a\ud800b",
    "\udc00",
    "%E0%A4%A",
    "%00",
    "%",
    "..",
    "../admin",
    "",
    " ",
    "\n",
    "x".repeat(5000),
  ),
  fc.constantFrom(
    "maintainer",
    "maity",
    agentId,
    group.publicId,
    "cnv-0001",
    "evt-1",
    "1",
    "-1",
    "9999999999999999999",
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ maxLength: 20 }).map((s) => `${s}\u0000`),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  leaf: fc.oneof(
    nasty,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(1e308, -0, 2 ** 53 + 1),
  ),
  node: fc.oneof(
    { depthSize: "small" },
    tie("leaf"),
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(nasty, tie("node"), { maxKeys: 4 }),
  ),
})).node;
/** A body: a JSON object with the route's own field names and a few others, or something that is not one. */
const bodyFor = (fields: string[]) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record(Object.fromEntries([...fields, "unexpected"].map((f) => [f, value])), { requiredKeys: [] })
        .map((b) => JSON.stringify(b)),
    },
    { weight: 1, arbitrary: value.map((v) => JSON.stringify(v) ?? "null") },
    {
      weight: 1,
      arbitrary: fc.constantFrom("{", "not json", '{"body": "a\\u0000b"}', '{"body": "\\ud800"}', "[]".repeat(3000)),
    },
  );
/** Percent-encoding that keeps an unpaired surrogate as its (invalid) WTF-8 bytes instead of throwing. */
const encode = (s: string): string =>
  s
    .replace(/[\ud800-\udfff]/g, (u) => {
      const c = u.charCodeAt(0);
      return `%ED%${(0xa0 | ((c >> 6) & 0x0f)).toString(16).toUpperCase()}%${(0x80 | (c & 0x3f)).toString(16).toUpperCase()}`;
    })
    .replace(/[^%]+/g, (rest) => encodeURIComponent(rest));
const segment = nasty.map((s) => (/%/.test(s) ? s : encode(s)));

type Target = { family: "rest" | "agent" | "trpc"; method: string; path: string; fields: string[]; query: string[] };
const targets: Target[] = [];
const doc = openApiDocument() as {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: string }[];
        requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
      }
    >
  >;
};
for (const [path, methods] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(methods)) {
    if (path.startsWith("/api/admin") || path.endsWith("/ws")) continue;
    const fields = Object.keys(op.requestBody?.content["application/json"]?.schema.properties ?? {});
    const query = (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
    targets.push({
      // Issue 16: the signed download answers in the agent protocol's style too (B-185).
      family: path.startsWith("/api/agent-api") || path.startsWith("/api/files/") ? "agent" : "rest",
      method: method.toUpperCase(),
      path,
      fields,
      query,
    });
  }
}
const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
for (const [name, procedure] of Object.entries(procedures)) {
  // agent.updates holds a well-formed call up to 25 s; its REST twin is fuzzed with wait=0 above.
  if (procedure._def.type === "subscription" || name === "agent.updates") continue;
  targets.push({
    family: "trpc",
    method: procedure._def.type === "query" ? "GET" : "POST",
    path: `/api/trpc/${name}`,
    fields: [],
    query: [],
  });
}

/** What a 4xx must not have written: the log's head and the rows of the tables callers change. */
async function written(): Promise<string> {
  const [row] = await hub.database.sql.query(
    `SELECT (SELECT coalesce(max(seq), 0) FROM events) AS head,
            (SELECT count(*) FROM conversations) AS conversations, (SELECT count(*) FROM participations) AS participations,
            (SELECT count(*) FROM memberships) AS memberships, (SELECT count(*) FROM webhooks) AS webhooks,
            (SELECT count(*) FROM access_tokens WHERE revoked_at IS NULL) AS tokens, (SELECT count(*) FROM humans) AS humans,
            (SELECT count(*) FROM agents) AS agents, (SELECT count(*) FROM idempotency_keys) AS keys`,
  );
  return JSON.stringify(row);
}

/** Whether a 4xx body names its cause: a code, and for `invalid` the fields. */
function namesCause(family: Target["family"], body: unknown): boolean {
  // biome-ignore lint/suspicious/noExplicitAny: walking three surfaces' error shapes
  const b = body as Record<string, any> | null;
  if (!b) return false;
  if (b.code === "HEADERS_TOO_LARGE") return true; // Node's parser, before any route (node.ts answerClientError)
  if (family === "agent")
    return typeof b.code === "string" && (b.code !== "INVALID_REQUEST" || Boolean(b.fields || b.error));
  if (family === "rest")
    return (
      typeof b.error?.code === "string" &&
      (b.error.code !== "invalid" || Object.keys(b.error.details?.fields ?? {}).length > 0)
    );
  const data = b.error?.data ?? b[0]?.error?.data;
  return typeof (data?.hubError?.code ?? data?.code) === "string";
}

describe("fuzzing every route (issue 13)", () => {
  it(`answers ${targets.length} routes' malformed requests without a 5xx, with a code, writing nothing`, async () => {
    const problems: string[] = [];
    for (const [i, target] of targets.entries()) {
      const request = fc.record({
        segments: fc.array(segment, { minLength: 8, maxLength: 8 }),
        query: fc.array(fc.tuple(fc.constantFrom(...target.query, "cursor", "limit", "input"), nasty), {
          maxLength: 3,
        }),
        body: bodyFor(target.fields),
        auth: fc.constantFrom("human", "agent", "none"),
      });
      for (const r of fc.sample(request, { seed: SEED + i, numRuns: RUNS_PER_ROUTE })) {
        let n = 0;
        let path = target.path.replace(/\{\w+\}/g, () => r.segments[n++] ?? "x");
        const params = r.query.map(([k, v]) => `${encode(k)}=${/%/.test(v) ? v : encode(v)}`);
        if (target.family === "trpc" && target.method === "GET") params.push(`input=${encode(r.body)}`);
        // A well-formed /updates holds up to 25 s (a later `wait` wins): this test is about refusals.
        if (target.path.endsWith("/updates")) params.push("wait=0");
        if (params.length) path += `?${params.join("&")}`;
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (r.auth !== "none") headers.authorization = `Bearer ${r.auth === "human" ? human : agent}`;
        const before = await written();
        const res = await fetch(`${api.url}${path}`, {
          method: target.method,
          headers,
          ...(target.method === "GET" || target.method === "HEAD" ? {} : { body: r.body }),
          signal: AbortSignal.timeout(10_000),
        }).catch((error: unknown) => ({ status: 0, text: async () => String(error) }));
        const text = await res.text();
        const what = `${target.method} ${path.slice(0, 160)} (${r.auth}) → ${res.status} ${text.slice(0, 160)}`;
        if (res.status === 0 || res.status >= 500) problems.push(`5xx: ${what}`);
        else if (res.status >= 400) {
          let body: unknown = null;
          try {
            body = JSON.parse(text);
          } catch {}
          if (!namesCause(target.family, body)) problems.push(`4xx without a code: ${what}`);
          if ((await written()) !== before) problems.push(`4xx that wrote: ${what}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
