import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ApiServer, startApiServer } from "@maity/api/node";
import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, testHub } from "../../api/test/helpers.ts";
import { parseCommand, UsageError } from "../src/commands.ts";
import { hubCall, run, tempDir } from "./helpers.ts";

// The brief and the notes on the `maity` binary against a real hub on 127.0.0.1 (004 v1.15–v1.17):
// brief, notes, note, note create (with $EDITOR when no --body), note edit (from --base-version, or
// the version read before the editor opened: a change meanwhile is refused, never overwritten).

const hub = await testHub({ limits: { agent: 10_000 } });
let api: ApiServer;
const T: Record<string, string> = {};
const P = "/api/projects/maintainer/maity";

const http = (method: string, route: string, token: string, body?: unknown) =>
  hubCall(api.url, method, route, token, body);
const env = (extra: Record<string, string> = {}, dir = tempDir("notes")) => ({
  HOME: dir,
  MAITY_CONFIG_DIR: path.join(dir, "cfg"),
  MAITY_TOKEN: T["agt-a"] ?? "",
  MAITY_API_URL: api.url,
  ...extra,
});
/** An $EDITOR that writes `text` into the file it is given (as a person saving would). */
function editor(text: string): string {
  const dir = tempDir("editor");
  const file = path.join(dir, "edit.sh");
  writeFileSync(path.join(dir, "text"), text);
  writeFileSync(file, `#!/bin/sh\ncat "${path.join(dir, "text")}" > "$1"\n`);
  chmodSync(file, 0o755);
  return file;
}
let key = "";

beforeAll(async () => {
  await seedDemo(hub);
  api = await startApiServer(hub, { adminToken: ADMIN });
  for (const id of ["hum-maintainer", "agt-a"]) {
    const minted = await http("POST", "/api/admin/tokens", ADMIN, { member_id: id });
    T[id] = minted.body.token;
  }
  const rooms = await http("GET", "/api/agent-api/conversations", T["agt-a"] ?? "");
  key = (rooms.body.conversations as { id: string; title: string | null }[]).find(
    (r) => r.title === "Release 0.2 go/no-go",
  )?.id as string;
});
afterAll(async () => {
  await api?.close();
  await hub.close();
});

describe("maity brief, notes, note: parseCommand", () => {
  const parse = (...argv: string[]) => parseCommand(argv).command;
  it("parses each form and refuses what does not belong", () => {
    expect(parse("brief", "c1")).toEqual({ kind: "brief", conversationId: "c1" });
    expect(parse("notes", "c1")).toEqual({ kind: "notes", conversationId: "c1" });
    expect(parse("note", "note-1", "--conversation", "c1")).toEqual({
      kind: "note-show",
      noteId: "note-1",
      conversationId: "c1",
    });
    expect(parse("note", "create", "c1", "--title", "T", "--scope", "project")).toEqual({
      kind: "note-create",
      conversationId: "c1",
      title: "T",
      scope: "project",
    });
    expect(parse("note", "edit", "note-1", "--base-version", "3", "--body", "x")).toEqual({
      kind: "note-edit",
      noteId: "note-1",
      baseVersion: 3,
      body: "x",
    });
    expect(() => parse("note", "create", "c1")).toThrow(new UsageError("missing --title"));
    expect(() => parse("note", "create", "c1", "--title", "T", "--scope", "bay")).toThrow(UsageError);
    expect(() => parse("note", "edit", "note-1", "--base-version", "0")).toThrow(UsageError);
    expect(() => parse("note", "note-1", "--title", "x")).toThrow(new UsageError('--title is not an option of "note"'));
  });
});

describe("maity brief, notes, note against a hub", () => {
  it("B-271 brief prints the project's brief as people's room text, with its version", async () => {
    await http("PUT", `${P}/brief`, T["hum-maintainer"] ?? "", { brief: "Tag from main." });
    const brief = await run(["brief", key], env());
    expect(brief.code, brief.stderr).toBe(0);
    expect(brief.stdout).toBe("Maity, brief version 1 (room text written by the project's people):\nTag from main.\n");
    const asJson = JSON.parse((await run(["brief", key, "--json"], env())).stdout);
    expect(asJson).toMatchObject({ name: "Maity", version: 1, brief: "Tag from main." });
  });

  it("note create with $EDITOR, notes lists it, note shows it; note edit from the version read", async () => {
    const empty = await run(["notes", key], env());
    expect(empty.stderr).toContain("no notes here yet");
    const created = await run(
      ["note", "create", key, "--title", "Release steps", "--json"],
      env({ EDITOR: editor("1. tag\n2. push\n") }),
    );
    expect(created.code, created.stderr).toBe(0);
    const note = JSON.parse(created.stdout) as { id: string; version: number; body: string };
    expect(note).toMatchObject({ version: 1, body: "1. tag\n2. push\n" });
    const listed = await run(["notes", key], env());
    expect(listed.stdout).toBe(`${note.id}  shelf   chat     v1  Release steps\n`);
    const shown = await run(["note", note.id, "--conversation", key], env());
    expect(shown.stdout).toContain("Release steps");
    expect(shown.stdout).toContain("1. tag\n2. push");

    const edited = await run(
      ["note", "edit", note.id, "--conversation", key],
      env({ EDITOR: editor("1. tag\n2. push\n3. announce\n") }),
    );
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toBe(`updated ${note.id} "Release steps" to version 2\n`);

    // An edit from a version someone has moved past: refused with the current one, nothing written.
    const stale = await run(["note", "edit", note.id, "--base-version", "1", "--body", "mine"], env());
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("NOTE_VERSION_CONFLICT");
    expect((await http("GET", `/api/agent-api/notes/${note.id}`, T["agt-a"] ?? "")).body.body).toBe(
      "1. tag\n2. push\n3. announce\n",
    );
    // An editor that saves nothing writes nothing.
    const nothing = await run(["note", "create", key, "--title", "Empty"], env({ EDITOR: editor("  \n") }));
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain("nothing written");
  });
});
