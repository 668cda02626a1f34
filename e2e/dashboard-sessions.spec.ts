import { type APIRequestContext, type Browser, expect, type Page, test } from "@playwright/test";
import { admin, as, login } from "./helpers";
import { noSeriousAxe, shot, toast } from "./shots";

// The decision card (issue 30 "Approvals", DESIGN §4e, B-313): a terminal session — the demo
// maintainer's computer signed in through device login, acting as the session "frontend" — joins
// "Release 0.2 go/no-go" over the device API and asks the maintainer to decide. The chat shows the
// card with one button per option and Deny; the maintainer decides with the keyboard alone; the card
// says who decided what and when, the chat has the quiet line, and the session's own read answers
// the choice. A second approval (no options) arrives live, meets a refused request (the error in
// words, the buttons back), then a slow one (the buttons wait, saying so) and is denied. A third is
// decided elsewhere (the REST route) while the card is open in the maintainer's chat and in the
// guest's, who reads along: both show it without a reload; the guest never sees a button and is
// refused by the hub. Runs at 1440×900 (light) and 390×844 (dark), each on a fresh hub; the
// screenshots go to e2e/artifacts/screens/ and docs/screens/.

test.describe.configure({ mode: "serial", timeout: 150_000 });

const GROUP = "Release 0.2 go/no-go";
const SESSION = "frontend";
const ASKER = "maintainer/frontend";

type Device = { token: string; conversation: { id: string; maityId: string } };
let device: Device;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const messages = (page: Page) => page.getByRole("list", { name: "Messages" });
const card = (page: Page, question: string) => page.getByRole("region", { name: `Decision: ${question}` });
const quietLine = (page: Page, text: string) =>
  messages(page).locator('li[data-quiet="approval.decided"]').filter({ hasText: text });

/** The session asks, over the device API as request_approval does; answers the approval's id. */
async function ask(request: APIRequestContext, question: string, options?: string[]): Promise<string> {
  const res = await request.post("/api/device-api/approvals", {
    headers: bearer(device.token),
    data: { session: SESSION, conversationId: device.conversation.id, question, ...(options ? { options } : {}) },
  });
  expect(res.status(), await res.text()).toBe(201);
  const body = await res.json();
  expect(body).toMatchObject({ status: "pending", question, options: options ?? [], choice: null });
  expect(body.approver).toEqual({ id: "hum-maintainer", name: "Maintainer" });
  return body.approvalId as string;
}

/** What the session reads back (await_approval without waiting). */
async function sessionReads(request: APIRequestContext, approvalId: string) {
  const res = await request.get(`/api/device-api/approvals/${approvalId}?session=${SESSION}&wait=0`, {
    headers: bearer(device.token),
  });
  expect(res.status(), await res.text()).toBe(200);
  return res.json();
}

async function openChat(page: Page) {
  await page.goto(`/p/maintainer/maity/c/${device.conversation.maityId}`);
  await expect(messages(page)).toContainText("@agent-a can we tag today?");
}

/** A second person's page, in its own context (the profile's viewport and theme). */
async function signedIn(browser: Browser, handle: string, password: string) {
  const page = await (await browser.newContext()).newPage();
  await login(page, handle, password);
  return page;
}

