#!/usr/bin/env node
// Writes docs/requirements-coverage.md (M-ids, §9 conversations) and
// docs/requirements-coverage-agent.md (B-ids, the agent protocol) from the test names: every id
// with the tests whose title names it. Run: pnpm coverage:requirements (MAITY_REQUIREMENTS_DIR
// points at another copy of the requirements folder; --check fails when a committed document is
// stale).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const requirementsDir = process.env.MAITY_REQUIREMENTS_DIR ?? path.resolve(root, "../shared/requirements");

// Lines another issue owns: the dashboard (UI) and the agent protocol or sections §9 only refers to.
const ELSEWHERE = {
  "M-012": "§7 requests (talk answer) — not in this spec",
  "M-018": "§2.3 bridges — agent protocol",
  "M-059": "the agent's event cursor — agent protocol (/updates, /ws)",
  "M-060": "wait — agent protocol",
  "M-086": "§20.5 jour fixe — not in this spec",
  "M-159": "§5.3 pausing agents — agent protocol (no pause yet; posting needs no pause check)",
  "M-167": "wait/resume delivery — agent protocol",
  "M-209": "§5.2 resume packet — agent protocol",
  "M-226": "§18.2 counts — not in this spec",
  "M-228": "§5.2 resume packet, maity chats — agent protocol / CLI",
  "M-229": "resume packet / wait — agent protocol",
  "M-230": "wait payload — agent protocol",
  "M-231": "CLI (§13)",
  "M-232": "CLI (§13)",
  "M-233": "CLI (§13)",
  "M-234": "wait — agent protocol",
  "M-235": "generated rules (§6.9) — agent protocol",
  "M-236": "generated rules (§6.9) — agent protocol",
  "M-237": "generated rules (§6.9) — agent protocol",
  "M-238": "generated rules (§6.9) — agent protocol",
  "M-243": "§2.3 bridges — agent protocol",
  "M-244": "§5.2 resume packet — agent protocol",
  "M-245": "§5.3 pausing — agent protocol",
  "M-248": "§6.3 GET /agents — later",
  "M-249": "§6.9 rules — agent protocol",
  "M-250": "§6.18 wake rule — agent protocol",
  "M-251": "§7 requests — not in this spec",
  "M-257": "CLI (§13)",
  "M-258": "§18.2 counts — not in this spec",
  "M-259": "§20.5 jour fixe — not in this spec",
  "M-260": "context documents — no behaviour to test",
};

// The agent protocol (B-ids) not counted, each with its reason: whole sections not built yet and,
// within the built ones, lines not built yet, decided otherwise, or not server behaviour.
const LATER_SECTIONS = {
  22: "connectors — a later issue",
};
const AGENT_ELSEWHERE = {
  "B-001": "the served protocol document — a later issue",
  "B-002": "the served protocol document — a later issue",
  "B-008": "a promise about future versions (additive fields) — no behaviour to test",
  "B-013":
    "decided otherwise: the CLI's default base URL is the local hub, http://127.0.0.1:3000 (docs/cli.md); every route is under /api/agent-api",
  "B-032": "release policy — no behaviour to test",
  "B-033": "release policy — no behaviour to test",
  "B-034": "release policy — no behaviour to test",
  "B-084":
    "agent names are owner/handle (DESIGN §1), never several words; a human's multi-word name is Maity's mention (M-ids), and humans are not mentionable here (B-086)",
  "B-103": "the relay — a later issue",
  "B-353":
    "decided otherwise: this hub offers no web_search/web_fetch (no shared search key; no outside network): agents use their own search, as 004 asks first",
  "B-354": "decided otherwise: no web_search on this hub (B-353)",
  "B-121": "sessions open rooms with create_group (docs/sessions.md); an agent token has no such route (B-117)",
  "B-137": "decided otherwise: DESIGN §1 — a redaction takes effect on every surface at once, queued events included",
  "B-142": "a deployment without /updates — this hub has it",
  "B-160":
    "the relay's own device socket — a later issue; its registrations are on GET /api/device-api/sessions (B-331)",
  "B-180": "legacy audioUrl/fileUrl uploads — this hub never wrote them (docs/agent-api.md): nothing to sign in place",
  "B-178": "BayBrain — a later issue",
  "B-258": "the relay and its two computers — a later issue (sessions)",
  "B-259": "the relay's display of deltas — a client rule; the relay is a later issue",
  "B-273": "MCP listen_messages — this hub's MCP server offers no listen tool yet",
  "B-364": "timers collected from other lines — each is tested where it is owned",
  "B-365": "limits collected from other lines — each is tested where it is owned",
  "B-367": "web search — a later issue",
  "B-370": "restricted tool profile — a later issue",
  "B-371": "sessions — a later issue",
  "B-373": "handoff notes — a later issue",
  "B-378": "attachments (the reserved-type 400 is tested as RESERVED_MESSAGE_TYPE under B-118)",
  "B-383": "a deployment without /updates or /ws — this hub has both",
  "B-385": "relay handoff — a later issue",
};

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules" || e.name.startsWith(".")) return [];
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full) : [full];
  });
}

