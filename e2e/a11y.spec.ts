import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, type TestInfo, test } from "@playwright/test";
import { list, login } from "./helpers";

// Accessibility: axe finds no serious or critical violation on the list, an open group chat,
// the new-group dialog, the manage dialog, the quick switcher and the agents page, in the light and
// the dark theme. A screenshot of each
// is kept in the test's output folder (e2e/artifacts/results/…).

async function audit(page: Page, info: TestInfo, name: string) {
  const result = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  await page.screenshot({ path: info.outputPath(`${name}.png`), fullPage: true });
  const summary = bad.map(
    (v) => `${v.impact} ${v.id}: ${v.help}\n  ${v.nodes.map((n) => n.target.join(" ")).join("\n  ")}`,
  );
  expect(summary, `${name}: serious or critical axe violations`).toEqual([]);
}

for (const theme of ["light", "dark"] as const) {
  test(`no serious or critical axe violation, ${theme} theme`, async ({ page }, info) => {
    test.setTimeout(120_000);
    // The theme as a reader would have chosen it: stored, and applied before the first paint.
    await page.addInitScript((t) => localStorage.setItem("maity-theme", t), theme);
    await login(page, "maintainer", "maintainer-demo");
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);

    await expect(list(page).getByRole("link", { name: /Release 0\.2 go\/no-go/ })).toBeVisible();
    await audit(page, info, `${theme}-list`);

    await list(page)
      .getByRole("link", { name: /Release 0\.2 go\/no-go/ })
      .click();
    await expect(page.getByRole("heading", { name: /Release 0\.2 go\/no-go/ })).toBeVisible();
    await expect(page.getByRole("list", { name: "Messages" }).locator("li").first()).toBeVisible();
    await audit(page, info, `${theme}-group-chat`);

    await page.getByRole("button", { name: "Manage", exact: true }).click();
    const manage = page.getByRole("dialog", { name: /^Manage/ });
    await expect(manage.getByLabel("Title")).toBeVisible();
    await audit(page, info, `${theme}-manage`);
    await manage.getByRole("tab", { name: "Replies" }).click();
    await expect(manage.getByRole("radio", { name: "Mentioned agents" })).toBeVisible();
    await audit(page, info, `${theme}-manage-replies`);
    await page.keyboard.press("Escape");
    await expect(manage).toHaveCount(0);

    await page.getByRole("button", { name: "New group chat" }).click();
    const dialog = page.getByRole("dialog", { name: "New group chat" });
    await expect(dialog.getByRole("form", { name: "New group chat" })).toBeVisible();
    await audit(page, info, `${theme}-new-group`);
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);

    await page.keyboard.press("Control+k");
    const switcher = page.getByRole("dialog", { name: "Search or jump to" });
    await expect(switcher.getByRole("option").first()).toBeVisible();
    await audit(page, info, `${theme}-quick-switcher`);
    await page.keyboard.press("Escape");
    await expect(switcher).toHaveCount(0);

    await page.getByRole("link", { name: "Your agents" }).click();
    await expect(page.getByRole("heading", { name: "Your agents" })).toBeVisible();
    await audit(page, info, `${theme}-agents`);
  });
}

test("the theme menu switches and remembers the theme", async ({ page }) => {
  await login(page, "maintainer", "maintainer-demo");
  await page.getByRole("button", { name: /^Theme/ }).click();
  await page.getByRole("menuitemradio", { name: "Dark" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.getByRole("button", { name: /^Theme/ }).click();
  await page.getByRole("menuitemradio", { name: "Light" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
});
