import { freshDatabase } from "@maity/db/testing";
import { createHub, type Hub, type HubOptions } from "@maity/hub";
import { handleTrpc } from "../src/fetch.ts";
import { handleRest } from "../src/rest/index.ts";

export const ADMIN = "test-admin-token";
export const BASE = "http://127.0.0.1:3000";

export async function testHub(options: HubOptions = {}): Promise<Hub> {
  return createHub(await freshDatabase(), options);
}

export function restClient(hub: Hub, adminToken: string | undefined = ADMIN) {
  return async (
    method: string,
    path: string,
    options: { body?: unknown; token?: string | null; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const req = new Request(`${BASE}${path}`, {
      method,
      headers,
      body:
        options.body === undefined
          ? undefined
          : typeof options.body === "string"
            ? options.body
            : JSON.stringify(options.body),
    });
    const res = await handleRest(hub, req, { adminToken });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

/** tRPC over fetch, as the dashboard calls it; keeps the session cookie and sends Origin on POST like a browser. */
export function trpcBrowser(hub: Hub) {
  let cookie: string | null = null;
  const call = async (kind: "query" | "mutation", name: string, input: unknown) => {
    const headers: Record<string, string> = {};
    if (cookie) headers.cookie = cookie;
    const url = `${BASE}/api/trpc/${name}`;
    const req =
      kind === "query"
        ? new Request(`${url}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers })
        : new Request(url, {
            method: "POST",
            headers: { ...headers, "content-type": "application/json", origin: BASE },
            body: JSON.stringify(input),
          });
    const res = await handleTrpc(hub, req);
    const setCookie = res.headers.get("set-cookie");
    if (setCookie) {
      const pair = setCookie.split(";")[0] ?? "";
      cookie = pair.endsWith("=") ? null : pair;
    }
    return {
      status: res.status,
      body: (await res.json()) as {
        result?: { data: unknown };
        error?: { data: { hubError: { code: string; details: Record<string, unknown> } | null } };
      },
      setCookie,
    };
  };
  return {
    query: (name: string, input?: unknown) => call("query", name, input),
    mutation: (name: string, input?: unknown) => call("mutation", name, input),
    cookie: () => cookie,
  };
}

type Rest = (
  method: string,
  path: string,
  options: { token?: string; body?: unknown },
) => Promise<{ status: number; body: ReturnType<typeof JSON.parse> }>;
/** The demo's visitor (seedDemo): guest's agent-x in maintainer/maity, brought by guest. */
export const DEMO_SPONSORS: Readonly<Record<string, string>> = { "agt-x": "hum-guest" };

/**
 * POST {project}/conversations as `creator`, its visitors placed by their sponsors (B-300: only the
 * person who brings a visitor places it, into a room that person is in): the chat is made without
 * them, each sponsor not asked for joins for the moment, places its agent and leaves again (an
 * observer then, as before). Answers the create's response; the view is the one after.
 */
export async function createWithVisitors(
  rest: Rest,
  project: string,
  tok: (id: string) => string,
  creator: string,
  body: { title?: string | null; participants: string[] } & Record<string, unknown>,
  sponsors: Readonly<Record<string, string>> = DEMO_SPONSORS,
) {
  const sponsorOf = (id: string) => sponsors[id];
  const visitors = body.participants.filter((id) => sponsorOf(id) !== undefined && sponsorOf(id) !== creator);
  const others = body.participants.filter((id) => !visitors.includes(id));
  const helpers = [...new Set(visitors.map((id) => sponsorOf(id) as string))].filter(
    (s) => s !== creator && !others.includes(s),
  );
  const created = await rest("POST", `${project}/conversations`, {
    token: tok(creator),
    body: { ...body, participants: [...others, ...helpers] },
  });
  if (created.status !== 201 || visitors.length === 0) return created;
  const chat = `${project}/conversations/${created.body.id}`;
  for (const id of visitors) {
    const placed = await rest("POST", `${chat}/participants`, {
      token: tok(sponsorOf(id) as string),
      body: { member_id: id },
    });
    if (placed.status !== 200) throw new Error(`placing ${id}: ${JSON.stringify(placed.body)}`);
  }
  for (const sponsor of helpers) await rest("DELETE", `${chat}/participants/${sponsor}`, { token: tok(sponsor) });
  const view = await rest("GET", chat, { token: tok(creator) });
  return { status: created.status, body: view.body };
}

/**
 * `maity login` over REST (DESIGN §4e): a device login opened, approved by the person (their token)
 * for every Bay offered, and collected; the `bay_u_` credential of Bay `bay`.
 */
export async function deviceLogin(rest: ReturnType<typeof restClient>, personToken: string | null, bay: string) {
  const opened = (await rest("POST", "/api/device-api/login", { body: {} })).body;
  const view = await rest("GET", `/api/device/${opened.code}`, { token: personToken });
  await rest("POST", `/api/device/${opened.code}/approve`, {
    token: personToken,
    body: { bays: view.body.bays.map((b: { id: string }) => b.id) },
  });
  const polled = await rest("POST", `/api/device-api/login/${opened.id}/poll`, { body: { secret: opened.secret } });
  return polled.body.credentials.find((c: { bay: { name: string } }) => c.bay.name === bay).token as string;
}
