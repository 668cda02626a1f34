import { openLink, pair, pollLink } from "@maity/client";
import { hostname } from "node:os";
import qrcode from "qrcode-terminal";
import { configDirOf, writeCredentials } from "../config.ts";
import { sanitize } from "../render.ts";
import { CommandError, type Io, insecureAllowed, progress, sleep } from "./io.ts";

// ---- pre-auth: pair and link (004 §2) --------------------------------------------------------------

/** B-017 B-020: redeem the code, write `{ baseUrl, token, agent }` (0600 in 0700); never print the token. */
export async function pairCommand(code: string, baseUrl: string, asJson: boolean, io: Io): Promise<number> {
  const configDir = resolveConfigDir(io);
  let credential: Awaited<ReturnType<typeof pair>>;
  try {
    credential = await pair(baseUrl, code, { allowInsecureHttp: insecureAllowed(io) });
  } catch (error) {
    throw new CommandError(error, baseUrl, undefined, undefined);
  }
  const file = writeCredentials(configDir, credential);
  reportLinked(credential, file, asJson, io);
  return 0;
}

const resolveConfigDir = (io: Io): string => configDirOf(io.env);

function reportLinked(
  credential: { baseUrl: string; agent: { id: string; name: string } },
  file: string,
  asJson: boolean,
  io: Io,
): void {
  if (asJson)
    io.out(
      JSON.stringify({ status: "approved", baseUrl: credential.baseUrl, agent: credential.agent, credentials: file }),
    );
  else
    io.out(
      `paired as ${sanitize(credential.agent.name)} (${credential.agent.id}) on ${credential.baseUrl}; credentials in ${file}`,
    );
}

/**
 * Reverse linking: a QR code and the approve URL (the only things shown: never a token), then a
 * poll every pollIntervalSeconds with a progress line on stderr until the owner approves or the
 * request expires; the credentials are written like pair's.
 */
export async function linkCommand(
  label: string | undefined,
  baseUrl: string,
  asJson: boolean,
  io: Io,
): Promise<number> {
  const configDir = resolveConfigDir(io);
  try {
    const opened = await openLink(baseUrl, label ?? defaultLabel(), { allowInsecureHttp: insecureAllowed(io) });
    if (asJson) {
      io.out(
        JSON.stringify({
          status: "pending",
          approveUrl: opened.approveUrl,
          code: opened.code,
          expiresAt: opened.expiresAt,
        }),
      );
    } else {
      let qr = "";
      qrcode.generate(opened.approveUrl, { small: true }, (text) => {
        qr = text;
      });
      io.out(
        `${qr}\nScan the code, or open ${opened.approveUrl} (code ${opened.code}), and approve this computer for one of your agents.`,
      );
    }
    const expires = Date.parse(opened.expiresAt);
    const start = Date.now();
    for (;;) {
      if (io.signal.aborted) return 130;
      const answer = await pollLink(baseUrl, opened.id, opened.secret, {
        allowInsecureHttp: insecureAllowed(io),
      }).catch((error: unknown) => {
        // The hub answers 404 once the request expired (or was collected): say it in those words.
        if (error instanceof Error && "status" in error && error.status === 404) return { status: "expired" as const };
        throw error;
      });
      if (answer.status === "approved") {
        if (process.stderr.isTTY) io.err("");
        const file = writeCredentials(configDir, answer);
        reportLinked(answer, file, asJson, io);
        return 0;
      }
      if (answer.status === "expired" || Date.now() >= expires) {
        io.err("\nthe link request expired before it was approved: run maity link again");
        return 1;
      }
      const waited = Math.round((Date.now() - start) / 1000);
      const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
      progress(io, `waiting for approval… ${waited} s (expires in ${left} s)`);
      await sleep(Math.max(1, opened.pollIntervalSeconds) * 1000, io.signal);
    }
  } catch (error) {
    throw new CommandError(error, baseUrl, undefined, undefined);
  }
}

const defaultLabel = (): string => `maity CLI on ${hostname() || "this computer"}`.slice(0, 80);
