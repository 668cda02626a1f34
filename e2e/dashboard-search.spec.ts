import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { admin, as, login, person } from "./helpers";
import { noSeriousAxe, shot } from "./shots";

// Message search in the dashboard (DESIGN §4d, issue 31): `/` focuses the header's search, typing
// finds messages in every chat the reader may read, grouped by chat with the match in <mark>;
// ↑/↓ move through them (a combobox's active option), Enter or a click opens the chat at the
// message — read with the history around it (messages.list `around`), scrolled into view and
// marked — and "Jump to latest" goes back to the live view. The quick switcher hands its words to
// search. Runs at 1440×900 (light) and 390×844 (dark): screenshots to docs/screens/*-search-*.png.

test.describe.configure({ mode: "serial" });

type Person = Awaited<ReturnType<typeof person>>;
let sol: Person;
let wren: Person;
const P = "/api/projects/sol/finds/conversations";
const chats: Record<string, string> = {};
const seqs: Record<string, number> = {};
const PERMIT = "The zebrafish permit arrived at the harbour office";
const FEEDING = "zebrafish feeding schedule is on the fridge";
const LONG = `${"Notes from the long planning call, where we went through every open item on the list, one by one. ".repeat(4)}In the end: the zebrafish tanks need a second filter before spring.`;
const PARTY = "🎉🎉 party for the axolotl crew on Friday";
const NEWEST = "sol has read it all";

