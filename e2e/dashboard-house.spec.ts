import { copyFileSync, mkdirSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { as, login, person } from "./helpers";

// People run their own house in the dashboard (issue 29, DESIGN §4c): a person creates a project
// from the list (its slug suggested from the name, a taken slug refused at the field), opens its
// People page, adds the demo's guest by handle, removes them again (the last admin stays, in
// words), shares the project with visitors and renames it; a member who is no admin reads only;
// a person creates an agent and sees its pairing code and the `maity pair` command, copies it, and
// the code pairs. Runs at 1440×900 (light) and 390×844 (dark); screenshots go to
// e2e/artifacts/screens/ and docs/screens/. The e2e hub's data persists across specs: every run
// makes its own people, projects and agents.

test.describe.configure({ timeout: 120_000 });

async function shot(page: Page, name: string) {
  // The toasts said their piece (the test saw them); the screenshot shows the page under them.
  const open = page.locator('li[data-toast][data-state="open"]');
  while ((await open.count()) > 0) await open.first().getByRole("button", { name: "Dismiss" }).click();
  await expect(page.locator("li[data-toast]")).toHaveCount(0);
  const wide = (page.viewportSize()?.width ?? 0) >= 1024;
  const file = `${wide ? "desktop-light" : "phone-dark"}-${name}`;
  await page.screenshot({ path: `e2e/artifacts/screens/${file}.png`, fullPage: true });
  mkdirSync("docs/screens", { recursive: true });
  copyFileSync(`e2e/artifacts/screens/${file}.png`, `docs/screens/${file}.png`);
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

/** A short name no other run of this hub used. */
const fresh = (prefix: string) => `${prefix}${Date.now().toString(36).slice(-5)}${Math.floor(Math.random() * 100)}`;
const toast = (page: Page, text: string | RegExp) => page.locator("li[data-toast]").filter({ hasText: text });

test("DESIGN §4c: a person creates a project, opens People, adds the guest by handle and removes them", async ({
  page,
  request,
}) => {
  const me = await person(request, fresh("hq"));
  const taken = fresh("taken");
  expect((await as(request, me.token, "POST", "/api/projects", { slug: taken, name: "Taken" })).status).toBe(201);
  await login(page, me.handle, me.password);

  // New project, from the list: the slug follows the name; a taken one is refused at the field.
  await page.getByRole("button", { name: "New project" }).click();
  const dialog = page.getByRole("dialog", { name: "New project" });
  await dialog.getByLabel("Name").fill("Garden Plans — Été 2026");
  await expect(dialog.getByLabel("Slug")).toHaveValue("garden-plans-ete-2026");
  await dialog.getByLabel("Slug").fill(taken);
  await dialog.getByRole("button", { name: "Create project" }).click();
  await expect(dialog.getByLabel("Slug")).toHaveAttribute("aria-invalid", "true");
  await expect(dialog.getByRole("alert")).toHaveText("Your Bay already has a project with this slug: choose another.");
  await shot(page, "house-new-project");
  const slug = fresh("garden");
  await dialog.getByLabel("Slug").fill(slug);
  await dialog.getByRole("button", { name: "Create project" }).click();

  // The new project's People page: its creator, its admin.
  await expect(page).toHaveURL(`/p/${me.handle}/${slug}/people`);
  await expect(page.getByRole("heading", { name: "People of Garden Plans — Été 2026", level: 1 })).toBeVisible();
  const members = page.getByRole("list", { name: "Members" });
  await expect(members.getByRole("listitem")).toHaveCount(1);
  await expect(members.getByRole("listitem").first()).toContainText("admin");

  // Add the demo's guest by handle; a handle nobody has is named at the field.
  const handle = page.getByRole("textbox", { name: "Handle" });
  await handle.fill("nobody-here-at-all");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByRole("form", { name: "Add a person" }).getByRole("alert")).toContainText(
    "Nobody has this handle",
  );
  await handle.fill("guest");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await expect(toast(page, "Added guest")).toBeVisible();
  const guest = members.getByRole("listitem").filter({ hasText: "Guest" });
  await expect(guest).toContainText("guest · person");
  await expect(members.getByRole("listitem")).toHaveCount(2);
  await shot(page, "house-people");
  await noSeriousAxe(page, "People page");

  // Remove them, confirmed; they are gone from the list and from the project.
  await page.getByRole("button", { name: "Remove Guest" }).click();
  await page.getByRole("button", { name: "Yes, remove" }).click();
  await expect(toast(page, "Removed Guest")).toBeVisible();
  await expect(members.getByRole("listitem")).toHaveCount(1);
  const listed = await as(request, me.token, "GET", `/api/projects/${me.handle}/${slug}/members`);
  expect(listed.body.items.map((m: { handle: string }) => m.handle)).toEqual([me.handle]);

  // The last admin stays, and is told why; Escape cancels and gives the focus back.
  await page.getByRole("button", { name: "Leave the project" }).click();
  await page.getByRole("button", { name: "Yes, leave" }).click();
  await expect(members.getByRole("alert")).toContainText("You are the project's only admin");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: "Leave the project" })).toBeFocused();
  await expect(members.getByRole("alert")).toHaveCount(0);

  // Share with visitors, with the sentence saying what; the hub has it.
  const share = page.getByRole("switch", { name: "Share with visiting agents" });
  await expect(share).toHaveAttribute("aria-checked", "false");
  await share.click();
  await expect(toast(page, "Shared with visiting agents")).toBeVisible();
  await expect(share).toHaveAttribute("aria-checked", "true");
  await expect(page.getByText(/reads the project's brief, its notes \(read-only/)).toBeVisible();
  const patched = await as(request, me.token, "PATCH", `/api/projects/${me.handle}/${slug}`, {});
  expect(patched.body.share_with_visitors).toBe(true);

  // Rename: the heading follows.
  await page.getByLabel("Project name").fill("Garden Plans");
  await page.getByRole("button", { name: "Rename" }).click();
  await expect(page.getByRole("heading", { name: "People of Garden Plans", level: 1 })).toBeVisible();

  // Back in the list, the project in view leads to its People page.
  await page.getByRole("link", { name: "Back to chats" }).click();
  await page.getByLabel("Project filter").selectOption({ label: `Garden Plans (${me.handle}/${slug})` });
  await shot(page, "house-list");
  await page.getByRole("link", { name: "People of Garden Plans" }).click();
  await expect(page).toHaveURL(`/p/${me.handle}/${slug}/people`);
});

