import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, restClient, testHub } from "./helpers.ts";

// B-244 under concurrency: a person (Maity's PATCH) and an agent (the agent API's) edit one note from
// the same version at once, again and again. Every race has exactly one winner — the next version —
// and one NOTE_VERSION_CONFLICT naming it; no update is lost (the text is always the winner's). On
// PostgreSQL the two run on two connections (1,000 races); PGlite has one, so fewer.

const postgres = Boolean(process.env.TEST_DATABASE_URL);
const RACES = postgres ? 1000 : 100;
const hub = await testHub({ limits: { agent: 1_000_000, noteEdits: 1_000_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
const tokens: Record<string, string> = {};

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["hum-maintainer", "agt-a"]) {
    const minted = await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } });
    tokens[id] = minted.body.token;
  }
});

describe(`B-244 ${RACES} two-writer edit races of one note`, () => {
  it("exactly one NOTE_VERSION_CONFLICT per race, the winner's text kept, 0 lost updates", async () => {
    const made = await rest("POST", `${P}/notes`, {
      token: tokens["hum-maintainer"] as string,
      body: { title: "Contended", body: "v1", pinned: true },
    });
    const id = made.body.id as string;
    let version = 1;
    let personWon = 0;
    for (let race = 0; race < RACES; race++) {
      const [person, agent] = await Promise.all([
        rest("PATCH", `${P}/notes/${id}`, {
          token: tokens["hum-maintainer"] as string,
          body: { base_version: version, body: `person ${race}` },
        }),
        rest("PATCH", `/api/agent-api/notes/${id}`, {
          token: tokens["agt-a"] as string,
          body: { baseVersion: version, body: `agent ${race}` },
        }),
      ]);
      const won = [person, agent].filter((r) => r.status === 200);
      const lost = [person, agent].filter((r) => r.status === 409);
      expect(won, `race ${race}`).toHaveLength(1);
      expect(lost, `race ${race}`).toHaveLength(1);
      version += 1;
      expect(won[0]?.body.version).toBe(version);
      const conflict = person.status === 409 ? person.body.error.details.version : agent.body.version;
      expect(conflict).toBe(version);
      if (person.status === 200) personWon += 1;
      const now = await rest("GET", `${P}/notes/${id}`, { token: tokens["hum-maintainer"] as string });
      expect(now.body).toMatchObject({ version, body: person.status === 200 ? `person ${race}` : `agent ${race}` });
    }
    expect(version).toBe(RACES + 1);
    console.log(`notes race (${postgres ? "PostgreSQL" : "PGlite"}): ${RACES} races, the person won ${personWon}`);
  });
});
