import { expect, test } from "@playwright/test";
import { admin, as, list, login, person, titles } from "./helpers";

// The dashboard's scenarios, one test each, each keeping a screenshot in e2e/artifacts.

test("bands reorder after a pin and after a new message from another client", async ({ page, request }, info) => {
  const ann = await person(request, "ann");
  const bob = await person(request, "bob");
  await admin(request, "POST", "/projects", { owner: "ann", slug: "bands", name: "Bands" });
  await admin(request, "POST", "/projects/ann/bands/members", { member_id: bob.id });
  const P = "/api/projects/ann/bands/conversations";
  for (const title of ["Alpha", "Beta", "Gamma"])
    await as(request, ann.token, "POST", P, { title, participants: [bob.id] });
  await login(page, ann.handle, ann.password);
  await expect.poll(() => titles(page)).toEqual(["Gamma", "Beta", "Alpha"]);
  // Pinned (no unread) rises above the rest.
  await page.getByRole("button", { name: "Pin Alpha" }).click();
  await expect.poll(() => titles(page)).toEqual(["Alpha", "Gamma", "Beta"]);
  // A message from another client: unread rises above a quiet pin, live, without a reload.
  const beta = (await as(request, ann.token, "GET", P)).body.items.find(
    (i: { title: string }) => i.title === "Beta",
  ).id;
  await as(request, bob.token, "POST", `${P}/${beta}/messages`, { body: "news in Beta" });
  await expect.poll(() => titles(page)).toEqual(["Beta", "Alpha", "Gamma"]);
  await expect(list(page).locator("li.row").first()).toContainText("1 unread");
  await expect(page).toHaveTitle(/^\(1\) Maity/);
  await page.screenshot({ path: info.outputPath("bands.png"), fullPage: true });
});

test("the 21st pin is refused and says so", async ({ page, request }, info) => {
  const cy = await person(request, "cy");
  const dee = await person(request, "dee");
  await admin(request, "POST", "/projects", { owner: "cy", slug: "pins", name: "Pins" });
  await admin(request, "POST", "/projects/cy/pins/members", { member_id: dee.id });
  const P = "/api/projects/cy/pins/conversations";
  for (let i = 1; i <= 21; i++) {
    const chat = (
      await as(request, cy.token, "POST", P, { title: `Room ${String(i).padStart(2, "0")}`, participants: [dee.id] })
    ).body.id;
    if (i <= 20) expect((await as(request, cy.token, "PUT", `${P}/${chat}/pin`)).status).toBe(204);
  }
  await login(page, cy.handle, cy.password);
  // The list is virtualised, so Room 21 (last of 21, not in the page yet) is found with the search box.
  await page.getByRole("searchbox", { name: "Search conversations" }).fill("Room 21");
  await page.getByRole("button", { name: "Pin Room 21" }).click();
  await expect(list(page).getByRole("alert")).toContainText("You can pin at most 20 conversations");
  await expect(page.getByRole("button", { name: "Pin Room 21" })).toHaveAttribute("aria-pressed", "false");
  await page.screenshot({ path: info.outputPath("pin-limit.png"), fullPage: true });
});

test("group creation errors show at the field", async ({ page, request }, info) => {
  const eve = await person(request, "eve");
  await admin(request, "POST", "/agents", { owner: "eve", handle: "helper" });
  await admin(request, "POST", "/projects", { owner: "eve", slug: "forms", name: "Forms" });
  await admin(request, "POST", "/projects/eve/forms/members", { member_id: "agt-helper" });
  await login(page, eve.handle, eve.password);
  await page.getByRole("button", { name: "New group chat" }).click();
  const form = page.getByRole("form", { name: "New group chat" });
  await form.getByRole("button", { name: "Create" }).click();
  await expect(form.getByRole("alert")).toHaveText("Choose at least one other participant.");
  await expect(form.getByRole("group", { name: "Participants" })).toHaveAttribute("aria-invalid", "true");
  await form.getByLabel("eve/helper (agent)").check();
  await form.getByRole("button", { name: "Create" }).click();
  // The picker refuses it before sending, with the hub's own rule (§9.2 "use_direct", M-094).
  await expect(form.getByRole("alert")).toHaveText(
    "You and your own agent alone are your direct conversation with it: use the direct conversation instead.",
  );
  await page.screenshot({ path: info.outputPath("group-errors.png"), fullPage: true });
});