test.beforeAll(async ({ request }: { request: APIRequestContext }) => {
  sol = await person(request, "sol");
  wren = await person(request, "wren");
  await admin(request, "POST", "/projects", { owner: "sol", slug: "finds", name: "Field finds" });
  await admin(request, "POST", "/projects/sol/finds/members", { member_id: wren.id });
  for (const title of ["Harbour plans", "Lab notes"]) {
    const res = await as(request, sol.token, "POST", P, { title, participants: [wren.id] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    chats[title] = res.body.id;
  }
  const say = async (who: Person, title: string, body: string) => {
    const res = await as(request, who.token, "POST", `${P}/${chats[title]}/messages`, { body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    seqs[body] = res.body.seq;
  };
  // Harbour plans: the match first, 68 lines after it, then Sol's own line (her read marker at the
  // end): the chat opens at its newest 50 lines, so the match is only there when read `around` it.
  await say(wren, "Harbour plans", PERMIT);
  for (let i = 1; i <= 68; i++) await say(wren, "Harbour plans", `harbour line ${i}`);
  await say(sol, "Harbour plans", NEWEST);
  await say(wren, "Lab notes", FEEDING);
  await say(wren, "Lab notes", LONG);
  await say(wren, "Lab notes", PARTY);
  await say(sol, "Lab notes", "sounds good");
});

const box = (page: Page) => page.getByRole("combobox", { name: "Search messages" });
const results = (page: Page) => page.getByRole("listbox", { name: /^Messages matching/ });
const messages = (page: Page) => page.getByRole("list", { name: "Messages" });
const row = (page: Page, seq: number) => messages(page).locator(`li[data-seq="${seq}"]`);
/** `/` from the page (focus on nothing that takes text). */
async function slash(page: Page) {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("/");
  await expect(box(page)).toBeFocused();
}
async function activeOption(page: Page): Promise<string | null> {
  const id = await box(page).getAttribute("aria-activedescendant");
  return id ? page.locator(`[id="${id}"]`).textContent() : null;
}

test("DESIGN §4d: / opens message search; results grouped by chat, the match in <mark>; ↑/↓ move, Enter opens the chat around the message", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await login(page, sol.handle, sol.password);
  await slash(page);
  await box(page).fill("zebrafish");
  const options = results(page).getByRole("option");
  await expect(options).toHaveCount(3);
  // Grouped by chat (title · project), newest chat first; each group's results newest first.
  const groups = results(page).getByRole("group");
  await expect(groups).toHaveCount(2);
  await expect(groups.nth(0)).toHaveAccessibleName(/Lab notes.*Field finds/);
  await expect(groups.nth(1)).toHaveAccessibleName(/Harbour plans.*Field finds/);
  await expect(groups.nth(0).getByRole("option")).toHaveCount(2);
  await expect(groups.nth(1).getByRole("option")).toContainText(["Wren"]);
  for (let i = 0; i < 3; i++) await expect(options.nth(i).locator("mark")).toHaveText(/^zebrafish$/i);
  // A long body shows a window around its match: the mark is on the lines shown, not cut off.
  const long = options.nth(0);
  await expect(long).toContainText("…");
  const clip = await long.locator("p").boundingBox();
  const mark = await long.locator("mark").boundingBox();
  expect(clip && mark && mark.y + mark.height <= clip.y + clip.height + 1).toBe(true);
  // Newest / Relevance.
  await expect(page.getByRole("radio", { name: "Newest" })).toHaveAttribute("aria-checked", "true");

  // ↑/↓ move the active option (aria-activedescendant), in the order shown.
  expect(await activeOption(page)).toBeNull();
  await box(page).press("ArrowDown");
  expect(await activeOption(page)).toContain("second filter");
  await expect(options.nth(0)).toHaveAttribute("aria-selected", "true");
  await box(page).press("ArrowDown");
  expect(await activeOption(page)).toContain(FEEDING);
  await box(page).press("ArrowDown");
  expect(await activeOption(page)).toContain(PERMIT);
  await box(page).press("ArrowUp");
  expect(await activeOption(page)).toContain(FEEDING);
  await expect(options.nth(1)).toHaveAttribute("aria-selected", "true");
  await expect(options.nth(2)).toHaveAttribute("aria-selected", "false");
  await box(page).press("ArrowDown");
  expect(await activeOption(page)).toContain(PERMIT);
  await expect(options.nth(2)).toBeInViewport();
  await shot(page, "search-results");
  await noSeriousAxe(page, "message search results");

  // Enter opens the chat read around the message (it is far behind the newest 50 lines).
  const around = page.waitForRequest(
    (r) => r.url().includes("messages.list") && decodeURIComponent(r.url()).includes('"around"'),
  );
  await box(page).press("Enter");
  await around;
  await expect(page).toHaveURL(new RegExp(`/p/sol/finds/c/${chats["Harbour plans"]}#m-${seqs[PERMIT]}$`));
  await expect(results(page)).toHaveCount(0);
  const target = row(page, seqs[PERMIT] ?? 0);
  await expect(target).toHaveAttribute("data-jumped", "true");
  await expect(target).toHaveAttribute("aria-current", "true");
  await expect(target).toBeInViewport();
  // Around it: the start of the chat above, the newest line not loaded yet; the way back offered.
  await expect(page.getByText("The start of the conversation.")).toBeVisible();
  await expect(messages(page).getByText(NEWEST, { exact: true })).toHaveCount(0);
  const latest = page.getByRole("button", { name: "Jump to latest" });
  await expect(latest).toBeVisible();
  await page.mouse.move(0, 0); // no row under the pointer in the screenshot
  await shot(page, "search-jumped");

  // "Jump to latest": the live view, at the newest line; the mark let go of.
  await latest.click();
  await expect(messages(page).getByText(NEWEST, { exact: true })).toBeInViewport();
  await expect(latest).toHaveCount(0);
  await expect(messages(page).locator('[data-jumped="true"]')).toHaveCount(0);

  // A result of the chat already open: the chat jumps again; scrolling down reads the newer lines.
  await slash(page);
  await box(page).fill("permit harb");
  await expect(results(page).getByRole("option")).toHaveCount(1);
  await expect(results(page).locator("mark")).toHaveText(["permit", "harbour"]);
  await box(page).press("Enter");
  await expect(target).toHaveAttribute("data-jumped", "true");
  await expect(target).toBeInViewport();
  await expect(messages(page).getByText(NEWEST, { exact: true })).toHaveCount(0);
  await expect
    .poll(
      async () => {
        await messages(page).evaluate((ol) => {
          const scroller = ol.parentElement as HTMLElement;
          scroller.scrollTop = scroller.scrollHeight;
        });
        return messages(page).getByText(NEWEST, { exact: true }).count();
      },
      { timeout: 20_000 },
    )
    .toBe(1);
  await expect(messages(page).getByText("harbour line 60", { exact: true })).toHaveCount(1);
});

test("DESIGN §4d: a match after emoji marks exactly the word; an invalid query says why; Esc returns focus; the quick switcher hands its words to search; a click opens", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await login(page, sol.handle, sol.password);
  // `/` from a link; Esc gives focus back to it.
  const chatsLink = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Chats/ });
  await chatsLink.focus();
  await page.keyboard.press("/");
  await expect(box(page)).toBeFocused();
  await box(page).fill("axolotl");
  const option = results(page).getByRole("option");
  await expect(option).toHaveCount(1);
  // Highlights count code points: the two emoji before the word do not shift the mark.
  await expect(option.locator("mark")).toHaveText(["axolotl"]);
  await expect(option).toContainText(PARTY);

  // Relevance orders the same matches by rank; the toggle keeps the field focused.
  await page.getByRole("radio", { name: "Relevance" }).click();
  await expect(page.getByRole("radio", { name: "Relevance" })).toHaveAttribute("aria-checked", "true");
  await expect(box(page)).toBeFocused();
  await expect(option).toHaveCount(1);

  // Paging: 68 lines match "harbour line"; 20 come first, "More results" reads on with the cursor.
  await box(page).fill("harbour line");
  await expect(option).toHaveCount(20);
  await page.getByRole("button", { name: "More results" }).click();
  await expect(option).toHaveCount(40);
  await expect(box(page)).toBeFocused();
  await expect(page.getByText("40+ messages in 1 chat")).toBeVisible();

  // A query the hub refuses: its reason under the field, no crash.
  await box(page).fill("zebrafish has:nothing");
  const error = page.getByRole("alert").filter({ hasText: "has: is one of file, poll, card" });
  await expect(error).toBeVisible();
  await expect(box(page)).toHaveAttribute("aria-invalid", "true");
  // Nothing found.
  await box(page).fill("quetzalcoatl");
  await expect(page.getByText("No messages match “quetzalcoatl”.")).toBeVisible();
  await expect(box(page)).not.toHaveAttribute("aria-invalid", "true");

  await page.keyboard.press("Escape");
  await expect(page.getByText("No messages match “quetzalcoatl”.")).toHaveCount(0);
  await expect(chatsLink).toBeFocused();

  // The quick switcher: "Search messages for “…”" opens search with those words.
  await page.keyboard.press("Control+k");
  const dialog = page.getByRole("dialog", { name: "Search or jump to" });
  await dialog.getByRole("combobox").fill("axolotl");
  await dialog.getByRole("option", { name: /Search messages for “axolotl”/ }).click();
  await expect(dialog).toHaveCount(0);
  await expect(box(page)).toBeFocused();
  await expect(box(page)).toHaveValue("axolotl");
  await expect(option).toHaveCount(1);

  // A click opens too: the chat, the message in view and marked.
  await option.click();
  await expect(page).toHaveURL(new RegExp(`/p/sol/finds/c/${chats["Lab notes"]}#m-${seqs[PARTY]}$`));
  const target = row(page, seqs[PARTY] ?? 0);
  await expect(target).toHaveAttribute("data-jumped", "true");
  await expect(target).toBeInViewport();
  // The reader moving on lets go of the mark.
  await messages(page).getByText("sounds good", { exact: true }).click();
  await expect(target).not.toHaveAttribute("data-jumped", "true");
});