test("issue 30: a terminal session asks the maintainer; the card's buttons decide it, keyboard alone", async ({
  page,
  request,
}) => {
  // 1. Device login: the computer opens a login; the maintainer approves it in the dashboard.
  const opened = await (await request.post("/api/device-api/login", { data: { label: "e2e terminal" } })).json();
  await login(page, "maintainer", "maintainer-demo");
  await page.goto(`/device/${opened.code}`);
  await page.getByRole("form", { name: "Sign this computer in" }).getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Signed in:" })).toBeVisible();
  const polled = await (
    await request.post(`/api/device-api/login/${opened.id}/poll`, { data: { secret: opened.secret } })
  ).json();
  expect(polled.status).toBe("approved");
  const token = polled.credentials[0].token as string;
  expect(token).toMatch(/^bay_u_/);

  // 2. The session "frontend" joins the demo's group chat.
  const joined = await request.post("/api/device-api/sessions", {
    headers: bearer(token),
    data: { session: SESSION, group: GROUP },
  });
  expect(joined.status(), await joined.text()).toBeLessThan(300);
  const join = await joined.json();
  expect(join.session.name).toBe(SESSION);
  expect(join.conversation.title).toBe(GROUP);
  device = { token, conversation: join.conversation };

  // 3. It asks, with two options.
  const question = "Deploy 0.2 to production?";
  const approvalId = await ask(request, question, ["Deploy now", "Deploy tonight"]);
  expect((await sessionReads(request, approvalId)).status).toBe("pending");

  // 4. The maintainer's chat shows the card (not the plain-text fallback), their buttons and Deny.
  await openChat(page);
  const decision = card(page, question);
  await expect(decision).toBeVisible();
  await expect(decision).toContainText(`Asked by ${ASKER} · you decide`);
  // The fallback stays in the page (hidden) for what cannot render the card.
  await expect(messages(page).getByText("Approval needed from @maintainer: Deploy 0.2")).toBeHidden();
  const buttons = decision.getByRole("group", { name: "Your decision" }).getByRole("button");
  await expect(buttons).toHaveText(["Deploy now", "Deploy tonight", "Deny"]);
  // On a phone the chat's header leaves the timeline a strip: the shot is of the card itself.
  const phone = (page.viewportSize()?.width ?? 0) < 1024;
  await decision.scrollIntoViewIfNeeded();
  await shot(page, "sessions-decision-pending", phone ? decision : undefined);
  await noSeriousAxe(page, "a pending decision card");

  // Keyboard alone: Tab from the first answer to the second, a visible focus ring, Enter.
  const now = decision.getByRole("button", { name: "Deploy now" });
  const tonight = decision.getByRole("button", { name: "Deploy tonight" });
  await now.focus();
  await page.keyboard.press("Tab");
  await expect(tonight).toBeFocused();
  await expect(tonight).toHaveCSS("outline-style", "solid");
  await page.keyboard.press("Enter");

  // The card says who decided what, and when; the buttons are gone; the focus is on the outcome.
  const outcome = decision.getByTestId("decision-outcome");
  await expect(outcome).toContainText("Approved by Maintainer · Deploy tonight");
  await expect(outcome.locator("time")).toHaveAttribute("datetime", /^\d{4}-\d\d-\d\dT/);
  await expect(outcome).toBeFocused();
  await expect(decision.getByRole("button")).toHaveCount(0);
  // The chat's quiet line, and the session's read: approved, with the choice.
  await expect(quietLine(page, "Maintainer approved: Deploy tonight — Deploy 0.2 to production?")).toHaveCount(1);
  expect(await sessionReads(request, approvalId)).toMatchObject({
    status: "approved",
    choice: "Deploy tonight",
    by: { id: "hum-maintainer", name: "Maintainer" },
  });
  await shot(page, "sessions-decision-approved", phone ? decision : undefined);
  await noSeriousAxe(page, "a decided card");

  // Reloaded, it stays decided (the hub's state, not the page's memory).
  await page.reload();
  await expect(card(page, question).getByTestId("decision-outcome")).toContainText(
    "Approved by Maintainer · Deploy tonight",
  );
  await expect(card(page, question).getByRole("button")).toHaveCount(0);
});

test("issue 30: an approval without options arrives live; a refusal is said in words; Deny decides it", async ({
  page,
  request,
}) => {
  await login(page, "maintainer", "maintainer-demo");
  await openChat(page);
  // Asked while the chat is open: the card comes with the live message.
  const question = "Tag v0.2.0 now?";
  const approvalId = await ask(request, question);
  const decision = card(page, question);
  await expect(decision).toBeVisible();
  const group = decision.getByRole("group", { name: "Your decision" });
  await expect(group.getByRole("button")).toHaveText(["Approve", "Deny"]);
  const deny = group.getByRole("button", { name: "Deny" });

  // The hub does not answer: the card says so in words, and the buttons stay.
  await page.route("**/api/trpc/approvals.decide**", (route) => route.abort());
  await deny.focus();
  await page.keyboard.press("Enter");
  await expect(decision.getByRole("alert")).toHaveText("The hub did not answer. Try again.");
  await expect(deny).toBeVisible();
  await page.unroute("**/api/trpc/approvals.decide**");

  // A slow answer: the buttons wait (aria-disabled, keeping the focus) and say what is on its way.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/api/trpc/approvals.decide**", async (route) => {
    await held;
    await route.continue();
  });
  await page.keyboard.press("Enter");
  await expect(deny).toHaveAttribute("aria-disabled", "true");
  await expect(group.getByRole("button", { name: "Approve" })).toHaveAttribute("aria-disabled", "true");
  await expect(deny).toBeFocused();
  await expect(decision).toContainText("Denying…");
  await expect(decision.getByRole("alert")).toHaveCount(0);
  // A second press while it waits sends nothing more.
  await page.keyboard.press("Enter");
  release();
  await expect(decision.getByTestId("decision-outcome")).toContainText("Denied by Maintainer");
  await expect(decision.getByRole("button")).toHaveCount(0);
  await page.unroute("**/api/trpc/approvals.decide**");
  await expect(quietLine(page, "Maintainer denied — Tag v0.2.0 now?")).toHaveCount(1);
  expect(await sessionReads(request, approvalId)).toMatchObject({ status: "denied", choice: null });
});