test("M-006 M-136 M-147 the observer header names the owner reading along; the chat opens beside the list", async ({
  page,
}, info) => {
  await login(page, "maintainer", "maintainer-demo");
  await list(page)
    .getByRole("link", { name: /Release 0\.2 go\/no-go/ })
    .click();
  // The header's note (the room's round-cap notes are notes too, once earlier specs spent its rounds).
  await expect(page.getByRole("note").filter({ hasText: "reads along" })).toContainText(
    "Guest reads along as the owner of guest/agent-x",
  );
  // M-006: on a wide screen the chat opens beside the list, which stays (a phone shows one at a time).
  if ((page.viewportSize()?.width ?? 0) >= 768) await expect(list(page)).toBeVisible();
  // Names, never member ids; the routing chips say who the hub asked to answer, and why.
  const messages = page.getByRole("list", { name: "Messages" });
  await expect(messages).toContainText("Maintainer");
  await expect(messages).not.toContainText("hum-maintainer");
  await expect(messages.getByLabel("Routing").first()).toContainText("maintainer/agent-a (mentioned)");
  await page.screenshot({ path: info.outputPath("observer-header.png"), fullPage: true });
  // The owner reading along sees the same header and why it cannot post.
  await page.getByRole("button", { name: "Sign out" }).click();
  await login(page, "guest", "guest-demo");
  await page.getByLabel("Read along").check();
  await list(page)
    .getByRole("link", { name: /Release 0\.2 go\/no-go/ })
    .click();
  // The header's note (the room's round-cap notes are notes too, once earlier specs spent its rounds).
  await expect(page.getByRole("note").filter({ hasText: "reads along" })).toContainText(
    "Guest reads along as the owner of guest/agent-x",
  );
  await expect(page.getByRole("status")).toContainText("You read along");
  await page.screenshot({ path: info.outputPath("observer-view.png"), fullPage: true });
});

test("M-214 the meat-proxy switch starts from the profile and persists per chat", async ({ page, request }, info) => {
  const fay = await person(request, "fay");
  const gil = await person(request, "gil");
  await admin(request, "POST", "/projects", { owner: "fay", slug: "meat", name: "Meat" });
  await admin(request, "POST", "/projects/fay/meat/members", { member_id: gil.id });
  const P = "/api/projects/fay/meat/conversations";
  const one = (await as(request, fay.token, "POST", P, { title: "One", participants: [gil.id] })).body.id;
  const two = (await as(request, fay.token, "POST", P, { title: "Two", participants: [gil.id] })).body.id;
  await login(page, fay.handle, fay.password);
  await page.goto(`/p/fay/meat/c/${one}`);
  const toggle = page.getByRole("switch", { name: "Meat proxy (lead)" });
  await expect(toggle).not.toBeChecked(); // the profile's lead part is off
  // M-214: the switch sits in the composer next to Attach and Send.
  const composer = page.getByRole("form", { name: "Composer" });
  await expect(composer.getByRole("switch", { name: "Meat proxy (lead)" })).toBeVisible();
  await expect(composer.getByRole("button", { name: "Attach" })).toBeVisible();
  await expect(composer.getByRole("button", { name: "Send" })).toBeVisible();
  await toggle.check();
  await expect
    .poll(
      async () =>
        (await as(request, fay.token, "GET", `${P}/${one}`)).body.participants.find(
          (p: { member_id: string }) => p.member_id === fay.id,
        ).meat_proxy_chat,
    )
    .toBe(true);
  await page.reload();
  await expect(page.getByRole("switch", { name: "Meat proxy (lead)" })).toBeChecked();
  await page.goto(`/p/fay/meat/c/${two}`);
  await expect(page.getByRole("switch", { name: "Meat proxy (lead)" })).not.toBeChecked(); // per chat
  await page.screenshot({ path: info.outputPath("meat-proxy.png"), fullPage: true });
});

