"use client";
import type { GroupView } from "@maity/domain";
import { fieldErrorWords } from "../wording/manage";
import { useToast } from "@maity/ui";
import { useQueryClient } from "@tanstack/react-query";
import { hubErrorOf, useTRPC } from "../trpc";
import type { ChatProps } from "./chatProps";

// What the manage dialog's sections share: the hub's refusals in words, a changed view written
// into the cache, and the toast of a failed change.

export type HubError = NonNullable<ReturnType<typeof hubErrorOf>>;

/** The hub's refusal in words (§9.2 order of refusals); field codes go to their field instead. */
export function refusalWords(error: HubError | null): string | null {
  if (!error) return null;
  if (error.code === "conversation_closed") return "The chat is closed: it takes no changes.";
  if (error.code === "project_closed") return "The project is archived: nobody can be added.";
  if (error.details.reason === "not_a_manager") return "Only the chat's creator or a project admin can change this.";
  if (error.details.reason === "observer") return "You read along here: you cannot change the chat.";
  if (error.details.reason === "not_sponsor")
    return "Only the person who brought a visiting agent places it, and only into a chat they are in.";
  return error.message;
}
export const fieldsOf = (error: unknown): Record<string, string> => {
  const fields = hubErrorOf(error)?.details.fields ?? {};
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, fieldErrorWords(k, v)]));
};

export type Part = ChatProps & { view: GroupView; closed: boolean; archived: boolean; canManage: boolean };

/** Writes a changed view straight into the cache (the chip updates at once), then reads the lists again. */
export function useRefresh(props: ChatProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return (view?: GroupView) => {
    const ref = { owner: props.owner, slug: props.slug, conversation_id: props.id };
    if (view) queryClient.setQueryData(trpc.conversations.get.queryKey(ref), view);
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
  };
}

export function useFailureToast() {
  const { toast } = useToast();
  return (what: string, error: unknown) =>
    toast({
      variant: "danger",
      title: what,
      description: refusalWords(hubErrorOf(error)) ?? "The hub did not answer. Try again.",
    });
}
