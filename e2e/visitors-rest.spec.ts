import { expect, test } from "@playwright/test";
import { startApp } from "./clients";
import { ENGINES, engineEnv } from "./engines";
import { freePort } from "./helpers";

// Visiting agents on the server as README starts it (issue 29, DESIGN §4c, B-297…B-307), driven with
// plain HTTP as curl would: a newcomer signs up through an invite (a Bay of her own), makes an agent,
// pairs it, brings it into a chat of the maintainer's Bay with wake "sponsor" and no history, and
// sends it home. On PGlite and, with TEST_DATABASE_URL, on PostgreSQL.

const ADMIN = "visitors-e2e-admin";
const P = "/api/projects/maintainer/maity";

type Answer = { status: number; json: ReturnType<typeof JSON.parse>; cookie: string | null };
async function call(url: string, method: string, route: string, auth: string | null, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json", origin: url };
  if (auth?.startsWith("cookie:")) headers.cookie = auth.slice("cookie:".length);
  else if (auth) headers.authorization = `Bearer ${auth}`;
  const res = await fetch(`${url}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const cookie = res.headers.get("set-cookie")?.split(";")[0] ?? null;
  return { status: res.status, json: text ? JSON.parse(text) : null, cookie };
}

const engines = ENGINES;

for (const engine of engines) {
  test(`B-297…B-307 a newcomer's agent visits a chat of another Bay and is sent home, over HTTP (${engine})`, async () => {
    test.setTimeout(180_000);
    const server = await startApp(
      { MAITY_ADMIN_TOKEN: ADMIN, MAITY_SEED: "1", ...(await engineEnv(engine, "visitors")) },
      await freePort(),
    );
    const at = (method: string, route: string, auth: string | null, body?: unknown) =>
      call(server.url, method, route, auth, body);
    try {
      const maintainer = (await at("POST", "/api/admin/tokens", ADMIN, { member_id: "hum-maintainer" })).json.token;
      // An invite; Vera signs up with it (a Bay of her own) and is a member at once.
      const invite = await at("POST", `${P}/invites`, maintainer, { max_uses: 1 });
      expect(invite.status).toBe(201);
      const signup = await at("POST", "/api/auth/signup", null, {
        handle: "vera",
        name: "Vera",
        password: "vera-password-1",
        invite: invite.json.code,
      });
      expect(signup.status, JSON.stringify(signup.json)).toBe(201);
      const vera = `cookie:${signup.cookie}`;
      // Her agent, paired as `maity pair` does.
      const agent = await at("POST", "/api/agents", vera, { handle: "scout", description: "Scouts ahead." });
      expect(agent.status).toBe(201);
      const code = (await at("POST", `/api/agents/${agent.json.id}/pairing-codes`, vera)).json.code;
      const paired = await at("POST", "/api/agent-api/pair", null, { code });
      expect(paired.status).toBe(200);
      const scout = paired.json.token as string;

      // A chat of the maintainer's Bay with Vera; two things said before her agent comes.
      const chat = await at("POST", `${P}/conversations`, maintainer, { title: "Visit", participants: ["hum-vera"] });
      expect(chat.status).toBe(201);
      const say = (who: string, body: string) =>
        at("POST", `${P}/conversations/${chat.json.id}/messages`, who, { body });
      await say(maintainer, "before the visit: the plan");
      await say(maintainer, "before the visit: the budget");
      // B-300: before Vera brings it, her agent is unknown to the maintainer — like no agent at all.
      const unknown = await at("POST", `${P}/conversations/${chat.json.id}/participants`, maintainer, {
        member_id: agent.json.id,
      });
      const none = await at("POST", `${P}/conversations/${chat.json.id}/participants`, maintainer, {
        member_id: "agt-nobody",
      });
      expect(unknown.status).toBe(400);
      expect(unknown.json).toEqual(none.json);
      const placed = await at("POST", `${P}/conversations/${chat.json.id}/participants`, vera, {
        member_id: agent.json.id,
        wake: "sponsor",
      });
      expect(placed.status, JSON.stringify(placed.json)).toBe(200);
      expect(
        placed.json.participants.find((p: { member_id: string }) => p.member_id === agent.json.id).visiting,
      ).toEqual({
        home_bay: "vera",
        sponsor: { id: "hum-vera", name: "Vera" },
        history: "from_placement",
        wake: "sponsor",
      });
      // Placed once, it is listed with its sponsor; the maintainer still may not place it anywhere.
      const other = await at("POST", `${P}/conversations`, maintainer, { title: "Other", participants: ["hum-vera"] });
      const refused = await at("POST", `${P}/conversations/${other.json.id}/participants`, maintainer, {
        member_id: agent.json.id,
      });
      expect(refused.status).toBe(403);
      expect(refused.json.error.details.reason).toBe("not_sponsor");
      await say(maintainer, "@vera/scout what do you see?");
      await say(vera, "@scout please look");

      // B-301, B-303: its reads stop at the placement; ?since= holds only its sponsor's message.
      const rooms = await at("GET", "/api/agent-api/conversations", scout);
      const key = rooms.json.conversations.find((r: { maity: { id: string } }) => r.maity.id === chat.json.id).id;
      const history = await at("GET", `/api/agent-api/conversations/${key}/messages?limit=50`, scout);
      expect(history.json.messages.map((m: { content: string }) => m.content).sort()).toEqual(
        ["@scout please look", "@vera/scout what do you see?"].sort(),
      );
      const since = await at("GET", `/api/agent-api/conversations/${key}/messages?since=2000-01-01T00:00:00Z`, scout);
      expect(
        since.json.messages.map((m: { content: string; shouldRespond: boolean }) => [m.content, m.shouldRespond]),
      ).toEqual([["@scout please look", true]]);
      const envelope = await at("GET", `/api/agent-api/conversations/${key}/context`, scout);
      expect(envelope.json.participants.find((p: { id: string }) => p.id === agent.json.id).visiting).toEqual({
        homeBay: "vera",
        sponsor: { id: "hum-vera", name: "Vera" },
      });

      // B-307: sent home by Vera; the maintainer may not, and meets a missing visitor.
      const notHis = await at("POST", `${P}/visitors/${agent.json.id}/recall`, maintainer);
      expect(notHis.status).toBe(404);
      const home = await at("POST", `${P}/visitors/${agent.json.id}/recall`, vera);
      expect(home.json).toEqual({ rooms_left: [chat.json.id] });
      const lines = await at("GET", `${P}/conversations/${chat.json.id}/messages?after=0`, maintainer);
      expect(lines.json.items.at(-1)).toMatchObject({ from: "system", body: "vera/scout was sent home" });
      expect((await at("GET", `/api/agent-api/conversations/${key}/messages`, scout)).status).toBe(403);
    } finally {
      server.child.kill("SIGTERM");
    }
  });
}
