export { appRouter, type AppRouter } from "./routers/index.ts";
export { createCallerFactory, type Context } from "./trpc.ts";
export {
  callerFromRequest,
  clearSessionCookie,
  isSecure,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
} from "./session.ts";
export { closeHub, getHub, type HubSettings } from "./runtime.ts";
export { readSettings, type Settings, SettingsError, SETTINGS, settingsTable } from "./config.ts";
export { handleTrpc } from "./fetch.ts";
