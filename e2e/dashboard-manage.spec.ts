import { expect, type Page, test } from "@playwright/test";
import { admin, as, list, login, person } from "./helpers";

// Managing a group chat in a dialog (§9.2 "Who manages", 004 §4 reply policies, B-067),
// the create dialog refusing what the hub refuses before sending, the Ctrl/Cmd+K quick switcher and
// the honest states (the offline banner, the header's totals on every page). Screenshots are kept
// in each test's output folder.

test.use({ viewport: { width: 1440, height: 900 } });
// Two browsers and a dozen people on a shared 2-core machine: a ceiling, not a measurement.
test.describe.configure({ timeout: 120_000 });

/** A project of `owner` with the given members, and a group chat of them created by `owner`. */
async function room(
  request: Parameters<typeof person>[0],
  owner: { handle: string; token: string },
  slug: string,
  members: string[],
  title: string,
  participants = members,
) {
  await admin(request, "POST", "/projects", { owner: owner.handle, slug, name: slug });
  for (const id of members)
    await admin(request, "POST", `/projects/${owner.handle}/${slug}/members`, { member_id: id });
  const P = `/api/projects/${owner.handle}/${slug}/conversations`;
  const created = await as(request, owner.token, "POST", P, { title, participants });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { P, id: created.body.id as string, url: `/p/${owner.handle}/${slug}/c/${created.body.id}` };
}

const manageDialog = (page: Page) => page.getByRole("dialog", { name: /^Manage/ });
// A toast (Radix announces its text in a separate live region; the visible one is an <li>).
const toast = (page: Page, text: string | RegExp) => page.locator("li[data-toast]").filter({ hasText: text });

