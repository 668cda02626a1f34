import { agentOperations } from "@maity/domain";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { ACCESS, accessRefusal, accessTable } from "../src/access.ts";
import { restRoutes } from "../src/rest/index.ts";
import { appRouter } from "../src/routers/index.ts";

// The one table of which credentials each operation accepts (access.ts): complete, and what it answers.

const procedures = Object.keys(appRouter._def.procedures);
const human = { kind: "human", id: "hum-1", handle: "h" } as never;
const agent = { kind: "agent", id: "agt-1", handle: "a" } as never;

describe("the credential table (access.ts)", () => {
  it("names every procedure of the router, and nothing else", () => {
    expect(Object.keys(ACCESS).sort()).toEqual([...procedures].sort());
  });

  it("docs/api.md shows the table as it is (pnpm docs:access)", () => {
    const routes = new Map(restRoutes().map((r) => [r.name, `${r.meta.method} ${r.meta.path}`]));
    const doc = readFileSync(new URL("../../../docs/api.md", import.meta.url), "utf8");
    expect(doc).toContain(accessTable((name) => routes.get(name) ?? ""));
  });

  it("the agent API's entries agree with its operation table (what the SDK sends a token to)", () => {
    for (const [name, op] of Object.entries(agentOperations)) {
      expect(ACCESS[`agent.${name}`]?.who, name).toEqual(op.access === "public" ? "anyone" : ["agent_token"]);
    }
  });

  it("an agent token on a person's operation → forbidden humans_only; a person's on the agent API → 401 like none", () => {
    for (const name of ["messages.typing", "messages.markRead", "polls.create", "files.upload", "links.get"]) {
      const refused = accessRefusal(name, { caller: agent, session: null, admin: "unauthenticated" });
      expect(refused, name).toMatchObject({ code: "forbidden", details: { reason: "humans_only" } });
      expect(accessRefusal(name, { caller: human, session: null, admin: "unauthenticated" }), name).toBeNull();
      expect(accessRefusal(name, { caller: human, session: "s", admin: "unauthenticated" }), name).toBeNull();
    }
    const byPerson = accessRefusal("agent.send", { caller: human, session: null, admin: "unauthenticated" });
    expect(byPerson).toMatchObject({ code: "unauthenticated" });
    expect(accessRefusal("agent.send", { caller: agent, session: null, admin: "unauthenticated" })).toBeNull();
  });

  it("the operator's routes: hidden without MAITY_ADMIN_TOKEN, 401 without its bearer; an unlisted name is refused", () => {
    expect(accessRefusal("admin.mintToken", { caller: null, session: null, admin: "hidden" })).toMatchObject({
      code: "not_found",
    });
    expect(accessRefusal("admin.mintToken", { caller: human, session: null, admin: "unauthenticated" })).toMatchObject({
      code: "unauthenticated",
    });
    expect(accessRefusal("admin.mintToken", { caller: null, session: null, admin: "ok" })).toBeNull();
    expect(accessRefusal("no.such", { caller: human, session: null, admin: "ok" })).toMatchObject({
      code: "not_found",
    });
  });
});
