import { expect, type Page, test } from "@playwright/test";
import { admin, as, list, login, person, titles } from "./helpers";

// The chat list: bands with headings, search, the pin on hover and in the row's menu,
// the segmented "Read along", relative times, Alt+↑/↓ between chats, the list kept mounted between
// chats, and the phone's two screens. Screenshots go to each test's output folder.

const VIEWPORTS = [
  { tag: "w", name: "1440x900", width: 1440, height: 900 },
  { tag: "p", name: "390x844", width: 390, height: 844 },
] as const;

/** A person with a project of its own and a colleague in it; `chats` made in order (the last is newest). */
async function room(request: Parameters<typeof person>[0], owner: string, colleagues: string[], chats: string[][]) {
  const me = await person(request, owner);
  const others = [];
  for (const c of colleagues) others.push(await person(request, c));
  await admin(request, "POST", "/projects", { owner, slug: "list", name: "List" });
  for (const o of others) await admin(request, "POST", `/projects/${owner}/list/members`, { member_id: o.id });
  const P = `/api/projects/${owner}/list/conversations`;
  const ids: Record<string, string> = {};
  for (const [title, ...with_] of chats) {
    const participants = with_.map((h) => `hum-${h}`);
    const made = await as(request, me.token, "POST", P, { title, participants });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    ids[title as string] = made.body.id;
  }
  return { me, others, P, ids };
}

/** Band headings and titles in the order the list shows them (textContent: the headings' CSS uppercases). */
const sequence = (page: Page) => list(page).locator("li.band h3, li.row .title").allTextContents();

