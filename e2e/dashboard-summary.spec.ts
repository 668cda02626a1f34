import { copyFileSync, mkdirSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { admin, as, login } from "./helpers";

// The "Catch up" panel on the shipped server (DESIGN §4b "Summary", B-105…B-111): a release chat of
// 24 messages posted over REST; the person opens Catch up, which says the summary is derived and may
// be wrong, and reads again by itself until the hub's background generator has made one (never a
// fixed wait); the decision, the task with its owner; a decision's source jumps the chat to that
// message and highlights it; a new message is read again live. A short chat has none yet, and says
// why; it grows past 20 messages with the panel open and the summary comes. Runs at 1440×900 (light) and 390×844
// (dark): the screenshots go to e2e/artifacts/screens/ and docs/screens/. axe finds nothing serious.

const M = "/api/projects/maintainer/maity";

/** The release chat of packages/api/test/summary.int.test.ts: decisions, a task, questions, facts. */
const CHAT: ["maintainer" | "guest", string][] = [
  ["maintainer", "Morning! Let's plan the 2.4 release today."],
  ["guest", "The build currently takes 12 minutes on CI."],
  ["maintainer", "We decided to ship 2.4 on Friday."],
  ["guest", "Who will review the migration guide?"],
  ["maintainer", "@Guest will write the release notes."],
  ["guest", "Sounds good, I'll also update the changelog page."],
  ["maintainer", "The staging server is at https://staging.example.org for checks."],
  ["guest", "Should we drop Node 18 support in this release?"],
  ["maintainer", "Yes, we agreed to drop Node 18 support in 2.4."],
  ["guest", "Coverage went from 81% to 86% this week."],
  ["maintainer", "Nice work on the coverage."],
  ["guest", "What time is the freeze on Thursday?"],
  ["maintainer", "The freeze on Thursday starts at 16:00 UTC."],
  ["guest", "Noted, thanks."],
  ["maintainer", "Reminder: the release checklist lives in the wiki."],
  ["guest", "I'll run the smoke tests on staging tomorrow."],
  ["maintainer", "Great."],
  ["guest", "Do we announce on the blog?"],
  ["maintainer", "Let's go with a short blog post and a tweet."],
  ["guest", "The docs site had 3,200 visits yesterday."],
  ["maintainer", "Moving on to the website."],
  ["guest", "The new landing page loads in 850 ms."],
  ["maintainer", "Let's sync again on Wednesday."],
  ["guest", "See you then."],
];

async function shot(page: Page, name: string) {
  const wide = (page.viewportSize()?.width ?? 0) >= 1024;
  const file = `${wide ? "desktop-light" : "phone-dark"}-${name}`;
  await page.screenshot({ path: `e2e/artifacts/screens/${file}.png` });
  mkdirSync("docs/screens", { recursive: true });
  copyFileSync(`e2e/artifacts/screens/${file}.png`, `docs/screens/${file}.png`);
}

/** A group chat of the maintainer and the guest with `lines` posted over REST; the seqs, in order. */
async function releaseChat(request: APIRequestContext, title: string, lines: typeof CHAT) {
  const { token: maintainer } = await admin(request, "POST", "/tokens", { member_id: "hum-maintainer" });
  const { token: guest } = await admin(request, "POST", "/tokens", { member_id: "hum-guest" });
  const made = await as(request, maintainer, "POST", `${M}/conversations`, { title, participants: ["hum-guest"] });
  expect(made.status).toBe(201);
  const id = made.body.id as string;
  const seqs: number[] = [];
  for (const [who, body] of lines) {
    const sent = await as(
      request,
      who === "maintainer" ? maintainer : guest,
      "POST",
      `${M}/conversations/${id}/messages`,
      {
        body,
      },
    );
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    seqs.push(sent.body.seq);
  }
  return { id, seqs, maintainer, guest };
}

test("B-105 B-106 B-109 DESIGN §4b Catch up: the derived summary, re-read until made; sources jump to them", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const wide = (page.viewportSize()?.width ?? 0) >= 1024;
  const chat = await releaseChat(request, "Release 2.4 planning", CHAT);
  const decisionSeq = chat.seqs[2] as number;

  await login(page, "maintainer", "maintainer-demo");
  await page.goto(`/p/maintainer/maity/c/${chat.id}`);
  await expect(page.getByRole("heading", { name: "Release 2.4 planning" })).toBeVisible();
  const openCatchUp = page.getByRole("button", { name: "Catch up", exact: true });
  await openCatchUp.click();
  await expect(openCatchUp).toHaveAttribute("aria-expanded", "true");
  const panel = page.getByRole("complementary", { name: "Catch up" });
  await expect(panel).toBeVisible();
  // The panel takes the focus (its heading), and says plainly that a machine made it (B-109).
  await expect(panel.getByRole("heading", { name: "Catch up" })).toBeFocused();
  await expect(panel.getByRole("note")).toContainText("Derived — check the messages it cites");
  await expect(panel.getByRole("note")).toContainText("it may be wrong");
  // The first read may find none yet (it kicks the generator and never waits, B-111): the panel's
  // own re-reads bring it. Either way it says which.
  await expect(panel.getByText(/^(Not available yet|Up to date)$/)).toBeVisible();
  const decision = panel.getByRole("listitem").filter({ hasText: "We decided to ship 2.4 on Friday." });
  await expect(decision).toBeVisible({ timeout: 60_000 });
  await expect(panel.getByText("Up to date", { exact: true })).toBeVisible();
  await expect(panel.getByText("label: DERIVED_UNTRUSTED_CONTEXT")).toBeVisible();
  await expect(panel.getByText(/^Made by the built-in rules \(no model\), today \d/)).toBeVisible();
  await expect(panel.getByText(/Covers messages up to today \d/)).toBeVisible();

  // B-106: the lists, each item citing its messages; an open task with its owner and status.
  await expect(panel.getByRole("region", { name: /^Decisions/ })).toBeVisible();
  const task = panel
    .getByRole("region", { name: /^Open tasks/ })
    .getByRole("listitem")
    .filter({ hasText: "@Guest will write the release notes." });
  await expect(task).toBeVisible();
  await expect(task).toContainText("owner Guest");
  await expect(task).toContainText("status open");
  await expect(task.getByRole("button", { name: `Show message #${chat.seqs[4]} in the chat` })).toBeVisible();
  await expect(panel.getByRole("region", { name: /^Open questions/ })).toContainText("Do we announce on the blog?");
  await expect(panel.getByRole("region", { name: /^Facts/ })).toContainText("12 minutes on CI");
  await shot(page, "catch-up");
  await panel.getByRole("region", { name: /^Open tasks/ }).evaluate((el) => el.scrollIntoView({ block: "start" }));
  await shot(page, "catch-up-lists");

  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21aa", "best-practice"]).analyze();
  const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);

  // A decision's source: the chat scrolls to that message and highlights it (on a phone the panel,
  // which covers the chat, steps aside).
  const row = page.getByRole("list", { name: "Messages" }).locator(`li[data-seq="${decisionSeq}"]`);
  await decision.getByRole("button", { name: `Show message #${decisionSeq} in the chat` }).click();
  await expect(row).toBeInViewport();
  await expect(row).toHaveAttribute("data-highlighted", "true");
  await expect(row).toContainText("We decided to ship 2.4 on Friday.");
  if (!wide) await expect(panel).toHaveCount(0);
  await shot(page, "catch-up-source");

  // Live: a new message in the chat reads the summary again (it is fresh: no polling brings this).
  if (!wide) await openCatchUp.click();
  const before = await as(request, chat.maintainer, "GET", `${M}/conversations/${chat.id}/summary`);
  expect(before.body.status).toBe("fresh");
  const newer = (before.body.messages as unknown[]).length + 1;
  await expect(panel.getByText(/newer messages? follows? it|no newer messages/)).toBeVisible();
  await as(request, chat.guest, "POST", `${M}/conversations/${chat.id}/messages`, {
    body: "The release notes draft is in the wiki.",
  });
  await expect(
    panel.getByText(`${newer} newer ${newer === 1 ? "message follows" : "messages follow"} it`),
  ).toBeVisible();
});

