import { type APIRequestContext, type Browser, expect, type Page, test } from "@playwright/test";
import { admin, as, login, person } from "./helpers";

// The open chat: it opens at the reader's place with a "New messages" divider, loads
// earlier lines as the reader scrolls up without moving what is on screen, and offers reply, copy
// link and remove in a message's menu, `@` autocompletion and "… is writing".

test.describe.configure({ mode: "serial" });

type Person = Awaited<ReturnType<typeof person>>;
let tia: Person;
let uma: Person;
let chat: string;
const P = "/api/projects/tia/long/conversations";
const seqs: Record<string, number> = {};

test.beforeAll(async ({ request }: { request: APIRequestContext }) => {
  tia = await person(request, "tia");
  uma = await person(request, "uma");
  await admin(request, "POST", "/projects", { owner: "tia", slug: "long", name: "Long" });
  await admin(request, "POST", "/projects/tia/long/members", { member_id: uma.id });
  chat = (await as(request, tia.token, "POST", P, { title: "Long talk", participants: [uma.id] })).body.id;
  const say = async (who: Person, body: string) => {
    const res = await as(request, who.token, "POST", `${P}/${chat}/messages`, { body });
    expect(res.status).toBe(201);
    seqs[body] = res.body.seq;
  };
  // 230 lines: Tia's own line 201 moves her read marker (§9.2), so 202…230 are new to her.
  for (let i = 1; i <= 200; i++) await say(uma, `line ${i}`);
  await say(tia, "line 201");
  for (let i = 202; i <= 230; i++) await say(uma, `line ${i}`);
});

const messages = (page: Page) => page.getByRole("list", { name: "Messages" });
const row = (page: Page, text: string) =>
  messages(page)
    .locator("li[data-seq]")
    .filter({ has: page.getByText(text, { exact: true }) });
async function openAs(browser: Browser, who: Person, viewport = { width: 1440, height: 900 }) {
  const context = await browser.newContext({ viewport });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const page = await context.newPage();
  await login(page, who.handle, who.password);
  return page;
}
async function menu(page: Page, text: string, item: string | RegExp) {
  const r = row(page, text);
  await r.scrollIntoViewIfNeeded();
  await r.hover();
  await r.getByRole("button", { name: /^Actions for message/ }).click();
  await page.getByRole("menuitem", { name: item }).click();
}

test("a long chat opens at the New messages divider; scrolling up loads earlier lines in place", async ({
  browser,
}, info) => {
  const page = await openAs(browser, tia);
  await page.goto(`/p/tia/long/c/${chat}`);
  const divider = page.getByRole("separator", { name: "New messages" });
  await expect(divider).toBeInViewport();
  await expect(row(page, "line 202")).toBeInViewport();
  // The divider sits right before the first unread line, after Tia's own.
  const around = await messages(page).evaluate((ol) => {
    const d = ol.querySelector('[data-divider="new"]');
    return [d?.previousElementSibling?.textContent ?? "", d?.nextElementSibling?.textContent ?? ""];
  });
  expect(around[0]).toContain("line 201");
  expect(around[1]).toContain("line 202");
  // Not the oldest lines (the chat once opened at its first line): line 1 is not loaded.
  await expect(row(page, "line 1")).toHaveCount(0);
  await page.screenshot({ path: info.outputPath("chat-opens-at-divider.png") });

  // Scroll to the top: a page of earlier lines comes, and the line that was on screen stays put.
  let rounds = 0;
  for (; rounds < 8; rounds++) {
    const before = await messages(page).evaluate((ol) => {
      const scroller = ol.parentElement as HTMLElement;
      scroller.scrollTop = 0;
      const first = ol.querySelector<HTMLElement>("li[data-seq]");
      return {
        seq: first?.dataset.seq ?? "",
        top: first?.getBoundingClientRect().top ?? 0,
        count: ol.querySelectorAll("li[data-seq]").length,
      };
    });
    if (before.count >= 230) break; // all there: the start of the chat
    await expect
      .poll(() => messages(page).evaluate((ol) => ol.querySelectorAll("li[data-seq]").length))
      .toBeGreaterThan(before.count);
    await page.waitForTimeout(100); // let the layout settle after the page is mounted
    const after = await messages(page).evaluate(
      (ol, seq) => ol.querySelector(`[data-seq="${seq}"]`)?.getBoundingClientRect().top ?? null,
      before.seq,
    );
    expect(after).not.toBeNull();
    expect(Math.abs((after ?? 0) - before.top)).toBeLessThanOrEqual(2);
  }
  expect(rounds).toBeGreaterThan(0);
  await expect(page.getByText("The start of the conversation.")).toBeVisible();
  await page.screenshot({ path: info.outputPath("chat-earlier-in-place.png") });
  await page.context().close();
});

