// §9.3 "Meat proxy per chat": the parts that hold for one human in one conversation.
export interface MeatProxyProfile {
  lead: boolean;
  hands: boolean;
  /** The human's own words about the mode (§5.2), if any. */
  note: string | null;
}

export interface MeatProxyFields {
  meat_proxy_lead: boolean;
  meat_proxy_hands: boolean;
  meat_proxy: boolean;
  meat_proxy_chat: boolean | null;
  meat_proxy_note?: string;
}

/**
 * null follows the profile's lead part; true/false override it in this chat. The hands part always
 * comes from the profile. `meat_proxy_chat` is the human's own choice, shown only to itself.
 */
export function meatProxyFields(
  profile: MeatProxyProfile,
  chat: boolean | null,
  readerIsSelf: boolean,
): MeatProxyFields {
  const lead = chat ?? profile.lead;
  const hands = profile.hands;
  const fields: MeatProxyFields = {
    meat_proxy_lead: lead,
    meat_proxy_hands: hands,
    meat_proxy: lead || hands,
    meat_proxy_chat: readerIsSelf ? chat : null,
  };
  if (fields.meat_proxy) fields.meat_proxy_note = meatProxyNote(lead, hands, profile.note);
  return fields;
}

/** Names the parts that hold, then the human's own note. */
export function meatProxyNote(lead: boolean, hands: boolean, note: string | null): string {
  const parts = [
    lead ? "lead (wants to be led step by step)" : null,
    hands ? "hands (acts in the world for the agent)" : null,
  ].filter(Boolean);
  const head = `Meat proxy: ${parts.join(" and ")}.`;
  return note?.trim() ? `${head} ${note.trim()}` : head;
}
