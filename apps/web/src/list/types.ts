import type { Band, ConversationItem, MeItem } from "@maity/domain";

/** The project a list shows, or every project (/me). */
export type Project = { owner: string; slug: string };
/** The chat on screen, from the route. */
export type Open = { owner: string; slug: string; id: string } | null;

/** A list item as the hub sends it, with where it lives (the /me list carries `project`) and its band. */
export type ListRow = ConversationItem & {
  project?: MeItem["project"];
  owner: string;
  slug: string;
  /** owner/slug/id: the id alone is not unique across projects (§9.3 "Across projects"). */
  key: string;
  band: Band;
  href: string;
};

export const isOpen = (row: ListRow, open: Open) =>
  open !== null && open.owner === row.owner && open.slug === row.slug && open.id === row.id;
