import { searchSuite } from "./searchSuite.ts";

// The search suite with every search walking the visible chats one by one (the way common words
// take at scale): the same rules, the same pages (DESIGN §4d).
await searchSuite({ searchSparseMatches: 0 });