for (const vp of VIEWPORTS) {
  test(`bands are separated by headings after pins and new messages, ${vp.name}`, async ({ page, request }, info) => {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    const { me, others, P, ids } = await room(
      request,
      `nora${vp.tag}`,
      [`olaf${vp.tag}`],
      ["Quiet pin", "Something new", "Pinned and new", "The rest"].map((t) => [t, `olaf${vp.tag}`]),
    );
    const olaf = others[0] as { token: string };
    await login(page, me.handle, me.password);
    // One band only: no headings.
    await expect.poll(() => sequence(page)).toEqual(["The rest", "Pinned and new", "Something new", "Quiet pin"]);
    for (const t of ["Quiet pin", "Pinned and new"]) await as(request, me.token, "PUT", `${P}/${ids[t]}/pin`);
    for (const t of ["Something new", "Pinned and new"])
      await as(request, olaf.token, "POST", `${P}/${ids[t]}/messages`, { body: `news in ${t}` });
    await page.reload();
    // §9.3: pinned with something new, something new, pinned, the rest.
    await expect
      .poll(() => sequence(page))
      .toEqual([
        "Pinned, with new messages",
        "Pinned and new",
        "New messages",
        "Something new",
        "Pinned",
        "Quiet pin",
        "Everything else",
        "The rest",
      ]);
    await expect(list(page).getByRole("heading", { name: "New messages", exact: true })).toBeVisible();
    const fresh = list(page).locator("li.row").filter({ hasText: "Something new" });
    await expect(fresh).toContainText("1 unread");
    await expect(fresh.locator(".preview")).toHaveText(new RegExp(`^olaf${vp.tag}: news in Something new$`, "i"));
    // Relative times, the full date on hover.
    const time = fresh.locator("time");
    await expect(time).toHaveText(/^(now|\d+ min)$/);
    expect(Number.isNaN(Date.parse((await time.getAttribute("datetime")) ?? ""))).toBe(false);
    expect(await time.getAttribute("title")).toMatch(/\d/);
    await page.screenshot({ path: info.outputPath(`bands-${vp.name}.png`) });
  });

  test(`the search filters by title and by participant, ${vp.name}`, async ({ page, request }, info) => {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    const { me } = await room(
      request,
      `pia${vp.tag}`,
      [`quinn${vp.tag}`, `rosa${vp.tag}`],
      [
        ["Alpha launch", `quinn${vp.tag}`],
        ["Budget", `rosa${vp.tag}`],
        ["Offsite", `quinn${vp.tag}`, `rosa${vp.tag}`],
      ],
    );
    await login(page, me.handle, me.password);
    await expect.poll(() => titles(page)).toEqual(["Offsite", "Budget", "Alpha launch"]);
    const search = page.getByRole("searchbox", { name: "Search conversations" });
    await search.fill("alpha");
    await expect.poll(() => titles(page)).toEqual(["Alpha launch"]);
    await expect(page.getByRole("status").filter({ hasText: "in 3 loaded" })).toHaveText(
      "1 match in 3 loaded conversations (all of them).",
    );
    await search.fill(`rosa${vp.tag}`);
    await expect.poll(() => titles(page)).toEqual(["Offsite", "Budget"]);
    await page.screenshot({ path: info.outputPath(`search-${vp.name}.png`) });
    await search.fill("nobody here");
    await expect(page.getByText("Nothing matches “nobody here”")).toBeVisible();
    await search.press("Escape");
    await expect(search).toHaveValue("");
    await expect.poll(() => titles(page)).toEqual(["Offsite", "Budget", "Alpha launch"]);
  });

  test(`"Read along" is a segmented control, ${vp.name}`, async ({ page }, info) => {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    await login(page, "guest", "guest-demo");
    const scope = page.getByRole("radiogroup", { name: "Which conversations" });
    await expect(scope.getByRole("radio", { name: "My chats" })).toHaveAttribute("aria-checked", "true");
    await expect(list(page).getByRole("link", { name: /Release 0\.2 go\/no-go/ })).toHaveCount(0);
    await scope.getByRole("radio", { name: "Read along" }).click();
    await expect(scope.getByRole("radio", { name: "Read along" })).toHaveAttribute("aria-checked", "true");
    const release = list(page).locator("li.row").filter({ hasText: "Release 0.2 go/no-go" });
    await expect(release).toContainText("reading along");
    // §9.3: an observer is never behind — no unread or mention badge.
    await expect(release).not.toContainText("unread");
    await page.screenshot({ path: info.outputPath(`read-along-${vp.name}.png`) });
    await scope.getByRole("radio", { name: "My chats" }).click();
    await expect(list(page).getByRole("link", { name: /Release 0\.2 go\/no-go/ })).toHaveCount(0);
  });
}

test("pin on hover, unpin and mark as read in the row's menu", async ({ page, request }, info) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const { me, others, P, ids } = await room(
    request,
    "sven",
    ["tova"],
    [
      ["First", "tova"],
      ["Second", "tova"],
    ],
  );
  await login(page, me.handle, me.password);
  await expect.poll(() => titles(page)).toEqual(["Second", "First"]);
  const first = list(page).locator("li.row").filter({ hasText: "First" });
  const pin = page.getByRole("button", { name: "Pin First" });
  await expect(pin).toHaveCSS("opacity", "0"); // shown on hover and focus only
  await first.hover();
  await expect(pin).toHaveCSS("opacity", "1");
  await page.screenshot({ path: info.outputPath("hover-pin.png") });
  await pin.click();
  await expect.poll(() => sequence(page)).toEqual(["Pinned", "First", "Everything else", "Second"]);
  await expect(page.getByRole("button", { name: "Unpin First" })).toHaveAttribute("aria-pressed", "true");
  // The "…" menu: Unpin.
  await page.getByRole("button", { name: "More actions for First" }).click();
  await expect(page.getByRole("menuitem", { name: "Copy link" })).toBeVisible();
  await page.screenshot({ path: info.outputPath("row-menu.png") });
  await page.getByRole("menuitem", { name: "Unpin" }).click();
  await expect.poll(() => sequence(page)).toEqual(["Second", "First"]);
  // Mark as read from the menu clears the badge (the hub's read marker moves).
  await as(request, (others[0] as { token: string }).token, "POST", `${P}/${ids.First}/messages`, { body: "ping" });
  const unread = list(page).locator("li.row").filter({ hasText: "First" });
  await expect(unread).toContainText("1 unread");
  await page.getByRole("button", { name: "More actions for First" }).click();
  await page.getByRole("menuitem", { name: "Mark as read" }).click();
  await expect(unread).not.toContainText("unread");
  await expect.poll(() => titles(page)).toEqual(["First", "Second"]);
});

