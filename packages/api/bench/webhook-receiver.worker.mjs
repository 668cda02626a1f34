// bench:webhooks' receiver entry: TypeScript through tsx's loader (a worker's `--import tsx` is not applied on Node 20).
import { register } from "tsx/esm/api";

register();
await import("./webhook-receiver.ts");
