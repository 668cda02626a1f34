import { copyFileSync, mkdirSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { admin, as, login } from "./helpers";

// The brief and the notes in the dashboard, on the shipped server (004 v1.15–v1.17, DESIGN §4b): a
// person writes the project's brief and a pinned chat note; an agent edits that note through MCP (a
// stock MCP client on /api/mcp); the person sees the agent's quiet line in the chat and the new text
// in the panel, live; then edits while the agent edits again, meets the conflict — both texts shown
// — and keeps theirs on purpose. Runs at 1440×900 (light) and 390×844 (dark): the screenshots go to
// e2e/artifacts/screens/ and docs/screens/. axe finds no serious violation with the panel open.

const M = "/api/projects/maintainer/maity";

type Tool = { json: Record<string, unknown>; text: string; isError: boolean };

async function agentTools(baseURL: string, token: string) {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const client = new Client({ name: "e2e-notes", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseURL}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Tool> => {
    const result = (await client.callTool({ name, arguments: args })) as {
      content: { type: string; text: string }[];
      structuredContent?: Record<string, unknown>;
      isError?: boolean;
    };
    return {
      json: result.structuredContent ?? {},
      text: result.content.map((c) => c.text).join("\n"),
      isError: Boolean(result.isError),
    };
  };
  return { call, close: () => client.close() };
}

async function shot(page: Page, name: string) {
  const wide = (page.viewportSize()?.width ?? 0) >= 1024;
  const file = `${wide ? "desktop-light" : "phone-dark"}-${name}`;
  await page.screenshot({ path: `e2e/artifacts/screens/${file}.png` });
  mkdirSync("docs/screens", { recursive: true });
  copyFileSync(`e2e/artifacts/screens/${file}.png`, `docs/screens/${file}.png`);
}

test("a person writes the brief and a pinned note; an agent edits it through MCP; the person sees it live and resolves a conflict", async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const wide = (page.viewportSize()?.width ?? 0) >= 1024;
  // The id the hub gives (a handle another spec used makes it agt-<owner>-<handle>).
  const scribe = (await admin(request, "POST", "/agents", {
    owner: "maintainer",
    handle: "notekeeper",
    description: "Keeps the notes.",
  })) as { id: string };
  await admin(request, "POST", "/projects/maintainer/maity/members", { member_id: scribe.id });
  const { token: person } = await admin(request, "POST", "/tokens", { member_id: "hum-maintainer" });
  const { token: agent } = await admin(request, "POST", "/tokens", { member_id: scribe.id });
  const made = await as(request, person, "POST", `${M}/conversations`, {
    title: "Release notes desk",
    participants: [scribe.id, "hum-guest"],
  });
  expect(made.status).toBe(201);
  await as(request, person, "POST", `${M}/conversations/${made.body.id}/messages`, {
    body: "@notekeeper keep the release checklist current, please.",
  });

  await login(page, "maintainer", "maintainer-demo");
  await page.goto(`/p/maintainer/maity/c/${made.body.id}`);
  await expect(page.getByRole("heading", { name: "Release notes desk" })).toBeVisible();
  const openNotes = page.getByRole("button", { name: "Notes", exact: true });
  await openNotes.click();
  const panel = page.getByRole("complementary", { name: "Notes" });
  await expect(panel).toBeVisible();

  // The brief: written with a preview, then shown with its version and author.
  await panel.getByRole("tab", { name: /Project/ }).click();
  await panel.getByRole("button", { name: /^(Write|Edit)$/ }).click();
  const brief =
    "## Release rules\n\n- Tag from **main** only\n- Every agent reads the [changelog](https://example.com/changelog)";
  await panel.getByRole("textbox", { name: "Brief" }).fill(brief);
  await panel.getByRole("radio", { name: "Preview" }).click();
  await expect(panel.getByRole("region", { name: "Brief preview" }).getByText("Tag from")).toBeVisible();
  await panel.getByRole("button", { name: "Save brief" }).click();
  await expect(panel.getByRole("heading", { name: "Release rules" })).toBeVisible();
  await expect(panel.getByText(/version \d+ · Maintainer/)).toBeVisible();

  // A pinned note of this chat, written in the panel.
  await panel.getByRole("tab", { name: /This chat/ }).click();
  await panel.getByRole("button", { name: "New note" }).click();
  await panel.getByRole("textbox", { name: "Title" }).fill("Release checklist");
  await panel.getByRole("textbox", { name: "Text" }).fill("1. Tag\n2. Push");
  await panel.getByRole("checkbox", { name: /Pin it/ }).click();
  await panel.getByRole("button", { name: "Save note" }).click();
  const note = panel.getByRole("button", { name: "Release checklist" });
  await expect(note).toBeVisible();
  await note.click();
  await expect(panel.getByText("Tag", { exact: true })).toBeVisible();

  // The agent edits it through MCP, from the version it read.
  const mcp = await agentTools(baseURL as string, agent);
  const rooms = (await mcp.call("list_conversations")).json.conversations as { id: string; title: string }[];
  const room = rooms.find((r) => r.title === "Release notes desk")?.id as string;
  const listed = (await mcp.call("list_notes", { conversationId: room })).json.notes as {
    id: string;
    version: number;
    title: string;
  }[];
  const target = listed.find((n) => n.title === "Release checklist");
  if (!target) throw new Error("the agent does not see the note");
  const edited = await mcp.call("update_note", {
    noteId: target.id,
    baseVersion: target.version,
    body: "1. Tag\n2. Push\n3. Announce in #releases",
    conversationId: room,
  });
  expect(edited.isError, edited.text).toBe(false);

  // Live: the new text in the open note, and (the chat beside it on a wide screen) the quiet line.
  await expect(panel.getByText("Announce in #releases")).toBeVisible();
  if (!wide) await panel.getByRole("button", { name: "Close the notes" }).click();
  const quiet = page.locator('li[data-quiet="note.edited"]');
  await expect(quiet).toContainText("notekeeper edited Release checklist");
  if (wide) await shot(page, "notes-live");
  if (!wide) {
    await shot(page, "notes-quiet-line");
    await openNotes.click();
    await page.getByRole("button", { name: "Release checklist" }).click();
  }

  // A conflict: the person edits version 2 while the agent saves version 3.
  await panel.getByRole("button", { name: "Edit", exact: true }).click();
  await panel.getByRole("textbox", { name: "Text" }).fill("1. Tag\n2. Push\n3. Announce\n4. Close the milestone");
  const second = await mcp.call("update_note", {
    noteId: target.id,
    baseVersion: target.version + 1,
    body: "1. Tag\n2. Push\n3. Announce in #releases and on the blog",
    conversationId: room,
  });
  expect(second.isError, second.text).toBe(false);
  await panel.getByRole("button", { name: "Save", exact: true }).click();
  const conflict = panel.getByRole("alert");
  await expect(conflict).toContainText(`saved version ${target.version + 2} while you were editing`);
  await expect(conflict.getByText("and on the blog")).toBeVisible();
  await expect(conflict.getByText("Close the milestone")).toBeVisible();
  await shot(page, "notes-conflict");

  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21aa", "best-practice"]).analyze();
  const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);

  // The person's choice: their own text over the agent's, as the next version — never a silent overwrite.
  await conflict.getByRole("button", { name: `Save mine as version ${target.version + 3}` }).click();
  await expect(panel.getByText("Close the milestone")).toBeVisible();
  await expect(panel.getByText(`v${target.version + 3}`)).toBeVisible();
  const stored = await as(request, person, "GET", `${M}/notes/${target.id}`);
  expect(stored.body).toMatchObject({ version: target.version + 3, updated_by: "hum-maintainer" });
  expect(stored.body.body).toContain("4. Close the milestone");
  await mcp.close();
});