// Test titles: the first string argument of it/test/describe, and the row names of it.each tables.
const tests = new Map();
const testFiles = [
  ...walk(path.join(root, "packages")),
  ...walk(path.join(root, "apps")),
  ...walk(path.join(root, "e2e")),
].filter((f) => /\.(test|spec)\.ts$/.test(f) || /\.int\.test\.ts$/.test(f));
for (const file of testFiles) {
  const text = readFileSync(file, "utf8");
  const rel = path.relative(root, file);
  const titles = [];
  for (const m of text.matchAll(/\b(?:it|test|describe)(?:\.each\([\s\S]*?\))?\(\s*(["'`])((?:\\.|(?!\1)[^\\])*?)\1/g))
    titles.push(m[2]);
  for (const m of text.matchAll(/["'`]([MB]-\d{3}(?:\\.|[^"'`\\])*?)["'`]/g)) titles.push(m[1]);
  for (const title of new Set(titles)) {
    for (const [id] of title.matchAll(/[MB]-\d{3}/g)) {
      if (!tests.has(id)) tests.set(id, []);
      const list = tests.get(id);
      const entry = `${rel} › ${title.replace(/\|/g, "\\|").slice(0, 140)}`;
      if (!list.includes(entry)) list.push(entry);
    }
  }
}

/** One requirements file → its coverage document. */
function coverage({ file, out, prefix, heading, statusOf }) {
  let section = 0;
  const requirements = readFileSync(path.join(requirementsDir, file), "utf8")
    .split("\n")
    .flatMap((line) => {
      const header = /^## (\d+)\./.exec(line);
      if (header) section = Number(header[1]);
      const m = new RegExp(`^- (${prefix}-\\d{3}) (.*)$`).exec(line);
      return m
        ? [{ id: m[1], section, text: m[2].replace(/\s*\[[^\]]*\]\s*$/, "").replace(/\|/g, "\\|"), raw: m[2] }]
        : [];
    });
  const rows = requirements.map((r) => {
    const covering = tests.get(r.id) ?? [];
    return { ...r, covering, status: covering.length ? "covered" : (statusOf(r) ?? "**uncovered**") };
  });
  const count = (pred) => rows.filter(pred).length;
  const uncovered = rows.filter((r) => r.status === "**uncovered**");
  const doc = [
    heading,
    "",
    "Generated by `pnpm coverage:requirements` from the test titles (`scripts/requirements-coverage.mjs`);",
    "do not edit by hand. A test covers an id when its title names it.",
    "",
    `- ${rows.length} requirements: ${count((r) => r.status === "covered")} covered by tests, ${count((r) => r.status !== "covered" && r.status !== "**uncovered**")} owned elsewhere or not server behaviour (the status says which), ${uncovered.length} uncovered.`,
    "",
    "| id | requirement | status | tests |",
    "| --- | --- | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${r.id} | ${r.text.slice(0, 160)}${r.text.length > 160 ? "…" : ""} | ${r.status} | ${r.covering.join("<br>")} |`,
    ),
    "",
  ].join("\n");
  const target = path.join(root, out);
  if (process.argv.includes("--check")) {
    if (readFileSync(target, "utf8") !== doc) {
      console.error(`${out} is stale: run pnpm coverage:requirements`);
      process.exitCode = 1;
    }
  } else {
    writeFileSync(target, doc);
  }
  console.log(
    `${out}: ${rows.length} requirements, ${count((r) => r.status === "covered")} covered, ${uncovered.length} uncovered${uncovered.length ? `: ${uncovered.map((r) => r.id).join(" ")}` : ""}`,
  );
}

coverage({
  file: "maity-conversations.md",
  out: "docs/requirements-coverage.md",
  prefix: "M",
  heading: "# Requirements coverage: §9 Conversations (M-001 … M-260)",
  statusOf: (r) =>
    /^UI\b/.test(r.raw) ? "UI (dashboard issue)" : ELSEWHERE[r.id] ? `elsewhere: ${ELSEWHERE[r.id]}` : null,
});
coverage({
  file: "baychat-agent-protocol.md",
  out: "docs/requirements-coverage-agent.md",
  prefix: "B",
  heading: "# Requirements coverage: the agent protocol (B-001 … B-385)",
  statusOf: (r) =>
    LATER_SECTIONS[r.section]
      ? `later: ${LATER_SECTIONS[r.section]}`
      : AGENT_ELSEWHERE[r.id]
        ? `elsewhere: ${AGENT_ELSEWHERE[r.id]}`
        : /^(CLIENT|AGENT)\b/.test(r.raw)
          ? "client or agent guidance — the CLI/MCP issue"
          : null,
});
