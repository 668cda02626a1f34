import { copyFileSync, mkdirSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Locator, type Page } from "@playwright/test";

// What the dashboard specs share: a screenshot of the page under its toasts (into
// e2e/artifacts/screens/ and docs/screens/, named by profile), axe's serious findings, a toast.

export async function shot(page: Page, name: string, part?: Locator) {
  // The toasts said their piece (the test saw them); the screenshot shows the page under them.
  const open = page.locator('li[data-toast][data-state="open"]');
  while ((await open.count()) > 0) await open.first().getByRole("button", { name: "Dismiss" }).click();
  await expect(page.locator("li[data-toast]")).toHaveCount(0);
  const wide = (page.viewportSize()?.width ?? 0) >= 1024;
  const file = `${wide ? "desktop-light" : "phone-dark"}-${name}`;
  const path = `e2e/artifacts/screens/${file}.png`;
  if (part) await part.screenshot({ path });
  else await page.screenshot({ path, fullPage: true });
  mkdirSync("docs/screens", { recursive: true });
  copyFileSync(path, `docs/screens/${file}.png`);
}

export async function noSeriousAxe(page: Page, where: string) {
  const result = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  const bad = result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help}\n  ${v.nodes.map((n) => n.target.join(" ")).join("\n  ")}`);
  expect(bad, `${where}: serious or critical axe violations`).toEqual([]);
}

export const toast = (page: Page, text: string | RegExp) => page.locator("li[data-toast]").filter({ hasText: text });
