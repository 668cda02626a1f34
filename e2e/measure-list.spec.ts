import { writeFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { admin, as, list, login, person } from "./helpers";

// A measurement, not a timed test (issue 4 "Quality"): how long the list takes to render 500
// conversations. The numbers go to e2e/artifacts/list-500.json and docs/dashboard.md.
test("measure: the list with 500 conversations", async ({ page, request }, info) => {
  test.setTimeout(300_000);
  const mo = await person(request, "mo");
  const ned = await person(request, "ned");
  await admin(request, "POST", "/projects", { owner: "mo", slug: "many", name: "Many" });
  await admin(request, "POST", "/projects/mo/many/members", { member_id: ned.id });
  const P = "/api/projects/mo/many/conversations";
  for (let i = 1; i <= 500; i++) {
    const res = await as(request, mo.token, "POST", P, {
      title: `Conversation ${String(i).padStart(3, "0")}`,
      participants: [ned.id],
    });
    expect(res.status).toBe(201);
    if (i % 5 === 0)
      await as(request, ned.token, "POST", `${P}/${res.body.id}/messages`, {
        body: `A realistic line of chat number ${i}, long enough to be cut in the list preview at some point.`,
      });
  }
  await login(page, mo.handle, mo.password);
  const rows = list(page).locator("li.row");
  await page.goto("/");
  const t0 = Date.now();
  await expect(rows).toHaveCount(50);
  const firstPage = Date.now() - t0;
  const t1 = Date.now();
  // Each page comes by the button or by the sentinel scrolling into view (both may fire for one
  // click): count what arrived rather than assuming one page a click.
  let shown = 50;
  for (let round = 0; shown < 500 && round < 20; round++) {
    const more = page.getByRole("button", { name: "More conversations" });
    if (await more.isVisible()) await more.click({ timeout: 5_000 }).catch(() => {});
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBeGreaterThan(shown);
    shown = await rows.count();
  }
  await expect(rows).toHaveCount(500);
  const allPages = Date.now() - t1;
  const result = {
    conversations: 500,
    first_page_of_50_ms: firstPage,
    remaining_450_in_9_pages_ms: allPages,
    per_page_ms: Math.round(allPages / 9),
  };
  console.log(`list measurement: ${JSON.stringify(result)}`);
  writeFileSync("e2e/artifacts/list-500.json", `${JSON.stringify(result, null, 2)}\n`);
  await page.screenshot({ path: info.outputPath("list-500.png") });
});