test("DESIGN §4b Catch up, a short chat: none yet and why, then it comes by itself; Escape gives focus back", async ({
  page,
  request,
}) => {
  const chat = await releaseChat(request, "Quick sync", CHAT.slice(0, 5));
  await login(page, "maintainer", "maintainer-demo");
  await page.goto(`/p/maintainer/maity/c/${chat.id}`);
  const openCatchUp = page.getByRole("button", { name: "Catch up", exact: true });
  await openCatchUp.click();
  const panel = page.getByRole("complementary", { name: "Catch up" });
  await expect(panel.getByText("Not available yet", { exact: true })).toBeVisible();
  await expect(panel).toContainText("one is made once a chat has 20 messages (this one has 5)");
  await expect(panel.getByRole("region", { name: /^Decisions/ })).toHaveCount(0);
  await shot(page, "catch-up-none-yet");
  // The chat reaches 24 messages with the panel open: it reads again (on the live messages, then every
  // few seconds while the summary is being made) until the summary is there — no reload.
  for (const [who, body] of CHAT.slice(5)) {
    const token = who === "maintainer" ? chat.maintainer : chat.guest;
    await as(request, token, "POST", `${M}/conversations/${chat.id}/messages`, { body });
  }
  await expect(panel.getByRole("listitem").filter({ hasText: "We decided to ship 2.4 on Friday." })).toBeVisible({
    timeout: 60_000,
  });
  await expect(panel.getByText("Up to date", { exact: true })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
  await expect(openCatchUp).toBeFocused();
  await expect(openCatchUp).toHaveAttribute("aria-expanded", "false");
});
