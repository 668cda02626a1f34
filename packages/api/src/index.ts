export { appRouter, type AppRouter } from "./routers/index.ts";
export { createCallerFactory, type Context } from "./trpc.ts";
export { callerFromRequest, clearSessionCookie, isSecure, readCookie, SESSION_COOKIE, sessionCookie } from "./session.ts";
export { closeHub, getHub, runtimeOptionsFromEnv, type RuntimeOptions } from "./runtime.ts";
export { handleTrpc } from "./fetch.ts";