test("rename and change the reply policy in the dialog; the chip follows, more than 5 rounds needs the acceptance", async ({
  page,
  request,
}, info) => {
  const nora = await person(request, "nora");
  const omar = await person(request, "omar");
  await admin(request, "POST", "/agents", { owner: "nora", handle: "nbot" });
  const chat = await room(request, nora, "launch", [omar.id, "agt-nbot"], "Launch plan");
  await login(page, nora.handle, nora.password);
  await page.goto(chat.url);
  const chip = page.getByRole("button", { name: /^Replies: mentioned agents · up to 2 rounds/ });
  await expect(chip).toBeVisible();

  await page.getByRole("button", { name: "Manage", exact: true }).click();
  const dialog = manageDialog(page);
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("Title").fill("Launch plan v2");
  await dialog.getByRole("button", { name: "Rename" }).click();
  await expect(toast(page, "Renamed to “Launch plan v2”")).toBeVisible();
  // Esc closes the dialog, even with the toast up; the chat's heading has the new title.
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Launch plan v2", level: 1 })).toBeVisible();

  // The chip opens the same dialog at the reply policy.
  await chip.click();
  await expect(dialog.getByRole("tab", { name: "Replies" })).toHaveAttribute("aria-selected", "true");
  await dialog.getByRole("radio", { name: "One designated agent" }).click();
  await dialog.getByLabel("Designated agent", { exact: true }).selectOption({ label: "nora/nbot" });
  await dialog.getByLabel(/^Round cap/).fill("8");
  await dialog.getByLabel("Custom rules (optional)").fill("Answer in English.");
  await dialog.getByRole("button", { name: "Save reply policy" }).click();
  // B-067: refused here, at the field, in words — nothing sent until the cost is accepted.
  await expect(dialog.getByRole("alert")).toHaveText(
    "Round cap: more than 5 rounds only once you accept the token cost.",
  );
  await page.screenshot({ path: info.outputPath("manage-policy-refused.png") });
  await dialog.getByRole("checkbox", { name: /I accept the token cost/ }).click();
  await dialog.getByRole("button", { name: "Save reply policy" }).click();
  await expect(toast(page, "Reply policy saved")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(
    page.getByRole("button", { name: /^Replies: the designated agent \(nora\/nbot\) · up to 8 rounds/ }),
  ).toBeVisible();
  const view = (await as(request, nora.token, "GET", `${chat.P}/${chat.id}`)).body;
  expect(view).toMatchObject({
    title: "Launch plan v2",
    reply_policy: "DEDICATED",
    designated_agent_id: "agt-nbot",
    max_agent_rounds: 8,
    custom_rules: "Answer in English.",
  });
  await page.screenshot({ path: info.outputPath("manage-chip.png") });
});

test("M-125 add and remove a participant by name (adding says who reads the history); a non-manager sees who can change it; leaving asks first", async ({
  browser,
  page,
  request,
}, info) => {
  const pia = await person(request, "pim");
  const quinn = await person(request, "quinn");
  const ravi = await person(request, "ravi");
  const chat = await room(request, pia, "people", [quinn.id, ravi.id], "Team room", [quinn.id]);
  await login(page, pia.handle, pia.password);
  await page.goto(chat.url);
  await page.getByRole("button", { name: "Manage", exact: true }).click();
  const dialog = manageDialog(page);
  await dialog.getByRole("tab", { name: /^People/ }).click();
  await dialog.getByRole("searchbox", { name: "Search the project's members" }).fill("rav");
  await dialog.getByRole("button", { name: "Add Ravi" }).click();
  await expect(toast(page, "Added Ravi")).toBeVisible();
  // M-125: adding says that messages are written to whoever is or later will be in the chat.
  await expect(toast(page, "Added Ravi")).toContainText("whoever is or will be in the chat");
  const people = dialog.getByRole("list", { name: "Participants" });
  await expect(people).toContainText("Ravi");
  await expect(people).not.toContainText("hum-ravi");
  await dialog.getByRole("button", { name: "Remove Quinn" }).click();
  await expect(toast(page, "Removed Quinn")).toBeVisible();
  await expect(people).not.toContainText("Quinn");
  await page.screenshot({ path: info.outputPath("manage-people.png") });
  const ids = (await as(request, pia.token, "GET", `${chat.P}/${chat.id}`)).body.participants.map(
    (p: { member_id: string }) => p.member_id,
  );
  expect(ids.sort()).toEqual([pia.id, ravi.id].sort());

  // Ravi manages nothing: the chip is text that says who can change it, by name.
  const rPage = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  await login(rPage, ravi.handle, ravi.password);
  await rPage.goto(chat.url);
  await expect(rPage.getByText(/^Replies: mentioned agents · up to 2 rounds/)).toContainText(
    "Only Pim (started the chat, project admin) can change this.",
  );
  await expect(rPage.getByRole("button", { name: /^Replies:/ })).toHaveCount(0);
  await rPage.getByRole("button", { name: "Manage", exact: true }).click();
  const rDialog = manageDialog(rPage);
  await expect(rDialog.getByRole("button", { name: "Rename" })).toHaveCount(0);
  await rDialog.getByRole("button", { name: "Leave…" }).click();
  await expect(rDialog.getByRole("group", { name: "Confirm leaving" })).toContainText("Leave “Team room”?");
  await rPage.screenshot({ path: info.outputPath("manage-leave-confirm.png") });
  await rDialog.getByRole("button", { name: "Stay" }).click();
  await expect(rDialog.getByRole("group", { name: "Confirm leaving" })).toHaveCount(0);
  await rDialog.getByRole("button", { name: "Leave…" }).click();
  await rDialog.getByRole("button", { name: "Yes, leave" }).click();
  await expect(toast(rPage, "You left “Team room”")).toBeVisible();
  await expect(rPage).toHaveURL(/\/$/);
  await expect(rPage.getByRole("link", { name: /Team room/ })).toHaveCount(0);
  const after = (await as(request, pia.token, "GET", `${chat.P}/${chat.id}`)).body.participants.map(
    (p: { member_id: string }) => p.member_id,
  );
  expect(after).toEqual([pia.id]);
});

test("the create dialog refuses 12 others and your own agent alone before sending, in words", async ({
  page,
  request,
}, info) => {
  const sia = await person(request, "sia");
  await admin(request, "POST", "/agents", { owner: "sia", handle: "sbot" });
  const others: string[] = [];
  for (let i = 1; i <= 12; i++) {
    const handle = `crowd-${String(i).padStart(2, "0")}`;
    await admin(request, "POST", "/humans", { handle, name: `Crowd ${i}`, password: `${handle}-password` });
    others.push(`hum-${handle}`);
  }
  await admin(request, "POST", "/projects", { owner: "sia", slug: "crowd", name: "Crowd" });
  for (const id of [...others, "agt-sbot"])
    await admin(request, "POST", "/projects/sia/crowd/members", { member_id: id });
  const sent: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("conversations.create")) sent.push(r.url());
  });
  await login(page, sia.handle, sia.password);
  await page.getByRole("button", { name: "New group chat" }).click();
  const form = page.getByRole("form", { name: "New group chat" });
  await form.getByLabel("Project").selectOption("sia/crowd");
  for (let i = 1; i <= 12; i++) await form.getByRole("checkbox", { name: `Crowd ${i} (human)`, exact: true }).click();
  await expect(form.getByRole("alert")).toHaveText("A group chat has at most 12 participants, you included.");
  await form.getByRole("button", { name: "Create" }).click();
  await expect(form.getByRole("alert")).toHaveText("A group chat has at most 12 participants, you included.");
  await page.screenshot({ path: info.outputPath("create-too-many.png") });
  for (let i = 1; i <= 12; i++) await form.getByRole("checkbox", { name: `Crowd ${i} (human)`, exact: true }).click();
  // Create was tried: an empty choice now says so too.
  await expect(form.getByRole("alert")).toHaveText("Choose at least one other participant.");

  await form.getByRole("searchbox", { name: "Search members" }).fill("sbot");
  await expect(form.getByRole("checkbox")).toHaveCount(1);
  await form.getByRole("checkbox", { name: "sia/sbot (agent)" }).click();
  await expect(form.getByRole("alert")).toHaveText(
    "You and your own agent alone are your direct conversation with it: use the direct conversation instead.",
  );
  await expect(form.getByRole("link", { name: "Open your direct conversation with sia/sbot" })).toBeVisible();
  await form.getByRole("searchbox", { name: "Search members" }).fill("nobody-here");
  await expect(form).toContainText("No member of this project matches. Only the project's members can take part.");
  await page.screenshot({ path: info.outputPath("create-use-direct.png") });
  expect(sent).toEqual([]);

  // With one more person it is a group chat, and the hub takes it.
  await form.getByRole("searchbox", { name: "Search members" }).fill("Crowd 1");
  await form.getByRole("checkbox", { name: "Crowd 1 (human)", exact: true }).click();
  await form.getByLabel("Title").fill("Crowd and bot");
  await form.getByRole("button", { name: "Create" }).click();
  await expect(page.getByRole("heading", { name: "Crowd and bot", level: 1 })).toBeVisible();
  expect(sent).toHaveLength(1);
});