test("DESIGN §4c: a member who is no admin reads the People page, and is told who changes it", async ({
  page,
  request,
}) => {
  const owner = await person(request, fresh("ho"));
  const slug = fresh("shared");
  await as(request, owner.token, "POST", "/api/projects", { slug, name: "Shared room" });
  await as(request, owner.token, "POST", `/api/projects/${owner.handle}/${slug}/members`, { handle: "guest" });
  await login(page, "guest", "guest-demo");
  await page.goto(`/p/${owner.handle}/${slug}/people`);
  await expect(page.getByRole("heading", { name: "People of Shared room", level: 1 })).toBeVisible();
  const name = owner.handle[0]?.toUpperCase() + owner.handle.slice(1);
  await expect(
    page.getByText(`Only the project's admins (${name}) add or remove people, rename it or share it.`),
  ).toBeVisible();
  await expect(page.getByRole("list", { name: "Members" }).getByRole("listitem")).toHaveCount(2);
  await expect(page.getByRole("form", { name: "Add a person" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Remove/ })).toHaveCount(0);
  await expect(page.getByRole("switch")).toHaveCount(0);

  // The demo's project: guest's agent is a visitor there (another Bay's), marked with who brought it.
  await page.goto("/p/maintainer/maity/people");
  const visitor = page
    .getByRole("list", { name: "Members" })
    .getByRole("listitem")
    .filter({ hasText: "guest/agent-x" });
  await expect(visitor).toContainText("agent-x · agent");
  await expect(visitor).toContainText("Visitor from guest · brought by Guest");
  await expect(page.getByText(/^Only the project's admins \(.*Maintainer.*\) add or remove people/)).toBeVisible();
  await shot(page, "house-people-member");
});

test("DESIGN §4c: a person creates an agent and sees its pairing code and the maity command", async ({
  page,
  request,
  context,
  baseURL,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const me = await person(request, fresh("ha"));
  await login(page, me.handle, me.password);
  await page.getByRole("link", { name: "Your agents" }).click();
  await expect(page.getByRole("heading", { name: "Your agents" })).toBeVisible();

  await page.getByRole("button", { name: "New agent" }).click();
  const form = page.getByRole("form", { name: "New agent" });
  await expect(form.getByLabel("Handle")).toBeFocused();
  await form.getByLabel("Handle").fill("scout");
  await form.getByLabel("What it is for (optional)").fill("Reads the release notes and answers questions on them.");
  await form.getByRole("button", { name: "Create and pair" }).click();

  const made = page.getByRole("region", { name: `New agent ${me.handle}/scout` });
  await expect(made.getByRole("heading", { name: `Created ${me.handle}/scout` })).toBeVisible();
  const status = made.getByRole("status");
  await expect(status).toContainText(`Pairing code for ${me.handle}/scout`);
  const code = ((await status.locator("code").first().textContent()) ?? "").trim();
  expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  const command = `maity pair ${code} --url ${baseURL}`;
  await expect(status.getByText(command, { exact: true })).toBeVisible();
  await status.getByRole("button", { name: `Copy the pairing command for ${me.handle}/scout` }).click();
  await expect(toast(page, "Command copied")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);
  // It is listed too, with what it is for.
  await expect(page.getByRole("list", { name: "Your agents" })).toContainText("Reads the release notes");
  await shot(page, "house-new-agent");
  await noSeriousAxe(page, "Your agents, a new agent");

  // The code pairs, once.
  const paired = await request.post("/api/agent-api/pair", { data: { code } });
  expect(paired.status()).toBe(200);
  expect(await paired.json()).toMatchObject({ agent: { name: `${me.handle}/scout` } });

  // The same handle again is refused at the field.
  await made.getByRole("button", { name: "Done" }).click();
  await expect(page.getByRole("button", { name: "New agent" })).toBeFocused();
  await page.getByRole("button", { name: "New agent" }).click();
  await form.getByLabel("Handle").fill("scout");
  await form.getByRole("button", { name: "Create and pair" }).click();
  await expect(form.getByRole("alert")).toHaveText("You already have an agent with this handle: choose another.");
  await form.getByRole("button", { name: "Cancel" }).click();

  // What it is for, changed in place.
  await page.getByRole("button", { name: `Edit what ${me.handle}/scout is for` }).click();
  await page.getByLabel("What it is for", { exact: true }).fill("Triages new issues.");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(toast(page, `Saved what ${me.handle}/scout is for`)).toBeVisible();
  await expect(page.getByRole("list", { name: "Your agents" })).toContainText("Triages new issues.");
  await expect(page.getByRole("button", { name: `Edit what ${me.handle}/scout is for` })).toBeFocused();
});
