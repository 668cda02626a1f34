import { deviceLogout, openDeviceLogin, pollDeviceLogin } from "@maity/client";
import { rmSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import qrcode from "qrcode-terminal";
import { configDirOf, DEVICE_FILE, readDeviceFile, writeDeviceFile } from "../config.ts";
import { sanitize } from "../render.ts";
import { CommandError, type Io, insecureAllowed, progress, sleep } from "./io.ts";

// `maity login` / `maity logout` (issue 30, DESIGN §4e, B-324): a person signs this computer in once —
// a QR code and the approve URL, a progress line while they decide in the dashboard — and it keeps
// one `bay_u_` credential per Bay they chose in ~/.maity/device.json (0600 in 0700, never printed).

const defaultLabel = (): string => `maity on ${hostname() || "this computer"}`.slice(0, 80);

export async function loginCommand(label: string | undefined, baseUrl: string, asJson: boolean, io: Io) {
  const configDir = configDirOf(io.env);
  const o = { allowInsecureHttp: insecureAllowed(io) };
  // One device per computer: a second login would leave the first signed in on the hub, unseen.
  const current = readDeviceFile(configDir);
  if (current) {
    io.err(`this computer is signed in already (${current.baseUrl}): run maity logout first`);
    return 1;
  }
  try {
    const opened = await openDeviceLogin(baseUrl, label ?? defaultLabel(), o);
    if (asJson)
      io.out(
        JSON.stringify({
          status: "pending",
          approveUrl: opened.approveUrl,
          code: opened.code,
          expiresAt: opened.expiresAt,
        }),
      );
    else {
      let qr = "";
      qrcode.generate(opened.approveUrl, { small: true }, (text) => {
        qr = text;
      });
      io.out(
        `${qr}\nScan the code, or open ${opened.approveUrl} (code ${opened.code}), check the code matches, and choose the Bays this computer may act in as you.`,
      );
    }
    const expires = Date.parse(opened.expiresAt);
    const start = Date.now();
    for (;;) {
      if (io.signal.aborted) return 130;
      const answer = await pollDeviceLogin(baseUrl, opened.id, opened.secret, o);
      if (answer.status === "approved") {
        if (process.stderr.isTTY) io.err("");
        const file = writeDeviceFile(configDir, {
          baseUrl,
          credentials: answer.credentials.map((c) => ({ bay: c.bay, token: c.token })),
        });
        const bays = answer.credentials.map((c) => sanitize(c.bay.name));
        if (asJson)
          io.out(JSON.stringify({ status: "approved", baseUrl, bays: answer.credentials.map((c) => c.bay), file }));
        else io.out(`signed in to ${bays.join(", ")} on ${baseUrl}; credentials in ${file}`);
        return 0;
      }
      if (answer.status === "denied") {
        io.err("\nthe login was refused in the dashboard: nothing was written");
        return 1;
      }
      if (answer.status === "expired" || Date.now() >= expires) {
        io.err("\nthe login request expired before it was approved: run maity login again");
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

/** Signs this computer out on the hub (every Bay of it) and removes its device file. */
export async function logoutCommand(asJson: boolean, io: Io): Promise<number> {
  const configDir = configDirOf(io.env);
  const device = readDeviceFile(configDir);
  const file = path.join(configDir, DEVICE_FILE);
  if (!device) {
    io.err(`this computer is not signed in (no ${file})`);
    return 1;
  }
  const first = device.credentials[0];
  if (first) {
    try {
      await deviceLogout(device.baseUrl, first.token, { allowInsecureHttp: insecureAllowed(io) });
    } catch (error) {
      // Revoked already (in the dashboard): signing out here is still right.
      if (!(error instanceof Error && "status" in error && error.status === 404))
        throw new CommandError(error, device.baseUrl, undefined, undefined);
    }
  }
  rmSync(file, { force: true });
  if (asJson) io.out(JSON.stringify({ status: "signed_out", baseUrl: device.baseUrl }));
  else io.out(`signed out of ${device.baseUrl}; ${file} removed`);
  return 0;
}
