import type { Page } from "@playwright/test";

// In-page instruments for e2e/measure-scale.spec.ts. They find things by accessible names, not by
// class names, so a restyle of the dashboard and its virtualisation keep them working.

export type Scale = {
  /** Epoch ms (timeOrigin + now) of the first frame painted with list rows, and with the header. */
  rowsAt: number | null;
  headerAt: number | null;
  lcp: number | null;
  longTasks: { start: number; duration: number }[];
  start(): void;
  stop(): { deltas: number[]; ms: number; longTasks: { start: number; duration: number }[] };
};

/**
 * Installed in every document (page.addInitScript), before the app's own scripts: paint timing
 * and LCP observers, long tasks, the moment the first rows and the header are painted (for the
 * first screen after login, whether the app navigates in place or loads a new document), and a
 * requestAnimationFrame loop that collects frame-to-frame deltas between start() and stop().
 */
export function instrument(handle: string) {
  const epoch = () => performance.timeOrigin + performance.now();
  const longTasks: { start: number; duration: number }[] = [];
  const scale = { rowsAt: null, headerAt: null, lcp: null, longTasks } as unknown as Scale;
  (window as unknown as { __scale: Scale }).__scale = scale;
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) scale.lcp = e.startTime;
    }).observe({ type: "largest-contentful-paint", buffered: true });
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch {
    // Not Chromium: the frame loop still measures.
  }
  // The submit of the login form, kept across a full navigation (same tab, same origin).
  document.addEventListener("submit", () => sessionStorage.setItem("scale.submit", String(epoch())), true);
  const rows = () =>
    document.querySelector('[aria-label="Conversation list"]')?.querySelector('a[href*="/c/"]') ?? null;
  const header = () =>
    [...document.querySelectorAll('header, [role="banner"]')].some((h) => h.textContent?.includes(handle));
  // Checked on each DOM change; the time kept is the frame after the one that painted it.
  const check = () => {
    if (scale.rowsAt !== null && scale.headerAt !== null) return;
    const hasRows = scale.rowsAt === null && rows() !== null;
    const hasHeader = scale.headerAt === null && header();
    if (!hasRows && !hasHeader) return;
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        const at = epoch();
        if (hasRows && scale.rowsAt === null) scale.rowsAt = at;
        if (hasHeader && scale.headerAt === null) scale.headerAt = at;
      }),
    );
  };
  const watch = () =>
    new MutationObserver(check).observe(document.documentElement, {
      childList: true,
      subtree: true,
      characterData: true,
    });
  if (document.documentElement) watch();
  else document.addEventListener("readystatechange", watch, { once: true });

  let deltas: number[] = [];
  let running = false;
  let began = 0;
  let longFrom = 0;
  scale.start = () => {
    deltas = [];
    running = true;
    began = performance.now();
    longFrom = longTasks.length;
    let last = 0;
    const loop = (t: number) => {
      if (!running) return;
      if (last) deltas.push(t - last);
      last = t;
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  };
  scale.stop = () => {
    running = false;
    return { deltas, ms: performance.now() - began, longTasks: longTasks.slice(longFrom) };
  };
}

export const startFrames = (page: Page) =>
  page.evaluate(() => (window as unknown as { __scale: Scale }).__scale.start());
export const stopFrames = (page: Page) => page.evaluate(() => (window as unknown as { __scale: Scale }).__scale.stop());

const round = (n: number) => Math.round(n * 10) / 10;
export function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
export const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/**
 * Frame statistics. "Over 16.7 ms" allows 2 ms of timer jitter (a frame that missed its vsync
 * takes ≥ 33 ms at 60 Hz, so > 18.7 ms counts every missed frame and no on-time one).
 */
export function frameStats(run: { deltas: number[]; ms: number; longTasks: { duration: number }[] }) {
  const sorted = [...run.deltas].sort((a, b) => a - b);
  const share = (over: number) =>
    sorted.length ? round((100 * sorted.filter((d) => d > over).length) / sorted.length) : 0;
  return {
    seconds: round(run.ms / 1000),
    frames: sorted.length,
    median_ms: round(quantile(sorted, 0.5)),
    p95_ms: round(quantile(sorted, 0.95)),
    max_ms: round(sorted.at(-1) ?? 0),
    over_16_7ms_pct: share(16.7 + 2),
    over_50ms_pct: share(50),
    long_tasks: run.longTasks.length,
    long_tasks_ms: Math.round(run.longTasks.reduce((sum, t) => sum + t.duration, 0)),
  };
}

/** The nearest ancestor that scrolls (the document when none does), for the wheel and its position. */
export function markScroller(label: string) {
  let el = document.querySelector(`[aria-label="${label}"]`)?.parentElement ?? null;
  while (el && el !== document.body) {
    const style = getComputedStyle(el);
    if (/(auto|scroll)/.test(style.overflowY) && el.scrollHeight > el.clientHeight) break;
    el = el.parentElement;
  }
  const scroller = el && el !== document.body ? el : (document.scrollingElement as HTMLElement);
  (window as unknown as { __scroller: HTMLElement }).__scroller = scroller;
  return scroller === document.scrollingElement
    ? "document"
    : `${scroller.tagName.toLowerCase()}${scroller.getAttribute("aria-label") ? `[aria-label="${scroller.getAttribute("aria-label")}"]` : ""}`;
}

export const scrollState = (page: Page) =>
  page.evaluate(() => {
    const s = (window as unknown as { __scroller: HTMLElement }).__scroller;
    return {
      top: s.scrollTop,
      height: s.scrollHeight,
      client: s.clientHeight,
      atBottom: s.scrollTop + s.clientHeight >= s.scrollHeight - 4,
    };
  });
