import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";

/** BENCH_PROFILE=dir: where the benches write CPU profiles of this thread (unset: none). */
export const profileDir = process.env.BENCH_PROFILE;
let session: Session | null = null;

/** Runs `run`; with BENCH_PROFILE set, under the profiler, writing `<dir>/<name>.cpuprofile`. */
export async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  if (!profileDir) return run();
  if (!session) {
    session = new Session();
    session.connect();
  }
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await run();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    await writeFile(`${profileDir}/${name}.cpuprofile`, JSON.stringify(profile));
  }
}