test("issue 30: decided elsewhere, the open cards change live; the guest waits without buttons and is refused", async ({
  page,
  browser,
  request,
}) => {
  await login(page, "maintainer", "maintainer-demo");
  await openChat(page);
  const question = "Roll back 0.1.9 first?";
  const approvalId = await ask(request, question, ["Yes, roll back", "No, keep it"]);
  const mine = card(page, question);
  await expect(mine.getByRole("button", { name: "Yes, roll back" })).toBeVisible();

  // The guest reads along (their agent is in the chat): waiting for the maintainer, no buttons.
  const guest = await signedIn(browser, "guest", "guest-demo");
  await openChat(guest);
  const theirs = card(guest, question);
  await expect(theirs).toContainText(`Asked by ${ASKER} · Maintainer decides`);
  await expect(theirs).toContainText("Waiting for Maintainer");
  await expect(theirs.getByRole("button")).toHaveCount(0);
  await theirs.scrollIntoViewIfNeeded();
  await shot(guest, "sessions-decision-waiting");
  await noSeriousAxe(guest, "a card waiting for someone else");

  // The hub refuses the guest's decision (only the approver decides), and a choice not offered.
  const guestToken = (await admin(request, "POST", "/tokens", { member_id: "hum-guest" })).token as string;
  const refused = await as(request, guestToken, "POST", `/api/approvals/${approvalId}`, {
    decision: "approved",
    choice: "No, keep it",
  });
  expect(refused.status).toBe(403);
  const maintainerToken = (await admin(request, "POST", "/tokens", { member_id: "hum-maintainer" })).token as string;
  const wrong = await as(request, maintainerToken, "POST", `/api/approvals/${approvalId}`, {
    decision: "approved",
    choice: "Maybe",
  });
  expect(wrong.status).toBe(400);

  // The maintainer decides over REST (another tab, a script): both open cards change, no reload.
  const decided = await as(request, maintainerToken, "POST", `/api/approvals/${approvalId}`, {
    decision: "approved",
    choice: "No, keep it",
  });
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  expect(decided.body).toMatchObject({ status: "approved", choice: "No, keep it", can_decide: false });
  for (const open of [mine, theirs]) {
    await expect(open.getByTestId("decision-outcome")).toContainText("Approved by Maintainer · No, keep it");
    await expect(open.getByRole("button")).toHaveCount(0);
  }
  // The quiet line reaches the chat's people live (its audience); the guest reads it on the next read.
  const line = "Maintainer approved: No, keep it — Roll back 0.1.9 first?";
  await expect(quietLine(page, line)).toHaveCount(1);
  await guest.reload();
  await expect(quietLine(guest, line)).toHaveCount(1);
  await expect(card(guest, question).getByTestId("decision-outcome")).toContainText(
    "Approved by Maintainer · No, keep it",
  );
  // Decided once: a second decision is refused.
  const again = await as(request, maintainerToken, "POST", `/api/approvals/${approvalId}`, { decision: "denied" });
  expect(again.status).toBe(409);
  await guest.context().close();
});

const sessionsSection = (page: Page) => page.getByRole("region", { name: "Your sessions" });
const sessionRow = (page: Page) => sessionsSection(page).getByRole("listitem").filter({ hasText: SESSION });

/** What the hub says of the maintainer's sessions (REST, the maintainer's own token). */
async function mySessions(request: APIRequestContext, token: string) {
  const res = await as(request, token, "GET", "/api/me/sessions");
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const mine = (res.body.items as { name: string }[]).find((s) => s.name === SESSION);
  expect(mine, "the session frontend in GET /api/me/sessions").toBeTruthy();
  return mine as { id: string; fresh_start_at_95: boolean; fresh_start: { state: string } | null };
}

