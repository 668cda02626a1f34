"use client";
import type { BriefView } from "@maity/domain";
import { Button } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Markdown } from "../Markdown";
import { hubErrorOf, useTRPC } from "../trpc";
import type { Named } from "../wording/chatView";
import { MarkdownEditor, Written } from "./MarkdownEditor";

type Ref = { owner: string; slug: string };

/** The project's brief: what its people want every agent in its chats to know (004 v1.15). */
export function BriefCard(props: { project: Ref; people: ReadonlyMap<string, Named> }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const brief = useQuery(trpc.projects.brief.queryOptions(props.project));
  const [draft, setDraft] = useState<string | null>(null);
  const save = useMutation(
    trpc.projects.setBrief.mutationOptions({
      onSuccess: (view: BriefView) => {
        queryClient.setQueryData(trpc.projects.brief.queryKey(props.project), view);
        setDraft(null);
      },
    }),
  );
  const b = brief.data;
  return (
    <section aria-labelledby="brief-heading" className="flex flex-col gap-2 rounded-md border border-line p-3">
      <div className="flex items-center justify-between gap-2">
        <h3 id="brief-heading" className="text-sm font-semibold">
          Project brief
        </h3>
        {b && draft === null ? (
          <Button size="sm" variant="ghost" onClick={() => setDraft(b.brief ?? "")}>
            {b.brief ? "Edit" : "Write"}
          </Button>
        ) : null}
      </div>
      <p className="text-xs text-muted">Every agent in this project's chats reads it, as room text from its people.</p>
      {draft !== null ? (
        <form
          className="flex flex-col gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate({ ...props.project, brief: draft.trim() ? draft : null });
          }}
        >
          <MarkdownEditor
            label="Brief"
            value={draft}
            onChange={setDraft}
            error={hubErrorOf(save.error)?.details.fields?.brief ?? hubErrorOf(save.error)?.message}
          />
          <div className="flex justify-end gap-2">
            <Button type="button" size="sm" variant="ghost" onClick={() => setDraft(null)}>
              Cancel
            </Button>
            <Button type="submit" size="sm" variant="primary" disabled={save.isPending}>
              {save.isPending ? "Saving…" : "Save brief"}
            </Button>
          </div>
        </form>
      ) : b?.brief ? (
        <>
          <Markdown text={b.brief} />
          <Written by={b.updated_by} at={b.updated_at} version={b.version} people={props.people} />
        </>
      ) : brief.isLoading ? (
        <p className="text-sm text-muted">Loading…</p>
      ) : (
        <p className="text-sm text-muted">No brief yet.</p>
      )}
    </section>
  );
}
