import { deflateSync } from "node:zlib";
import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, type Browser, expect, type Page, test } from "@playwright/test";
import { admin, as, login, person } from "./helpers";

// Attachments, cards, polls and reactions in the dashboard: files (an image inline, a PDF as a
// download row, with progress while uploading), an agent's calendar and email cards (the .ics
// download), a poll (create, vote, a second person's vote arriving live) and reactions (add, take
// back), axe on the chat with all of it.
// Needs the server branches (files-core, files-messages, polls-reactions) merged.

test.describe.configure({ mode: "serial" });

type Person = Awaited<ReturnType<typeof person>>;
let mia: Person;
let ned: Person;
let agentToken: string;
let chat: string;
let room: string;
const P = "/api/projects/mia/media";

/** A PNG from raw RGBA (a tiny encoder: signature, IHDR, one IDAT, IEND), so the test needs no fixture. */
function png(width: number, height: number, rgba: (x: number, y: number) => [number, number, number, number]) {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = (table[(c ^ b) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(rgba(x, y), y * (width * 4 + 1) + 1 + x * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
const chart = png(240, 160, (x, y) => [x, y, 200, 255]);
const pdf = Buffer.from(
  "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n" +
    "trailer<</Root 1 0 R>>\n%%EOF\n",
);

test.beforeAll(async ({ request }: { request: APIRequestContext }) => {
  mia = await person(request, "mia");
  ned = await person(request, "ned");
  await admin(request, "POST", "/projects", { owner: "mia", slug: "media", name: "Media" });
  await admin(request, "POST", `/projects/mia/media/members`, { member_id: ned.id });
  await admin(request, "POST", "/agents", { owner: "mia", handle: "courier", description: "Brings cards." });
  await admin(request, "POST", `/projects/mia/media/members`, { member_id: "agt-courier" });
  agentToken = (await admin(request, "POST", "/tokens", { member_id: "agt-courier" })).token;
  const made = await as(request, mia.token, "POST", `${P}/conversations`, {
    title: "Media talk",
    participants: [ned.id, "agt-courier"],
  });
  expect(made.status).toBe(201);
  chat = made.body.id;
  const rooms = (await as(request, agentToken, "GET", "/api/agent-api/conversations")).body.conversations as {
    id: string;
    maity: { id: string };
  }[];
  room = rooms.find((r) => r.maity.id === chat)?.id as string;
  expect(room).toBeTruthy();
});

const messages = (page: Page) => page.getByRole("list", { name: "Messages" });
const row = (page: Page, text: string | RegExp) =>
  messages(page)
    .locator("li[data-seq]")
    .filter({ has: page.getByText(text) });
async function openAs(browser: Browser, who: Person, viewport = test.info().project.use.viewport) {
  const context = await browser.newContext({ viewport: viewport ?? { width: 1440, height: 900 } });
  const page = await context.newPage();
  await login(page, who.handle, who.password);
  await page.goto(`/p/mia/media/c/${chat}`);
  await expect(messages(page)).toBeVisible();
  return page;
}

test("an image and a PDF: progress while uploading, then the image inline and the PDF as a download row", async ({
  browser,
}, info) => {
  const page = await openAs(browser, mia);
  // Hold the uploads a moment so their progress is seen (the bytes are local and fast).
  await page.route("**/api/projects/mia/media/attachments", async (route) => {
    await new Promise((r) => setTimeout(r, 600));
    await route.continue();
  });
  await page.locator('input[type="file"]').setInputFiles([
    { name: "chart.png", mimeType: "image/png", buffer: chart },
    { name: "report.pdf", mimeType: "application/pdf", buffer: pdf },
  ]);
  const files = page.getByRole("list", { name: "Files to send" });
  await expect(files.getByRole("progressbar", { name: "Uploading chart.png" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Uploading…" })).toBeDisabled();
  await expect(files.getByText("ready")).toHaveCount(2);
  await page.getByRole("textbox", { name: "Message" }).fill("The chart and the report");
  await page.getByRole("button", { name: "Send" }).click();
  const sent = row(page, "The chart and the report");
  // The image: inline, named by its file name (alt text), loaded from the content route.
  const image = sent.getByRole("img", { name: /chart\.(png|jpg)/ });
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  // The PDF: a download row with its name and size.
  const download = sent.getByRole("link", { name: "Download report.pdf" });
  await expect(download).toBeVisible();
  await expect(sent.getByText(/bytes · application\/pdf/)).toBeVisible();
  // The image opens full size in a dialog; Esc closes it.
  await sent.getByRole("button", { name: /Open chart\.(png|jpg) full size/ }).click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  // A type the hub does not take is refused before any upload, in words.
  await page.locator('input[type="file"]').setInputFiles([{ name: "tool.exe", mimeType: "x/y", buffer: pdf }]);
  await expect(page.getByRole("alert").filter({ hasText: "tool.exe: this type of file is not allowed" })).toBeVisible();
  await page.screenshot({ path: info.outputPath("media-files.png") });
});

test("a file dropped on the chat and a pasted screenshot are attached; pasted text stays text", async ({ browser }) => {
  const page = await openAs(browser, mia);
  const chatArea = page.getByRole("article", { name: "Media talk" });
  await chatArea.evaluate(
    (el, bytes) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], "dropped.pdf", { type: "application/pdf" }));
      el.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
      el.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    [...pdf],
  );
  const box = page.getByRole("textbox", { name: "Message" });
  // A screenshot on the clipboard arrives as "image.png": attached under a name of its own.
  await box.evaluate(
    (el, bytes) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], "image.png", { type: "image/png" }));
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    [...chart],
  );
  const files = page.getByRole("list", { name: "Files to send" });
  await expect(files.getByText("dropped.pdf")).toBeVisible();
  await expect(files.getByText(/^pasted-[\w-]+\.(png|jpg)$/)).toBeVisible();
  await expect(files.getByText("ready")).toHaveCount(2);
  await box.fill("Dropped and pasted");
  await page.getByRole("button", { name: "Send" }).click();
  const sent = row(page, "Dropped and pasted");
  await expect(sent.getByRole("link", { name: "Download dropped.pdf" })).toBeVisible();
  await expect(sent.getByRole("img", { name: /^pasted-/ })).toBeVisible();
  await expect(files).toHaveCount(0);
});

test("B-225 an agent's calendar and email cards render; Add to calendar downloads a standards .ics", async ({
  browser,
  request,
}) => {
  const page = await openAs(browser, mia);
  const send = (content: string, card: unknown) =>
    as(request, agentToken, "POST", `/api/agent-api/conversations/${room}/messages`, { content, card });
  expect(
    (
      await send("Release review, Monday 10:00", {
        type: "card.calendar",
        payload: {
          title: "Release review",
          start: "2026-12-07T10:00:00Z",
          end: "2026-12-07T10:45:00Z",
          location: "Room 4, floor 2",
          attendees: [{ name: "Mia", address: "mia@example.com" }],
          notes: "Bring the numbers.",
        },
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await send("Mail from Ops about the outage", {
        type: "card.email",
        payload: {
          subject: "Outage report",
          from: { name: "Ops", address: "ops@example.com" },
          snippet: "Short version: all good.",
          body: "Long version: the database restarted at 02:00 and came back at 02:03.",
          timestamp: "2026-12-05T08:00:00Z",
        },
      })
    ).status,
  ).toBe(201);
  const event = page.getByRole("region", { name: "Event: Release review" });
  // Both cards arrive live; on a busy machine (the whole suite) that can take longer than the default wait.
  await expect(event).toBeVisible({ timeout: 20_000 });
  await expect(event).toContainText("Room 4, floor 2");
  await expect(event).toContainText("Mia");
  const [file] = await Promise.all([
    page.waitForEvent("download"),
    event.getByRole("button", { name: "Add to calendar" }).click(),
  ]);
  expect(file.suggestedFilename()).toBe("Release-review.ics");
  const ics = await new Promise<string>((resolve, reject) => {
    void file.createReadStream().then((s) => {
      const parts: Buffer[] = [];
      s.on("data", (d: Buffer) => parts.push(d));
      s.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
      s.on("error", reject);
    });
  });
  expect(ics.startsWith("BEGIN:VCALENDAR\r\n")).toBe(true);
  expect(ics).toContain("\r\nDTSTART:20261207T100000Z\r\n");
  expect(ics).toContain("\r\nLOCATION:Room 4\\, floor 2\r\n");
  expect(ics).toMatch(/\r\nUID:[^\r\n]+\r\n/);

  const mail = page.getByRole("region", { name: "Email: Outage report" });
  await expect(mail).toContainText("From Ops <ops@example.com>", { timeout: 20_000 });
  await expect(mail).toContainText("Short version: all good.");
  await expect(mail.getByText(/database restarted/)).toBeHidden();
  await mail.getByRole("button", { name: "Show the whole email" }).click();
  await expect(mail.getByText(/database restarted/)).toBeVisible();
});

test("a poll: created in the dialog, voted, and another person's vote arrives live", async ({ browser, request }) => {
  const page = await openAs(browser, mia);
  await page.getByRole("button", { name: "Create poll" }).click();
  const dialog = page.getByRole("dialog", { name: "Create a poll" });
  await dialog.getByLabel("Question").fill("Ship on Friday?");
  await dialog.getByRole("textbox", { name: "Answer 1" }).fill("Yes");
  await dialog.getByRole("textbox", { name: "Answer 2" }).fill("yes");
  await dialog.getByRole("button", { name: "Create poll" }).click();
  await expect(dialog.getByRole("alert")).toContainText("Two answers say the same thing");
  await dialog.getByRole("textbox", { name: "Answer 2" }).fill("No");
  await dialog.getByRole("button", { name: "Add an answer" }).click();
  await dialog.getByRole("textbox", { name: "Answer 3" }).fill("Next week");
  await dialog.getByRole("button", { name: "Create poll" }).click();
  await expect(dialog).toHaveCount(0);
  const poll = page.getByRole("form", { name: "Poll: Ship on Friday?" });
  await expect(poll).toBeVisible();
  await poll.getByLabel("Yes").check();
  await poll.getByRole("button", { name: "Vote", exact: true }).click();
  await expect(poll).toContainText("1 voter");
  await expect(poll.getByText("your vote")).toBeVisible();

  // Ned votes over REST: the card follows live (message_changed).
  const list = await as(request, ned.token, "GET", `${P}/conversations/${chat}/messages?limit=50`);
  const pollId = (list.body.items as { poll?: { id: string } }[]).find((m) => m.poll)?.poll?.id as string;
  expect((await as(request, ned.token, "POST", `${P}/polls/${pollId}/vote`, { option_indexes: [1] })).status).toBe(200);
  await expect(poll).toContainText("2 voters");
  await expect(poll.getByRole("button", { name: /^1 · \d+%: voted by Ned$/ })).toBeVisible();

  // Change, then close: the card says it is final.
  await poll.getByLabel("Next week").check();
  await poll.getByRole("button", { name: "Change vote", exact: true }).click();
  await expect(poll.getByRole("button", { name: /^1 · \d+%: voted by you$/ })).toBeVisible();
  await poll.getByRole("button", { name: "Close poll" }).click();
  await expect(poll).toContainText("This poll is closed");
});

test("OQ-B-25 an agent's poll: a project admin in the chat closes it; a member who neither asked nor manages sees no Close", async ({
  browser,
  request,
}) => {
  // Ola holds members:admin in the project and joins the chat; Ned is a plain member.
  const ola = await person(request, "ola");
  await admin(request, "POST", "/projects/mia/media/members", { member_id: ola.id, permissions: ["members:admin"] });
  expect(
    (await as(request, mia.token, "POST", `${P}/conversations/${chat}/participants`, { member_id: ola.id })).status,
  ).toBeLessThan(300);
  const made = await as(request, agentToken, "POST", "/api/agent-api/polls", {
    conversationId: room,
    question: "Lunch at noon?",
    options: ["Yes", "No"],
  });
  expect(made.status).toBe(201);
  const nedPage = await openAs(browser, ned);
  const seen = nedPage.getByRole("form", { name: "Poll: Lunch at noon?" });
  await expect(seen).toBeVisible();
  await expect(seen.getByRole("button", { name: "Vote", exact: true })).toBeVisible();
  await expect(seen.getByRole("button", { name: "Close poll" })).toHaveCount(0);
  const page = await openAs(browser, ola);
  const poll = page.getByRole("form", { name: "Poll: Lunch at noon?" });
  await poll.getByRole("button", { name: "Close poll" }).click();
  await expect(poll).toContainText("This poll is closed");
  // The close reaches Ned's open chat live.
  await expect(seen).toContainText("This poll is closed", { timeout: 20_000 });
});

test("reactions: add one from the message's menu, see it pressed, take it back", async ({ browser }) => {
  const page = await openAs(browser, mia);
  const target = row(page, "The chart and the report");
  await target.hover();
  await target.getByRole("button", { name: /^Actions for message/ }).click();
  await page.getByRole("menuitem", { name: "Add reaction" }).click();
  await page.getByRole("toolbar", { name: "Add reaction" }).getByRole("button", { name: "React with 🎉" }).click();
  const chip = target.getByRole("list", { name: "Reactions" }).getByRole("button", { name: /^🎉 1: you/ });
  await expect(chip).toHaveAttribute("aria-pressed", "true");
  await chip.click();
  await expect(target.getByRole("list", { name: "Reactions" })).toHaveCount(0);
});

test("the chat with media: axe finds no serious or critical violation; screenshots light desktop and dark phone", async ({
  browser,
}, info) => {
  test.slow(); // two fresh browser contexts, each signing in and loading the whole chat with its media
  for (const [theme, viewport] of [
    ["light", { width: 1440, height: 900 }],
    ["dark", { width: 390, height: 844 }],
  ] as const) {
    const context = await browser.newContext({ viewport, colorScheme: theme });
    await context.addInitScript((t) => localStorage.setItem("maity-theme", t), theme);
    const page = await context.newPage();
    await login(page, mia.handle, mia.password);
    await page.goto(`/p/mia/media/c/${chat}`);
    await expect(page.getByRole("form", { name: "Poll: Ship on Friday?" })).toBeVisible({ timeout: 15_000 });
    const result = await new AxeBuilder({ page })
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
      .analyze();
    const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    await page.screenshot({ path: info.outputPath(`media-${theme}.png`), fullPage: true });
    await page.screenshot({ path: `e2e/artifacts/screens/media-${theme}-${viewport.width}.png` });
    expect(bad.map((v) => `${v.impact} ${v.id}: ${v.help}`)).toEqual([]);
    await context.close();
  }
});