test("issue 30: Your sessions lists the terminal; at 95 %, Start fresh… by keyboard; its badge in the chat", async ({
  page,
  browser,
  request,
}) => {
  const token = (await admin(request, "POST", "/tokens", { member_id: "hum-maintainer" })).token as string;
  expect(await mySessions(request, token)).toMatchObject({ fresh_start_at_95: false, fresh_start: null });

  // Your sessions, on Your agents: the session with its Bay, its computer and when it joined.
  await login(page, "maintainer", "maintainer-demo");
  await page.goto("/agents#sessions");
  const section = sessionsSection(page);
  await expect(section.getByRole("heading", { name: "Your sessions" })).toBeVisible();
  const row = sessionRow(page);
  await expect(row).toContainText("In maintainer · on e2e terminal");
  await expect(row).toContainText(/Last joined (just now|\d+ min ago)/);
  await expect(row.getByTestId("fresh-state")).toHaveCount(0);

  // The switch, by keyboard: on, said in a toast, kept by the hub (REST and after a reload).
  const auto = row.getByRole("switch", { name: "Start fresh by itself at 95 %" });
  await expect(auto).toHaveAttribute("aria-checked", "false");
  await auto.focus();
  await page.keyboard.press("Space");
  await expect(toast(page, "frontend starts fresh by itself at 95 %")).toBeVisible();
  await expect(auto).toHaveAttribute("aria-checked", "true");
  await expect(auto).toBeFocused();
  await expect.poll(async () => (await mySessions(request, token)).fresh_start_at_95).toBe(true);
  await page.reload();
  await expect(sessionRow(page).getByRole("switch", { name: "Start fresh by itself at 95 %" })).toHaveAttribute(
    "aria-checked",
    "true",
  );

  // Start fresh…, by keyboard: a visible focus ring; the row asks first and says what happens.
  const start = sessionRow(page).getByRole("button", { name: "Start fresh…" });
  await sessionRow(page).getByRole("switch").focus();
  await page.keyboard.press("Shift+Tab");
  await expect(start).toBeFocused();
  await expect(start).toHaveCSS("outline-style", "solid");
  await page.keyboard.press("Enter");
  await expect(start).toHaveAttribute("aria-expanded", "true");
  const confirm = sessionRow(page).getByRole("group", { name: "Confirm a fresh start of frontend" });
  await expect(confirm).toContainText(
    "It writes a handoff note first; nothing is cleared without a saved note; if none comes in 15 minutes " +
      "nothing happens.",
  );
  await shot(page, "sessions-fresh-confirm", section);
  await noSeriousAxe(page, "Your sessions, a fresh start to confirm");
  // Escape keeps it: nothing asked, the focus back on Start fresh….
  await confirm.getByRole("button", { name: "Yes, start fresh" }).focus();
  await page.keyboard.press("Escape");
  await expect(confirm).toHaveCount(0);
  await expect(start).toBeFocused();
  expect((await mySessions(request, token)).fresh_start).toBeNull();

  // Confirmed: the hub waits for the handoff note; the row says so.
  await page.keyboard.press("Enter");
  await confirm.getByRole("button", { name: "Yes, start fresh" }).focus();
  await page.keyboard.press("Enter");
  await expect(toast(page, "Fresh start of frontend asked")).toBeVisible();
  await expect(confirm).toHaveCount(0);
  await expect(start).toBeFocused();
  await expect(sessionRow(page).getByTestId("fresh-state")).toHaveText("Fresh start: Waiting for its handoff note");
  expect((await mySessions(request, token)).fresh_start).toMatchObject({ state: "awaiting_note" });
  await shot(page, "sessions-yours", section);
  await noSeriousAxe(page, "Your sessions");

  // A second one while it waits is refused, in words (409 under_way); Keep closes it. (The shot
  // dismissed the toast with a click: the focus is put back on the button first.)
  await start.focus();
  await page.keyboard.press("Enter");
  await confirm.getByRole("button", { name: "Yes, start fresh" }).click();
  await expect(confirm.getByRole("alert")).toHaveText("A fresh start is under way already.");
  await confirm.getByRole("button", { name: "Keep" }).click();
  await expect(start).toBeFocused();

  // Someone without sessions reads how to get one.
  const guest = await signedIn(browser, "guest", "guest-demo");
  await guest.goto("/agents");
  await expect(sessionsSection(guest)).toContainText(
    "No terminal sessions yet. Sign a computer in with maity login, then run maity mcp in Claude Code or Codex: " +
      "each terminal joins as a named session.",
  );
  await guest.context().close();

  // In the chat, the session's entry says whose it is: the header's people, and the People tab.
  await openChat(page);
  const header = page.locator("header").filter({ has: page.getByRole("list", { name: "Participants" }) });
  const people = header.getByRole("list", { name: "Participants" });
  const entry = people.getByRole("listitem").filter({ hasText: ASKER });
  await expect(entry.getByTestId("session-badge")).toHaveText("session of Maintainer");
  await expect(people.getByTestId("session-badge")).toHaveCount(1);
  await shot(page, "sessions-badge", header);
  await noSeriousAxe(page, "the chat with a session in it");
  await page.getByRole("button", { name: "Manage", exact: true }).focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: /^Manage/ });
  await dialog.getByRole("tab", { name: /^Details/ }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(dialog.getByRole("tab", { name: /^People/ })).toHaveAttribute("aria-selected", "true");
  const inDialog = dialog.getByRole("list", { name: "Participants" }).getByRole("listitem").filter({ hasText: ASKER });
  await expect(inDialog.getByTestId("session-badge")).toHaveText("session of Maintainer");
});
