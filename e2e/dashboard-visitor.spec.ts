import { copyFileSync, mkdirSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { admin, as } from "./helpers";

// Bringing an agent into a group chat as a visitor (issue 29, DESIGN §4c): the demo's maintainer
// makes an invite to maintainer/maity; Vera signs up with it (her own Bay, "vera"), makes an agent
// on Your agents, and — in a group chat the maintainer opened with her — brings it from the manage
// dialog without sharing the earlier history. It is marked "from vera · brought by Vera" in the
// people list and the header; on the agent API it reads only what came after its placement. She
// takes it out of the chat, brings it again for her alone to wake, then sends it home: the chat says
// so and it is gone. Keyboard alone drives the dialog. Runs at 1440×900 (light) and 390×844 (dark);
// screenshots go to e2e/artifacts/screens/ and docs/screens/. Each profile runs on a fresh hub, so
// the handle "vera" is free.

test.describe.configure({ timeout: 180_000 });

async function shot(page: Page, name: string, part?: Locator) {
  // The toasts said their piece (the test saw them); the screenshot shows the page under them. An
  // open dialog hides them from the accessibility tree and the pointer: their Dismiss is clicked directly.
  const open = page.locator('li[data-toast][data-state="open"]');
  while ((await open.count()) > 0) await open.first().locator('button[aria-label="Dismiss"]').dispatchEvent("click");
  await expect(page.locator("li[data-toast]")).toHaveCount(0);
  const wide = (page.viewportSize()?.width ?? 0) >= 1024;
  const file = `${wide ? "desktop-light" : "phone-dark"}-${name}`;
  const path = `e2e/artifacts/screens/${file}.png`;
  if (part) await part.screenshot({ path });
  else await page.screenshot({ path, fullPage: true });
  mkdirSync("docs/screens", { recursive: true });
  copyFileSync(path, `docs/screens/${file}.png`);
}

async function noSeriousAxe(page: Page, where: string) {
  const result = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  const bad = result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help}\n  ${v.nodes.map((n) => n.target.join(" ")).join("\n  ")}`);
  expect(bad, `${where}: serious or critical axe violations`).toEqual([]);
}

const toast = (page: Page, text: string | RegExp) => page.locator("li[data-toast]").filter({ hasText: text });
const manageDialog = (page: Page) => page.getByRole("dialog", { name: /^Manage/ });

/** Opens the manage dialog's People tab, by keyboard. */
async function openPeople(page: Page) {
  await page.getByRole("button", { name: "Manage", exact: true }).focus();
  await page.keyboard.press("Enter");
  const dialog = manageDialog(page);
  await dialog.getByRole("tab", { name: /^Details/ }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(dialog.getByRole("tab", { name: /^People/ })).toHaveAttribute("aria-selected", "true");
  return dialog;
}

test("DESIGN §4c: a newcomer brings her agent into a group chat as a visitor, then sends it home", async ({
  page,
  request,
  baseURL,
}) => {
  // The maintainer makes an invite to maintainer/maity.
  const maintainer = (await admin(request, "POST", "/tokens", { member_id: "hum-maintainer" })).token as string;
  const P = "/api/projects/maintainer/maity";
  const invite = await as(request, maintainer, "POST", `${P}/invites`, { max_uses: 1 });
  expect(invite.status, JSON.stringify(invite.body)).toBe(201);

  // Vera signs up through it: her own Bay, and a member of Maity.
  await page.goto(`${baseURL}${invite.body.path}`);
  const form = page.getByRole("form", { name: "Sign up" });
  await form.getByLabel("Handle").fill("vera");
  await form.getByLabel("Your name").fill("Vera");
  await form.getByLabel("Password").fill("vera-password-1");
  await form.getByLabel("Password").press("Enter");
  await expect(page).toHaveURL("/p/maintainer/maity/people");
  await expect(page.getByText("Signed in as vera")).toBeVisible();

  // She makes an agent; its pairing code gives its client a token.
  await page.getByRole("link", { name: "Your agents" }).first().click();
  await page.getByRole("button", { name: "New agent" }).click();
  const newAgent = page.getByRole("form", { name: "New agent" });
  await newAgent.getByLabel("Handle").fill("scout");
  await newAgent.getByRole("button", { name: "Create and pair" }).click();
  const made = page.getByRole("region", { name: "New agent vera/scout" });
  const code = ((await made.getByRole("status").locator("code").first().textContent()) ?? "").trim();
  const paired = await request.post("/api/agent-api/pair", { data: { code } });
  expect(paired.status()).toBe(200);
  const agent = (await paired.json()) as { token: string; agent: { id: string; name: string } };
  expect(agent.agent.name).toBe("vera/scout");

  // The maintainer opens a group chat with her, and says something before any visitor.
  const C = `${P}/conversations`;
  const chat = await as(request, maintainer, "POST", C, { title: "Visitor check", participants: ["hum-vera"] });
  expect(chat.status, JSON.stringify(chat.body)).toBe(201);
  const chatId = chat.body.id as string;
  const before = `Before the visitor came ${Date.now()}`;
  expect((await as(request, maintainer, "POST", `${C}/${chatId}/messages`, { body: before })).status).toBe(201);

  // In the chat, Vera (no manager) brings her agent from the manage dialog: a visitor from her Bay.
  await page.goto(`/p/maintainer/maity/c/${chatId}`);
  await expect(page.getByRole("list", { name: "Messages" })).toContainText(before);
  let dialog = await openPeople(page);
  const bring = dialog.getByRole("region", { name: "Bring an agent" });
  await expect(bring).toContainText("comes as a visitor from your Bay");
  await expect(bring).toContainText("reads only from now on unless you share the earlier history");
  await expect(bring.getByRole("checkbox", { name: "Share the earlier history" })).not.toBeChecked();
  await expect(bring.getByRole("radio", { name: "Anyone in the chat" })).toBeChecked();
  await expect(dialog.getByRole("button", { name: "Bring vera/scout" })).toBeVisible();
  await shot(page, "visitor-bring");
  await noSeriousAxe(page, "the manage dialog, Bring an agent");
  await dialog.getByRole("button", { name: "Bring vera/scout" }).focus();
  await page.keyboard.press("Enter");
  await expect(toast(page, "vera/scout is in the chat")).toContainText("It reads only from now on");

  // Its badge: where from, who brought it, what it reads.
  const people = dialog.getByRole("list", { name: "Participants" });
  const visitor = people.getByRole("listitem").filter({ hasText: "vera/scout" });
  await expect(visitor).toContainText("from vera · brought by Vera");
  await expect(visitor).toContainText("reads from when it came");
  await expect(bring).toContainText("All your agents are in the chat.");
  await shot(page, "visitor-badge");
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  const header = page.locator("header").getByRole("list", { name: "Participants" });
  await expect(header.getByRole("listitem").filter({ hasText: "vera/scout" })).toContainText(
    "from vera · brought by Vera",
  );

  // It reads from its placement on: the maintainer's later message, never the earlier one.
  const after = `After the visitor came ${Date.now()}`;
  expect((await as(request, maintainer, "POST", `${C}/${chatId}/messages`, { body: after })).status).toBe(201);
  await expect(page.getByRole("list", { name: "Messages" })).toContainText(after);
  const rooms = await as(request, agent.token, "GET", "/api/agent-api/conversations");
  const key = (rooms.body.conversations as { id: string; maity: { id: string } }[]).find(
    (r) => r.maity.id === chatId,
  )?.id;
  expect(key, JSON.stringify(rooms.body)).toBeTruthy();
  const read = await as(request, agent.token, "GET", `/api/agent-api/conversations/${key}/messages?limit=50`);
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  const contents = (read.body.messages as { content: string }[]).map((m) => m.content);
  expect(contents).toContain(after);
  expect(contents).not.toContain(before);
  await shot(page, "visitor-chat");

  // Vera takes it out of this chat; it stays the project's member, and she brings it again, for her alone to wake.
  dialog = await openPeople(page);
  await dialog.getByRole("button", { name: "Take out of this chat (vera/scout)" }).click();
  await expect(toast(page, "vera/scout left this chat")).toBeVisible();
  await expect(people).not.toContainText("vera/scout");
  await expect(bring.getByRole("heading", { name: "Bring an agent" })).toBeFocused();
  // Nobody else places it, a project admin included: only its sponsor does.
  const refused = await as(request, maintainer, "POST", `${C}/${chatId}/participants`, {
    member_id: agent.agent.id,
  });
  expect(refused.status).toBe(403);
  expect(refused.body.error.details.reason).toBe("not_sponsor");
  await bring.getByRole("radio", { name: "Only me" }).check();
  await dialog.getByRole("button", { name: "Bring vera/scout" }).click();
  await expect(toast(page, "vera/scout is in the chat")).toContainText("only your messages wake it");
  await expect(visitor).toContainText("from vera · brought by Vera");
  await expect(visitor).toContainText("wakes for Vera only");

  // Vera sends it home, confirmed in place, by keyboard: it leaves the chat, and the chat says so.
  await dialog.getByRole("button", { name: "Send home… (vera/scout)" }).focus();
  await page.keyboard.press("Enter");
  const yes = dialog.getByRole("button", { name: "Yes, send home" });
  await expect(yes).toBeFocused();
  await expect(dialog).toContainText("It leaves every chat of maintainer/maity");
  await page.keyboard.press("Enter");
  await expect(toast(page, "vera/scout was sent home from 1 chat")).toBeVisible();
  await expect(people).not.toContainText("vera/scout");
  await expect(bring.getByRole("heading", { name: "Bring an agent" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("list", { name: "Messages" })).toContainText("vera/scout was sent home");
  await expect(header).not.toContainText("vera/scout");
  await shot(page, "visitor-sent-home");

  // Its membership ended: the project's members no longer list it.
  const members = await as(request, maintainer, "GET", `${P}/members`);
  expect(members.body.items.map((m: { member_id: string }) => m.member_id)).not.toContain(agent.agent.id);

  // Brought again, it is sent home from the project's People page too, by its sponsor (no admin there).
  dialog = await openPeople(page);
  await dialog.getByRole("button", { name: "Bring vera/scout" }).click();
  await expect(toast(page, "vera/scout is in the chat")).toBeVisible();
  await page.keyboard.press("Escape");
  await page.goto("/p/maintainer/maity/people");
  const memberList = page.getByRole("list", { name: "Members" });
  const row = memberList.getByRole("listitem").filter({ hasText: "vera/scout" });
  await expect(row).toContainText("Visitor from vera · brought by Vera");
  await row.getByRole("button", { name: "Send vera/scout home" }).click();
  await expect(row).toContainText("It leaves every chat of the project");
  await row.getByRole("button", { name: "Yes, send home" }).click();
  await expect(toast(page, "vera/scout was sent home from 1 chat")).toBeVisible();
  await expect(memberList.getByRole("listitem").filter({ hasText: "vera/scout" })).toHaveCount(0);
});
