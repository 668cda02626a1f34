// Prints the WCAG contrast ratios of the token pairs that matter, per theme, as a Markdown table,
// and exits 1 if one falls below its requirement (4.5:1 for text, 3:1 for controls' parts).
// Run: node packages/ui/scripts/contrast.mjs
import { readFileSync } from "node:fs";

const css = readFileSync(new URL("../src/theme.css", import.meta.url), "utf8");
const block = (selector) => {
  const start = css.indexOf(selector);
  const body = css.slice(css.indexOf("{", start) + 1, css.indexOf("}", start));
  return Object.fromEntries([...body.matchAll(/--([\w-]+):\s*(#[0-9a-f]{6})/gi)].map((m) => [m[1], m[2]]));
};
const themes = { light: block('[data-theme="light"] {'), dark: block('[data-theme="dark"] {') };

const luminance = (hex) => {
  const [r, g, b] = [1, 3, 5]
    .map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const ratio = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

// [foreground, background, minimum, what it is]
const pairs = [
  ["text", "background", 4.5, "body text on the page"],
  ["text", "surface", 4.5, "text on panels"],
  ["text", "surface-2", 4.5, "text on a selected row / hover"],
  ["muted", "background", 4.5, "secondary text on the page"],
  ["muted", "surface", 4.5, "secondary text on panels"],
  ["muted", "surface-2", 4.5, "secondary text on a selected row, neutral badge"],
  ["accent-fg", "accent", 4.5, "primary button, unread badge"],
  ["accent-fg", "accent-hover", 4.5, "primary button, hovered"],
  ["danger-fg", "danger", 4.5, "danger button, mention badge"],
  ["danger-fg", "danger-hover", 4.5, "danger button, hovered"],
  ["danger-text", "background", 4.5, "error text on the page"],
  ["danger-text", "surface", 4.5, "error text on panels"],
  ["text", "accent-soft", 4.5, "mention highlight"],
  ["agent-text", "agent-soft", 4.5, "agent avatar initials"],
  ["agent-fg", "agent", 3, "bot mark on the agent badge (icon)"],
  ["text", "warning-soft", 4.5, "notes (observers line)"],
  ["border-strong", "surface", 3, "input, checkbox, switch boundary"],
  ["border-strong", "background", 3, "control boundary on the page"],
  ["focus", "background", 3, "focus ring on the page"],
  ["focus", "surface", 3, "focus ring on panels"],
  ["accent", "surface", 4.5, "links, accent text on panels"],
  ["accent", "background", 4.5, "links on the page"],
  ["muted", "accent-soft", 4.5, "secondary text on the open chat's row"],
  ["agent", "surface", 3, "agent mark on panels"],
];

let failed = false;
const rows = pairs.map(([fg, bg, min, what]) => {
  const cells = Object.entries(themes).map(([name, t]) => {
    const r = ratio(t[fg], t[bg]);
    if (r < min) {
      failed = true;
      console.error(`${name}: ${fg} on ${bg} is ${r.toFixed(2)}:1, needs ${min}:1`);
    }
    return `${r.toFixed(2)}:1`;
  });
  return `| \`${fg}\` on \`${bg}\` | ${what} | ${min}:1 | ${cells.join(" | ")} |`;
});
console.log("| pair | used for | needs | light | dark |\n| --- | --- | --- | --- | --- |");
console.log(rows.join("\n"));
process.exit(failed ? 1 : 0);
