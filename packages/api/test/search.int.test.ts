import { searchSuite } from "./searchSuite.ts";

// Message search (issue 31, DESIGN §4d), the hub's own choice of way: few hub-wide matches come
// from the GIN index (every search here matches few). search-dense.int runs the same suite chat by chat.
await searchSuite();