test("Ctrl+K opens a chat by part of its title; Esc closes", async ({ page }, info) => {
  await login(page, "maintainer", "maintainer-demo");
  await page.keyboard.press("Control+k");
  const dialog = page.getByRole("dialog", { name: "Search or jump to" });
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  // The header's trigger does the same for mouse and touch users.
  await page.getByRole("button", { name: /Search or jump to/ }).click();
  const box = dialog.getByRole("combobox");
  await expect(box).toBeFocused();
  await box.fill("go/no");
  await expect(dialog.getByRole("option", { name: /Release 0\.2 go\/no-go/ })).toBeVisible();
  await page.screenshot({ path: info.outputPath("quick-switcher.png") });
  await page.keyboard.press("Enter");
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("heading", { name: /Release 0\.2 go\/no-go/, level: 1 })).toBeVisible();
  await expect(page).toHaveURL(/\/p\/maintainer\/maity\/c\//);
  // And to a page.
  await page.keyboard.press("Control+k");
  await dialog.getByRole("combobox").fill("Your agents");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Your agents" })).toBeVisible();
});

test("the offline banner shows while the live feed is down and goes when it is back", async ({
  context,
  page,
}, info) => {
  await login(page, "maintainer", "maintainer-demo");
  await expect(list(page).getByRole("link", { name: /Release 0\.2 go\/no-go/ })).toBeVisible();
  const banner = page.getByRole("status").filter({ hasText: "Reconnecting to the hub" });
  await expect(banner).toHaveCount(0);
  // The browser going offline.
  await context.setOffline(true);
  await expect(banner).toBeVisible();
  await page.screenshot({ path: info.outputPath("offline.png") });
  await context.setOffline(false);
  await expect(banner).toHaveCount(0, { timeout: 30_000 });
  // The feed itself refused while the network is up: the banner stays until the feed is back.
  await page.route("**/api/trpc/live.feed**", (route) => route.abort());
  await context.setOffline(true);
  await expect(banner).toBeVisible();
  await context.setOffline(false);
  await expect(banner).toBeVisible();
  await page.unroute("**/api/trpc/live.feed**");
  await expect(banner).toHaveCount(0, { timeout: 30_000 });
});