test("a REST post by an agent token appears live in the open chat", async ({ page, request }, info) => {
  const { token } = await admin(request, "POST", "/tokens", { member_id: "agt-a" });
  await login(page, "maintainer", "maintainer-demo");
  await list(page)
    .getByRole("link", { name: /maintainer\/agent-a/ })
    .click();
  await expect(page.getByRole("list", { name: "Messages" })).toContainText("How far is the API contract?");
  const body = `Live from the agent ${Date.now()}`;
  expect(
    (await as(request, token, "POST", "/api/projects/maintainer/maity/conversations/agt-a/messages", { body })).status,
  ).toBe(201);
  await expect(page.getByRole("list", { name: "Messages" })).toContainText(body, { timeout: 5_000 });
  await page.screenshot({ path: info.outputPath("live.png"), fullPage: true });
});

test("a message posted while the page's live feed is still connecting is not lost (the feed's listening item)", async ({
  page,
  request,
}) => {
  const { token } = await admin(request, "POST", "/tokens", { member_id: "agt-a" });
  // Hold every connection of the live feed until the message is written: the chat is already shown,
  // its feed not yet live — the moment a message used to fall between the page's load and the feed.
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  await page.route("**/api/trpc/live.feed**", async (route) => {
    held++;
    await gate;
    await route.continue().catch(() => {}); // a page left meanwhile has dropped its request
  });
  await login(page, "maintainer", "maintainer-demo");
  await page.goto("/p/maintainer/maity/c/agt-a");
  const messages = page.getByRole("list", { name: "Messages" });
  await expect(messages).toContainText("How far is the API contract?");
  const body = `Between the load and the feed ${Date.now()}`;
  expect(
    (await as(request, token, "POST", "/api/projects/maintainer/maity/conversations/agt-a/messages", { body })).status,
  ).toBe(201);
  expect(held).toBeGreaterThan(0);
  await expect(messages).not.toContainText(body);
  release();
  await expect(messages).toContainText(body, { timeout: 15_000 });
});

test("redaction turns a message into a tombstone for the other participant", async ({ browser, request }, info) => {
  const hal = await person(request, "hal");
  const ida = await person(request, "ida");
  await admin(request, "POST", "/projects", { owner: "hal", slug: "redact", name: "Redact" });
  await admin(request, "POST", "/projects/hal/redact/members", { member_id: ida.id });
  const P = "/api/projects/hal/redact/conversations";
  const chat = (await as(request, hal.token, "POST", P, { title: "Secrets", participants: [ida.id] })).body.id;
  await as(request, hal.token, "POST", `${P}/${chat}/messages`, { body: "the password is hunter2" });
  const hPage = await (await browser.newContext()).newPage();
  const iPage = await (await browser.newContext()).newPage();
  await login(iPage, ida.handle, ida.password);
  await iPage.goto(`/p/hal/redact/c/${chat}`);
  await expect(iPage.getByRole("list", { name: "Messages" })).toContainText("hunter2");
  await login(hPage, hal.handle, hal.password);
  await hPage.goto(`/p/hal/redact/c/${chat}`);
  // Remove sits in the message's actions menu (shown on hover and focus).
  const row = hPage.getByRole("list", { name: "Messages" }).locator("li[data-seq]").filter({ hasText: "hunter2" });
  await row.hover();
  await row.getByRole("button", { name: /^Actions for message/ }).click();
  await hPage.getByRole("menuitem", { name: /^Remove message/ }).click();
  await hPage.getByLabel("Reason (optional)").fill("leaked secret");
  await hPage.getByRole("button", { name: "Remove for everyone" }).click();
  await expect(hPage.getByRole("list", { name: "Messages" })).toContainText("Message removed by Hal");
  await expect(hPage.getByRole("list", { name: "Messages" })).toContainText("leaked secret");
  // The other participant sees the tombstone live, without the reason (§8.5: redactor and admins only).
  await expect(iPage.getByRole("list", { name: "Messages" })).toContainText("Message removed by Hal", {
    timeout: 5_000,
  });
  await expect(iPage.getByRole("list", { name: "Messages" })).not.toContainText("hunter2");
  await expect(iPage.getByRole("list", { name: "Messages" })).not.toContainText("leaked secret");
  await iPage.screenshot({ path: info.outputPath("tombstone.png"), fullPage: true });
});

