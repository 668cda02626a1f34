import type { AppRouter } from "@maity/api";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { ReshapedRestBodies, restRouteTable } from "./routes.gen.ts";

// What each REST route takes and answers, inferred from the router (its own module: the Maity and
// the device clients both read it).

/** `"messages.post"` → the router's `messages.post` entry of T. */
type At<T, K extends string> = K extends `${infer Head}.${infer Tail}`
  ? Head extends keyof T
    ? At<T[Head], Tail>
    : never
  : K extends keyof T
    ? T[K]
    : never;
export type RestRouteName = keyof typeof restRouteTable;
/** What a route takes: path segments, query or body fields and header fields, as one object. */
export type RestInput<K extends RestRouteName> = At<inferRouterInputs<AppRouter>, K>;
/** What a route answers: the procedure's output, or the reshaped REST body (`meta.rest.respond`). */
export type RestOutput<K extends RestRouteName> = K extends keyof ReshapedRestBodies
  ? ReshapedRestBodies[K]
  : At<inferRouterOutputs<AppRouter>, K>;
