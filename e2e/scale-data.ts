import type { APIRequestContext } from "@playwright/test";
import { admin, as, person } from "./helpers";

// The data of measure-scale.spec.ts, made through the hub's public routes (operator routes for the
// people and projects, REST for chats and messages), so every invariant — log seqs, participations,
// read markers, conversation heads, mentions, routing verdicts — is the hub's own. Measured on 2
// cores: a group creation takes ~33 ms whatever the concurrency (each write holds the log's append
// lock), a post ~6 ms with 8 in flight; 5,000 chats and 12,000 posts take about 4 minutes.

/** A small seeded PRNG (mulberry32): the same text on every run, so runs compare. */
export function random(seed: number) {
  let s = seed | 0;
  const next = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return { next, pick, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}
type Random = ReturnType<typeof random>;

const SHORT = [
  "ok",
  "on it",
  "thanks!",
  "lgtm 👍",
  "merging",
  "can you look?",
  "done",
  "back in 10",
  "+1",
  "agreed",
  "hmm, not sure",
  "ship it",
  "🎉",
  "yes",
  "no, wait",
  "nice catch",
  "will do",
  "ack",
];
const SUBJECTS = [
  "The release branch",
  "CI on main",
  "The migration",
  "Our webhook receiver",
  "The list query",
  "The login page",
  "The search box",
  "Yesterday's deploy",
  "The nightly backup",
  "The flaky transport test",
  "The new onboarding flow",
  "Billing's export",
  "The café's Wi-Fi",
  "The design review",
  "The staging database",
  "Jürgen's patch",
  "The mobile layout",
  "The rate limiter",
];
const PREDICATES = [
  "is green again",
  "fails on the PGlite run",
  "needs one more review",
  "takes 480 ms a page",
  "was rolled back last night",
  "looks good to me",
  "times out behind the proxy",
  "is blocked on the schema change",
  "doubled a message after a reconnect",
  "works on my machine",
  "is ready for QA",
  "broke the dark theme",
  "needs a changelog entry",
  "is slower than last week",
  "lost its read markers",
  "passes with the fix applied",
];
const TAILS = [
  "",
  "",
  "",
  " — can someone confirm?",
  ", see the trace in the artifacts.",
  " I will pick it up after lunch.",
  " (again)",
  ". Not urgent.",
  "; I opened an issue.",
  "! Finally.",
  " — details in the doc.",
  ". Any objections?",
];
const ITEMS = [
  "rerun the e2e suite",
  "bump the lockfile",
  "write the migration note",
  "ask support about the ticket",
  "check the p95 on staging",
  "pair on the flaky test",
  "update the screenshots",
  "review the API contract",
  "tag 0.3.0-rc.1",
  "clean up the feature flag",
];
const CODE = [
  "pnpm exec playwright test e2e/measure-scale.spec.ts",
  "SELECT count(*) FROM events WHERE kind = 'message';",
  "curl -s localhost:3000/api/health | jq .database",
  "git bisect run pnpm test:unit",
  "const rows = await db.event.findMany({ take: 50 });",
];
const TOPICS = [
  "Release",
  "Incident",
  "Design review",
  "Onboarding",
  "Roadmap",
  "Bug triage",
  "Customer call",
  "Billing",
  "Search",
  "Mobile",
  "Hiring",
  "Security",
  "Docs",
  "Performance",
  "Support rota",
];
const QUALIFIERS = [
  "notes",
  "follow-up",
  "planning",
  "retro",
  "sync",
  "questions",
  "war room",
  "next steps",
  "draft",
  "decisions",
];

function sentence(r: Random): string {
  return `${r.pick(SUBJECTS)} ${r.pick(PREDICATES)}${r.pick(TAILS)}`.replace(/([^.!?])$/, "$1.");
}

/** A chat line: mostly short or a sentence or two, some lists and code, a few long paragraphs. */
export function body(r: Random): string {
  const roll = r.next();
  if (roll < 0.28) return r.pick(SHORT);
  if (roll < 0.7) return Array.from({ length: r.int(1, 3) }, () => sentence(r)).join(" ");
  if (roll < 0.85)
    return `Plan for today:\n${Array.from({ length: r.int(2, 5) }, () => `- ${r.pick(ITEMS)}`).join("\n")}`;
  if (roll < 0.94) return `${sentence(r)}\n\n\`\`\`\n${r.pick(CODE)}\n\`\`\``;
  const paragraphs = Array.from({ length: r.int(3, 7) }, () =>
    Array.from({ length: r.int(3, 6) }, () => sentence(r)).join(" "),
  );
  return paragraphs.join("\n\n");
}

export function title(r: Random, n: number): string | undefined {
  // One chat in ten has no title: the list names it by its participants.
  return r.next() < 0.1 ? undefined : `${r.pick(TOPICS)} ${r.pick(QUALIFIERS)} #${n}`;
}

/** Runs `count` calls with at most `inFlight` at once (REST has no bulk route, by design). */
export async function pool(count: number, inFlight: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
}

export const READER = "sam";
const COLLEAGUES = ["ivy", "raj", "noa", "tom"] as const;
const PROJECTS = ["Platform", "Web", "Mobile", "Billing", "Search", "Infra", "Docs", "Support", "Growth", "Research"];
export const CHAT_PROJECT = { owner: READER, slug: "scale-01" };
// §1.7: 60 pings a writer per 10 minutes by default; the whole build fits in one window, so each
// writer mentions at most this many times across it (mentions stay "some", never refused).
const PINGS_PER_WRITER = 50;

export type ScaleData = {
  reader: { handle: string; password: string; token: string };
  chat: { owner: string; slug: string; id: string; messages: number };
  conversations: number;
  timings_ms: {
    people_and_projects: number;
    conversations: number;
    previews: number;
    chat_messages: number;
    total: number;
  };
};

/**
 * 5,000 conversations for one human over 10 projects (the e2e quota is 1,000 open group chats a
 * project), one in five with an unread line from a colleague and one in five with the reader's
 * own; one of them, "Platform team", holds 10,000 messages from five people, the last 40 unread.
 */
export async function buildScaleData(
  request: APIRequestContext,
  sizes = { conversations: 5_000, messages: 10_000, inFlight: 8 },
): Promise<ScaleData> {
  const r = random(15);
  const started = Date.now();
  let t = started;
  const lap = () => {
    const now = Date.now();
    const ms = now - t;
    t = now;
    return ms;
  };
  const reader = await person(request, READER);
  const people = new Map([[reader.id, reader]]);
  for (const handle of COLLEAGUES) {
    const p = await person(request, handle);
    people.set(p.id, p);
  }
  const colleagues = [...people.values()].filter((p) => p.id !== reader.id);
  // Ivy's agent, not the reader's: the reader's own agent would add a direct chat to the 5,000.
  const agent = await admin(request, "POST", "/agents", {
    owner: "ivy",
    handle: "scale-helper",
    description: "Answers questions about the release.",
  });
  const projects = PROJECTS.map((name, i) => ({
    owner: READER,
    slug: `scale-${String(i + 1).padStart(2, "0")}`,
    name,
  }));
  for (const p of projects) {
    await admin(request, "POST", "/projects", p);
    for (const c of colleagues)
      await admin(request, "POST", `/projects/${p.owner}/${p.slug}/members`, { member_id: c.id });
  }
  await admin(request, "POST", `/projects/${CHAT_PROJECT.owner}/${CHAT_PROJECT.slug}/members`, { member_id: agent.id });
  const peopleAndProjects = lap();

  const pings = new Map<string, number>();
  const mention = (writer: { id: string }, handle: string) => {
    const spent = pings.get(writer.id) ?? 0;
    if (spent >= PINGS_PER_WRITER) return "";
    pings.set(writer.id, spent + 1);
    return `@${handle} `;
  };
  const path = (p: { owner: string; slug: string }) => `/api/projects/${p.owner}/${p.slug}/conversations`;

  // The big chat first, so the list's other 4,999 are spread over the projects round-robin.
  const everyone = [...colleagues.map((c) => c.id), agent.id];
  const created = await as(request, reader.token, "POST", path(CHAT_PROJECT), {
    title: "Platform team",
    participants: everyone,
  });
  if (created.status !== 201) throw new Error(`the big chat: ${created.status} ${JSON.stringify(created.body)}`);
  const chat = { ...CHAT_PROJECT, id: created.body.id as string, messages: sizes.messages };
  const chats: { project: (typeof projects)[number]; id: string; with: typeof colleagues }[] = [];
  const plans = Array.from({ length: sizes.conversations - 1 }, (_, i) => {
    const others = [...colleagues].sort(() => r.next() - 0.5).slice(0, r.int(1, 3));
    return {
      project: projects[i % projects.length] as (typeof projects)[number],
      title: title(r, i + 1),
      with: others,
    };
  });
  await pool(plans.length, sizes.inFlight, async (i) => {
    const plan = plans[i] as (typeof plans)[number];
    const res = await as(request, reader.token, "POST", path(plan.project), {
      ...(plan.title ? { title: plan.title } : {}),
      participants: plan.with.map((p) => p.id),
    });
    if (res.status !== 201) throw new Error(`conversation ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    chats[i] = { project: plan.project, id: res.body.id, with: plan.with };
  });
  const conversations = lap();

  // Previews: a colleague's line (unread, a few mention the reader) in one chat in five, the
  // reader's own in another one in five; the rest stay "No messages yet".
  const previews = chats.flatMap((c, i) => {
    const from = c.with[0];
    if (i % 5 === 0 && from) return [{ c, from, text: `${r.next() < 0.03 ? mention(from, READER) : ""}${body(r)}` }];
    if (i % 5 === 2) return [{ c, from: reader, text: body(r) }];
    return [];
  });
  await pool(previews.length, sizes.inFlight, async (i) => {
    const p = previews[i] as (typeof previews)[number];
    const res = await as(request, p.from.token, "POST", `${path(p.c.project)}/${p.c.id}/messages`, { body: p.text });
    if (res.status !== 201) throw new Error(`preview ${i}: ${res.status} ${JSON.stringify(res.body)}`);
  });
  const previewMs = lap();

  // The big chat: five writers, the reader's share a fifth; the last 40 lines are others', so
  // opening it shows an unread window and everything before is "earlier messages". Some mention
  // someone (the agent too), some answer a recent line (reply_to).
  const writers = [reader, ...colleagues];
  const handles = [READER, ...COLLEAGUES, "scale-helper"];
  const lines = Array.from({ length: sizes.messages }, (_, i) => {
    const tail = i >= sizes.messages - 40;
    const from = tail
      ? (colleagues[i % colleagues.length] as (typeof colleagues)[number])
      : (writers[i % writers.length] as (typeof writers)[number]);
    const named = r.next() < 0.025 ? handles.filter((h) => h !== from.handle) : [];
    return { from, text: `${named.length ? mention(from, r.pick(named)) : ""}${body(r)}`, reply: r.next() < 0.03 };
  });
  const seqs: number[] = [];
  const post = async (i: number) => {
    const line = lines[i] as (typeof lines)[number];
    const replyTo =
      line.reply && seqs.length ? seqs[Math.max(0, seqs.length - 1 - Math.floor(r.next() * 20))] : undefined;
    const res = await as(request, line.from.token, "POST", `${path(CHAT_PROJECT)}/${chat.id}/messages`, {
      body: line.text,
      ...(replyTo ? { reply_to: replyTo } : {}),
    });
    if (res.status !== 201) throw new Error(`chat message ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    seqs.push(res.body.seq);
  };
  // All but the tail with 8 in flight; the tail in order, after the reader's last line.
  const head = sizes.messages - 40;
  await pool(head, sizes.inFlight, post);
  for (let i = head; i < sizes.messages; i++) await post(i);
  const chatMs = lap();
  return {
    reader: { handle: reader.handle, password: reader.password, token: reader.token },
    chat,
    conversations: chats.length + 1,
    timings_ms: {
      people_and_projects: peopleAndProjects,
      conversations,
      previews: previewMs,
      chat_messages: chatMs,
      total: Date.now() - started,
    },
  };
}
