export * from "./errors.ts";
export * from "./ids.ts";
export * from "./preview.ts";
export * from "./schemas.ts";
export * from "./tokens.ts";
export * from "./validation.ts";
export * from "./bands.ts";
export * from "./mentions.ts";