test("the header's totals keep updating on the agents page", async ({ page, request }, info) => {
  const tess = await person(request, "tess");
  const uma = await person(request, "una");
  const chat = await room(request, tess, "totals", [uma.id], "Totals room");
  await login(page, tess.handle, tess.password);
  await page.getByRole("link", { name: "Your agents" }).click();
  await expect(page.getByRole("heading", { name: "Your agents" })).toBeVisible();
  const chats = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Chats/ });
  await expect(chats).not.toContainText("unread");
  await as(request, uma.token, "POST", `${chat.P}/${chat.id}/messages`, { body: "are you there?" });
  await expect(chats).toContainText("1 unread");
  await expect(page).toHaveTitle(/^\(1\) Maity/);
  await expect(page).toHaveURL(/\/agents$/);
  await page.screenshot({ path: info.outputPath("agents-totals.png") });
});

// The dialogs and the switcher at a desk and on a phone, light and dark.
for (const [size, viewport] of [
  ["desktop", { width: 1440, height: 900 }],
  ["phone", { width: 390, height: 844 }],
] as const)
  for (const theme of ["light", "dark"] as const)
    test(`screens: manage, create and the switcher — ${size}, ${theme}`, async ({ page }, info) => {
      await page.setViewportSize(viewport);
      await page.addInitScript((t) => localStorage.setItem("maity-theme", t), theme);
      await login(page, "maintainer", "maintainer-demo");
      await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
      await list(page)
        .getByRole("link", { name: /Release 0\.2 go\/no-go/ })
        .click();
      await expect(page.getByRole("button", { name: /^Replies:/ })).toBeVisible();
      await page.screenshot({ path: info.outputPath(`${size}-${theme}-chat.png`) });
      await page.getByRole("button", { name: /^Replies:/ }).click();
      await expect(manageDialog(page).getByRole("radio", { name: "Mentioned agents" })).toBeVisible();
      await page.screenshot({ path: info.outputPath(`${size}-${theme}-manage.png`) });
      await page.keyboard.press("Escape");
      // On a phone the list is its own screen: back to it first.
      const back = page.getByRole("link", { name: "Back to chats" });
      if (await back.isVisible()) await back.click();
      await page.getByRole("button", { name: "New group chat" }).click();
      await expect(page.getByRole("form", { name: "New group chat" })).toBeVisible();
      await page.screenshot({ path: info.outputPath(`${size}-${theme}-create.png`) });
      await page.keyboard.press("Escape");
      await page.keyboard.press("Control+k");
      await expect(page.getByRole("dialog", { name: "Search or jump to" }).getByRole("option").first()).toBeVisible();
      await page.screenshot({ path: info.outputPath(`${size}-${theme}-switcher.png`) });
    });
