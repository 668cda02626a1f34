// `pnpm docs:settings`: prints README's Configuration table from the settings schema (config.ts).
import { settingsTable } from "./config.ts";

console.log(settingsTable());
