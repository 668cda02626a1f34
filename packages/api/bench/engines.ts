// Which engines a bench runs on: PGlite always, then PostgreSQL when DATABASE_URL names one;
// `--only=pglite|postgresql` picks one. The same rule for every bench.
export function benchEngines(): { engines: ("pglite" | "postgresql")[]; pgUrl: string | undefined } {
  const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
  const url = process.env.DATABASE_URL;
  const pgUrl = url && /^postgres(ql)?:\/\//.test(url) ? url : undefined;
  const engines = (["pglite", "postgresql"] as const).filter((e) => (only ? e === only : e === "pglite" || pgUrl));
  if (engines.includes("postgresql") && !pgUrl) throw new Error("--only=postgresql needs DATABASE_URL=postgresql://…");
  return { engines, pgUrl };
}