test("Alt+↓ and Alt+↑ open the next and previous chat; the list stays mounted", async ({ page, request }, info) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const { me, ids } = await room(
    request,
    "ulla",
    ["vik"],
    [
      ["Third", "vik"],
      ["Second", "vik"],
      ["First", "vik"],
    ],
  );
  await login(page, me.handle, me.password);
  await expect.poll(() => titles(page)).toEqual(["First", "Second", "Third"]);
  // A mark on the list's element: still there after moving between chats means it never remounted.
  await list(page).evaluate((el) => el.setAttribute("data-e2e-mark", "kept"));
  await list(page)
    .getByRole("link", { name: /^First/ })
    .click();
  await expect(page).toHaveURL(new RegExp(`/c/${ids.First}$`));
  await expect(page.getByRole("heading", { name: "First" })).toBeVisible();
  await page.keyboard.press("Alt+ArrowDown");
  await expect(page).toHaveURL(new RegExp(`/c/${ids.Second}$`));
  await expect(page.getByRole("heading", { name: "Second" })).toBeVisible();
  await expect(list(page).getByRole("link", { name: /^Second/ })).toHaveAttribute("aria-current", "page");
  await page.keyboard.press("Alt+ArrowDown");
  await expect(page).toHaveURL(new RegExp(`/c/${ids.Third}$`));
  await page.keyboard.press("Alt+ArrowUp");
  await expect(page).toHaveURL(new RegExp(`/c/${ids.Second}$`));
  await expect(list(page)).toHaveAttribute("data-e2e-mark", "kept");
  // Arrow keys move between rows inside the list.
  await list(page)
    .getByRole("link", { name: /^First/ })
    .focus();
  await page.keyboard.press("ArrowDown");
  await expect(list(page).getByRole("link", { name: /^Second/ })).toBeFocused();
  await page.screenshot({ path: info.outputPath("alt-arrows.png") });
});

test("at 390×844 the list and the chat are two screens: list, chat, back", async ({ page }, info) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await login(page, "maintainer", "maintainer-demo");
  const chat = page.getByRole("region", { name: "Open conversation" });
  await expect(list(page)).toBeVisible();
  await expect(chat).toBeHidden();
  await page.screenshot({ path: info.outputPath("phone-list.png") });
  await list(page)
    .getByRole("link", { name: /Release 0\.2 go\/no-go/ })
    .click();
  await expect(page.getByRole("heading", { name: /Release 0\.2 go\/no-go/ })).toBeVisible();
  await expect(list(page)).toBeHidden();
  await expect(page.getByRole("link", { name: "Back to chats" })).toBeVisible();
  await page.screenshot({ path: info.outputPath("phone-chat.png") });
  await page.getByRole("link", { name: "Back to chats" }).click();
  await expect(list(page)).toBeVisible();
  await expect(chat).toBeHidden();
  // At 1440 the same route shows both side by side, without the back link.
  await page.setViewportSize({ width: 1440, height: 900 });
  await list(page)
    .getByRole("link", { name: /Release 0\.2 go\/no-go/ })
    .click();
  await expect(list(page)).toBeVisible();
  await expect(chat).toBeVisible();
  await expect(page.getByRole("link", { name: "Back to chats" })).toBeHidden();
  await page.screenshot({ path: info.outputPath("wide-chat.png") });
});