test("DESIGN §4d opening a result far above the read marker marks nothing read until the reader is back at the marker", async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  // Backlog: Sol read up to her own line; 150 of Wren's lines after it are unread (one mentions her).
  // The result (line 60) is opened with the 100 lines around it: lines 11…110, so lines 1…10 —
  // unread, never shown — lie between her read marker and the page.
  const created = await as(request, sol.token, "POST", P, { title: "Backlog review", participants: [wren.id] });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const chat: string = created.body.id;
  const say = async (who: Person, body: string) => {
    const res = await as(request, who.token, "POST", `${P}/${chat}/messages`, { body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.seq as number;
  };
  for (let i = 1; i <= 5; i++) await say(wren, `read line ${i}`);
  await say(sol, "caught up to here");
  let quokka = 0;
  for (let i = 1; i <= 150; i++) {
    const body =
      i === 5 ? "backlog line 5 for @sol" : i === 60 ? "backlog line 60 about the quokka census" : `backlog line ${i}`;
    const seq = await say(wren, body);
    if (i === 60) quokka = seq;
  }
  // Sol's counters as the hub keeps them (the read marker: every line after it is Wren's).
  const counters = async () => {
    const res = await as(request, sol.token, "GET", P);
    const item = (res.body.items as { id: string; unread: number; mentions_unread: number }[]).find(
      (c) => c.id === chat,
    );
    return { unread: item?.unread, mentions_unread: item?.mentions_unread };
  };
  expect(await counters()).toEqual({ unread: 150, mentions_unread: 1 });

  await login(page, sol.handle, sol.password);
  await slash(page);
  await box(page).fill("quokka");
  await expect(results(page).getByRole("option")).toHaveCount(1);
  await box(page).press("Enter");
  const target = row(page, quokka);
  await expect(target).toHaveAttribute("data-jumped", "true");
  await expect(target).toBeInViewport();
  const line = (text: string) => messages(page).getByText(text, { exact: true });
  await expect(line("backlog line 11")).toHaveCount(1);
  await expect(line("backlog line 10")).toHaveCount(0);
  await expect(line("backlog line 150")).toHaveCount(0);

  // (b) Scrolling down reads the newer lines — as history, not the window that moves the marker.
  const marking: string[] = [];
  page.on("request", (r) => {
    const url = decodeURIComponent(r.url());
    if (url.includes("messages.markRead") || (url.includes("messages.list") && url.includes('"after"')))
      marking.push(url);
  });
  await expect
    .poll(
      async () => {
        await messages(page).evaluate((ol) => {
          const scroller = ol.parentElement as HTMLElement;
          scroller.scrollTop = scroller.scrollHeight;
        });
        return line("backlog line 150").count();
      },
      { timeout: 20_000 },
    )
    .toBe(1);
  // (a) A live line while the newest is loaded: shown, not read.
  await say(wren, "a live line from Wren");
  await expect(line("a live line from Wren")).toBeVisible();
  await page.waitForTimeout(1_500); // the live read's debounce (400 ms) and its request
  // (c) The marker has not moved: 150 + the live line unread, the mention too.
  expect(await counters()).toEqual({ unread: 151, mentions_unread: 1 });
  expect(marking).toEqual([]);

  // "Jump to latest" (offered at the newest too): the normal opening, from the read marker with
  // the "New messages" divider before line 1; that read moves the marker as opening the chat does.
  await page.getByRole("button", { name: "Jump to latest" }).click();
  await expect(page.getByRole("separator", { name: "New messages" })).toBeVisible();
  const around = await messages(page).evaluate((ol) => {
    const d = ol.querySelector('[data-divider="new"]');
    return [d?.previousElementSibling?.textContent ?? "", d?.nextElementSibling?.textContent ?? ""];
  });
  expect(around[0]).toContain("caught up to here");
  expect(around[1]).toMatch(/backlog line 1(?!\d)/);
  await expect(line("a live line from Wren")).toBeInViewport();
  await expect(page.getByRole("button", { name: "Jump to latest" })).toHaveCount(0);
  await expect.poll(counters, { timeout: 10_000 }).toEqual({ unread: 0, mentions_unread: 0 });
});