test("paging back through history with earlier messages", async ({ page, request }, info) => {
  const jo = await person(request, "jo");
  const kim = await person(request, "kim");
  const lee = await person(request, "lee");
  await admin(request, "POST", "/projects", { owner: "jo", slug: "history", name: "History" });
  for (const m of [kim, lee]) await admin(request, "POST", "/projects/jo/history/members", { member_id: m.id });
  const P = "/api/projects/jo/history/conversations";
  const room = (await as(request, jo.token, "POST", P, { title: "Long", participants: [kim.id] })).body.id;
  for (let i = 1; i <= 60; i++)
    await as(request, kim.token, "POST", `${P}/${room}/messages`, { body: `old message ${i}` });
  // Lee is added after the backlog: its window starts empty (nothing new, no divider, M-118); the
  // chat opens on the newest page of the history, and the earlier page comes by the button or by
  // scrolling.
  await as(request, jo.token, "POST", `${P}/${room}/participants`, { member_id: lee.id });
  await login(page, lee.handle, lee.password);
  await page.goto(`/p/jo/history/c/${room}`);
  const timeline = page.getByRole("list", { name: "Messages" });
  await expect(timeline.locator("li[data-seq]").last()).toContainText("old message 60");
  await expect(page.getByRole("separator", { name: "New messages" })).toHaveCount(0);
  const earlier = page.getByRole("button", { name: "Earlier messages" });
  if (await earlier.isVisible()) await earlier.click();
  await expect(timeline.locator("li[data-seq]")).toHaveCount(60);
  await expect(timeline.locator("li[data-seq]").first()).toContainText("old message 1");
  await expect(page.getByText("The start of the conversation.")).toBeVisible();
  await page.screenshot({ path: info.outputPath("history.png"), fullPage: true });
});

test("a closed chat's composer explains itself", async ({ page, request }, info) => {
  const lu = await person(request, "lu");
  await admin(request, "POST", "/agents", { owner: "lu", handle: "bot" });
  // Both agents Lu's own: another Bay's agent would be a visitor, placed by its sponsor only (DESIGN §4c).
  const other = (await admin(request, "POST", "/agents", { owner: "lu", handle: "other" })).id as string;
  await admin(request, "POST", "/projects", { owner: "lu", slug: "closing", name: "Closing" });
  await admin(request, "POST", "/projects/lu/closing/members", { member_id: "agt-bot" });
  await admin(request, "POST", "/projects/lu/closing/members", { member_id: other });
  const P = "/api/projects/lu/closing/conversations";
  const chat = (await as(request, lu.token, "POST", P, { title: "Last one out", participants: ["agt-bot", other] }))
    .body.id;
  await as(request, lu.token, "POST", `${P}/${chat}/messages`, { body: "bye" });
  expect((await as(request, lu.token, "DELETE", `${P}/${chat}/participants/${lu.id}`)).status).toBe(200);
  await login(page, lu.handle, lu.password);
  // Lu still reads along through its agent; the chat is closed.
  await page.goto(`/p/lu/closing/c/${chat}`);
  await expect(page.getByRole("status")).toContainText("This chat is closed");
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveCount(0);
  await page.screenshot({ path: info.outputPath("closed.png"), fullPage: true });
});

test("at a phone's width the list and the chat are two screens, with a way back", async ({ page }, info) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await login(page, "maintainer", "maintainer-demo");
  // "/" is the list alone: on a phone the list and the chat are two screens.
  await expect(list(page)).toBeVisible();
  await expect(page.getByRole("region", { name: "Open conversation" })).toBeHidden();
  await list(page)
    .getByRole("link", { name: /maintainer\/agent-a/ })
    .click();
  // A chat route is the chat alone, as wide as the phone, with "Back to chats".
  await expect(page.getByRole("heading", { name: "maintainer/agent-a" })).toBeVisible();
  await expect(page.getByRole("list", { name: "Messages" })).toContainText("How far is the API contract?");
  await expect(list(page)).toBeHidden();
  const chatBox = await page.getByRole("region", { name: "Open conversation" }).boundingBox();
  expect(chatBox?.width).toBeLessThanOrEqual(390);
  await page.screenshot({ path: info.outputPath("phone-chat.png"), fullPage: true });
  await page.getByRole("link", { name: "Back to chats" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(list(page)).toBeVisible();
  await expect(page.getByRole("region", { name: "Open conversation" })).toBeHidden();
  await page.screenshot({ path: info.outputPath("phone.png"), fullPage: true });
});