test("B-279 an agent's usage report shows as its memory ring in the chat's header, and a new one moves it live", async ({
  page,
  request,
}) => {
  const agent = (await admin(request, "POST", "/agents", {
    owner: "maintainer",
    handle: "ringbearer",
    description: "Reports its memory.",
  })) as { id: string };
  await admin(request, "POST", "/projects/maintainer/maity/members", { member_id: agent.id });
  const { token: person } = await admin(request, "POST", "/tokens", { member_id: "hum-maintainer" });
  const { token } = await admin(request, "POST", "/tokens", { member_id: agent.id });
  const made = await as(request, person, "POST", `${M}/conversations`, {
    title: "Memory desk",
    participants: [agent.id, "hum-guest"],
  });
  const reported = await as(request, token, "POST", "/api/agent-api/context", {
    event: "usage",
    runtime: "claude-code",
    source: "exact",
    used: 730_000,
    size: 1_000_000,
    autoCompactAt: 967_000,
  });
  expect(reported.status).toBe(200);
  await login(page, "maintainer", "maintainer-demo");
  await page.goto(`/p/maintainer/maity/c/${made.body.id}`);
  const ring = page.getByRole("list", { name: "Participants" }).getByTitle(/Memory 73% full, counted by claude-code/);
  await expect(ring).toBeVisible();
  await expect(ring).toContainText("73%");
  // Live: another report moves the ring without a reload (the live feed's agent_context item).
  await as(request, token, "POST", "/api/agent-api/context", {
    event: "usage",
    runtime: "claude-code",
    source: "exact",
    used: 880_000,
    size: 1_000_000,
  });
  // The tooltip says how far it is from compacting by itself, and its tidies (DESIGN §4b).
  const moved = page
    .getByRole("list", { name: "Participants" })
    .getByTitle(/Memory 88% full, .*compacts by itself at 96% \(8 points to go\); no tidy this session/);
  await expect(moved).toContainText("88%");
  await shot(page, "memory-ring");
});