test("reply through the hover menu quotes the original; the quote leads back to it", async ({ browser }, info) => {
  const page = await openAs(browser, tia);
  await page.goto(`/p/tia/long/c/${chat}`);
  await menu(page, "line 205", "Reply");
  await expect(page.getByRole("status").filter({ hasText: "Replying to Uma: line 205" })).toBeVisible();
  const box = page.getByRole("textbox", { name: "Message" });
  await expect(box).toBeFocused();
  await box.fill("answering 205");
  await box.press("Enter");
  const reply = row(page, "answering 205");
  await expect(reply).toBeVisible();
  await expect(reply.getByRole("button", { name: /Uma: line 205/ })).toBeVisible();
  await expect(page.getByText("Replying to Uma")).toHaveCount(0);
  await page.screenshot({ path: info.outputPath("chat-reply.png") });
  await reply.getByRole("button", { name: /Uma: line 205/ }).click();
  await expect(row(page, "line 205")).toHaveAttribute("data-highlighted", "true", { timeout: 15_000 });
  await expect(row(page, "line 205")).toBeInViewport();
  await page.context().close();
});

test("copy link, then open it: the chat scrolls to the line and highlights it, loading history if needed", async ({
  browser,
}, info) => {
  const page = await openAs(browser, tia);
  await page.goto(`/p/tia/long/c/${chat}`);
  await menu(page, "line 210", "Copy link");
  await expect(page.getByText("Link copied", { exact: true })).toBeVisible();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toMatch(new RegExp(`/p/tia/long/c/${chat}#m-${seqs["line 210"]}$`));
  const other = await page.context().newPage();
  await other.goto(link);
  await expect(row(other, "line 210")).toHaveAttribute("data-highlighted", "true", { timeout: 15_000 });
  await expect(row(other, "line 210")).toBeInViewport();
  // A line far back in the history: pages are loaded until it is there.
  await other.goto(`/p/tia/long/c/${chat}#m-${seqs["line 3"]}`);
  await expect(row(other, "line 3")).toHaveAttribute("data-highlighted", "true", { timeout: 15_000 });
  await expect(row(other, "line 3")).toBeInViewport();
  await other.screenshot({ path: info.outputPath("chat-link-opened.png") });
  await page.context().close();
});

test("@ autocompletion inserts the handle; the posted message shows the mention highlighted", async ({
  browser,
}, info) => {
  const page = await openAs(browser, tia);
  await page.goto(`/p/tia/long/c/${chat}`);
  const box = page.getByRole("textbox", { name: "Message" });
  await box.click();
  await box.pressSequentially("look @um");
  const options = page.getByRole("listbox", { name: "Mention someone" });
  await expect(options.getByRole("option", { name: /@uma/ })).toBeVisible();
  await expect(box).toHaveAttribute("aria-activedescendant", /option-0$/);
  await page.screenshot({ path: info.outputPath("chat-mention-list.png") });
  await box.press("Enter");
  await expect(box).toHaveValue("look @uma ");
  await expect(options).toHaveCount(0);
  await box.pressSequentially("here");
  await box.press("Enter");
  const posted = row(page, "look @uma here");
  await expect(posted.locator("mark")).toHaveText("@uma");
  // Esc closes the list and leaves the text as typed (the writer is never suggested to itself).
  await box.pressSequentially("@u");
  await expect(box).toHaveAttribute("aria-controls", /.+/);
  await box.press("Escape");
  await expect(page.getByRole("listbox", { name: "Mention someone" })).toHaveCount(0);
  await expect(box).toHaveValue("@u");
  await box.fill("");
  await page.context().close();
});

test("a second browser sees '<name> is writing…' while the first types", async ({ browser }, info) => {
  const tiaPage = await openAs(browser, tia);
  const umaPage = await openAs(browser, uma);
  await umaPage.goto(`/p/tia/long/c/${chat}`);
  await expect(row(umaPage, "line 230")).toBeVisible();
  await tiaPage.goto(`/p/tia/long/c/${chat}`);
  await expect(row(tiaPage, "line 230")).toBeVisible();
  await tiaPage.getByRole("textbox", { name: "Message" }).pressSequentially("still thinking");
  await expect(umaPage.locator("p.typing")).toHaveText("Tia is writing…");
  // Nobody is told they write themselves.
  await expect(tiaPage.locator("p.typing")).toHaveText("");
  await umaPage.screenshot({ path: info.outputPath("chat-typing.png") });
  await tiaPage.context().close();
  await umaPage.context().close();
});

test("removal through the message menu, at a phone's width", async ({ browser }, info) => {
  const page = await openAs(browser, tia, { width: 390, height: 844 });
  await page.goto(`/p/tia/long/c/${chat}`);
  await menu(page, "answering 205", /^Remove message/);
  await page.getByLabel("Reason (optional)").fill("not needed");
  await page.getByRole("button", { name: "Remove for everyone" }).click();
  await expect(messages(page)).toContainText("Message removed by Tia");
  await expect(row(page, "answering 205")).toHaveCount(0);
  // The composer stays reachable under the messages on a phone.
  const composer = page.getByRole("form", { name: "Composer" });
  await composer.scrollIntoViewIfNeeded();
  await expect(composer).toBeInViewport();
  await page.screenshot({ path: info.outputPath("chat-removed-phone.png") });
  await page.context().close();
});
