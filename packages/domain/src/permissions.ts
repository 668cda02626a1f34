// Who may do what, as pure rules (§9.2 "Who manages", §8.5 as far as §9 tells).

/** §9.2: the creator while a participant, and human participants holding members:admin. */
export function isManager(input: {
  callerKind: "human" | "agent";
  participant: boolean;
  creator: boolean;
  projectAdmin: boolean;
}): boolean {
  return input.callerKind === "human" && input.participant && (input.creator || input.projectAdmin);
}

/** docs/api.md "Redaction": the reason shows to the redactor and to project admins; others read null. */
export function redactionReasonVisible(reader: { id: string; admin: boolean }, redactedBy: string): boolean {
  return reader.admin || reader.id === redactedBy;
}
