"use client";
import type { Note } from "@maity/domain";
import { Badge, Button, Input, useToast } from "@maity/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ChevronDown, ChevronRight, Pin, PinOff, Trash2 } from "lucide-react";
import { useId, useState } from "react";
import { Markdown } from "../Markdown";
import { hubErrorOf, useTRPC } from "../trpc";
import { type Named, nameOf } from "../wording/chatView";
import { MarkdownEditor, Written } from "./MarkdownEditor";

// One note in the notes panel: read, edit from the version read, pin, delete; an edit that met a
// newer version shows both texts and the person chooses (never a silent overwrite).

type Ref = { owner: string; slug: string };

/** An edit met a newer version: both texts side by side, and the person chooses. */
function Conflict(props: {
  theirs: Note;
  mine: { title: string; body: string };
  people: ReadonlyMap<string, Named>;
  onKeepTheirs: () => void;
  onUseMine: () => void;
  onMerge: () => void;
  busy: boolean;
}) {
  const { theirs } = props;
  return (
    <div role="alert" className="flex flex-col gap-2 rounded-md border border-danger p-3">
      <p className="text-sm font-semibold">
        {nameOf(theirs.updated_by, props.people)} saved version {theirs.version} while you were editing.
      </p>
      <p className="text-xs text-muted">Nothing of yours is lost yet. Choose what the note should say.</p>
      <div className="grid gap-2 md:grid-cols-2">
        <div className="flex min-w-0 flex-col gap-1 rounded-md bg-surface-2 p-2">
          <span className="text-xs font-semibold">Theirs (version {theirs.version})</span>
          <Markdown text={theirs.body} />
        </div>
        <div className="flex min-w-0 flex-col gap-1 rounded-md bg-surface-2 p-2">
          <span className="text-xs font-semibold">Yours</span>
          <Markdown text={props.mine.body} />
        </div>
      </div>
      <div className="flex flex-wrap justify-end gap-2">
        <Button size="sm" variant="ghost" onClick={props.onKeepTheirs}>
          Keep theirs
        </Button>
        <Button size="sm" onClick={props.onMerge}>
          Merge by hand
        </Button>
        <Button size="sm" variant="primary" onClick={props.onUseMine} disabled={props.busy}>
          Save mine as version {theirs.version + 1}
        </Button>
      </div>
    </div>
  );
}

/** One note: its title (a disclosure), and opened, its text and what may be done to it. */
export function NoteItem(props: {
  note: Note;
  project: Ref;
  canWrite: boolean;
  people: ReadonlyMap<string, Named>;
  onChanged: () => void;
}) {
  const { note } = props;
  const trpc = useTRPC();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<{ title: string; body: string; base: number } | null>(null);
  const [conflict, setConflict] = useState<Note | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const bodyId = useId();
  const queryClient = useQueryClient();
  const update = useMutation(trpc.notes.update.mutationOptions());
  const remove = useMutation(trpc.notes.remove.mutationOptions());
  const ref = { ...props.project, note_id: note.id };

  async function save(base: number, change: { title?: string; body?: string; pinned?: boolean }) {
    try {
      await update.mutateAsync({ ...ref, base_version: base, ...change });
      setDraft(null);
      setConflict(null);
      props.onChanged();
    } catch (error) {
      const hub = hubErrorOf(error);
      if (hub?.code !== "version_conflict") {
        toast.toast({ title: "The note was not saved", description: hub?.message ?? "Try again." });
        return;
      }
      // Someone saved in between: show theirs beside yours (a pin toggle simply reads the note again).
      const theirs = await queryClient.fetchQuery(trpc.notes.get.queryOptions(ref));
      if (change.body === undefined && change.title === undefined) {
        props.onChanged();
        toast.toast({ title: "The note changed meanwhile", description: "Its newest version is shown; try again." });
      } else setConflict(theirs);
    }
  }

  const fieldError = hubErrorOf(update.error)?.details.fields;
  return (
    <li className="rounded-md border border-line">
      <div className="flex items-center gap-1 px-2 py-1.5">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setOpen(!open)}
          className="flex min-w-0 flex-1 items-center gap-1.5 rounded-sm text-left text-sm font-medium"
        >
          {open ? (
            <ChevronDown className="size-4 shrink-0" aria-hidden />
          ) : (
            <ChevronRight className="size-4 shrink-0" aria-hidden />
          )}
          <span className="truncate">{note.title}</span>
        </button>
        {note.pinned ? <Badge variant="neutral">pinned</Badge> : null}
        <span className="shrink-0 text-xs text-muted">v{note.version}</span>
      </div>
      {open ? (
        <div id={bodyId} className="flex flex-col gap-2 border-t border-line px-3 py-2">
          {conflict && draft ? (
            <Conflict
              theirs={conflict}
              mine={draft}
              people={props.people}
              busy={update.isPending}
              onKeepTheirs={() => {
                setConflict(null);
                setDraft(null);
                props.onChanged();
              }}
              onUseMine={() => void save(conflict.version, { title: draft.title, body: draft.body })}
              onMerge={() => {
                setDraft({
                  title: draft.title,
                  body: `${conflict.body.trimEnd()}\n\n<!-- your edit -->\n${draft.body}`,
                  base: conflict.version,
                });
                setConflict(null);
              }}
            />
          ) : draft ? (
            <form
              className="flex flex-col gap-2"
              onSubmit={(e) => {
                e.preventDefault();
                void save(draft.base, { title: draft.title, body: draft.body });
              }}
            >
              <Input
                label="Title"
                value={draft.title}
                maxLength={120}
                onChange={(e) => setDraft({ ...draft, title: e.target.value })}
                error={fieldError?.title}
              />
              <MarkdownEditor
                label="Text"
                value={draft.body}
                onChange={(body) => setDraft({ ...draft, body })}
                error={fieldError?.body}
              />
              <div className="flex justify-end gap-2">
                <Button type="button" size="sm" variant="ghost" onClick={() => setDraft(null)}>
                  Cancel
                </Button>
                <Button type="submit" size="sm" variant="primary" disabled={update.isPending}>
                  {update.isPending ? "Saving…" : "Save"}
                </Button>
              </div>
            </form>
          ) : (
            <>
              <Markdown text={note.body} />
              <Written by={note.updated_by} at={note.updated_at} version={note.version} people={props.people} />
              {props.canWrite ? (
                <div className="flex flex-wrap gap-1.5">
                  <Button
                    size="sm"
                    onClick={() => setDraft({ title: note.title, body: note.body, base: note.version })}
                  >
                    Edit
                  </Button>
                  <Button size="sm" variant="ghost" onClick={() => void save(note.version, { pinned: !note.pinned })}>
                    {note.pinned ? <PinOff aria-hidden /> : <Pin aria-hidden />}
                    {note.pinned ? "Unpin" : "Pin"}
                  </Button>
                  {confirmDelete ? (
                    <>
                      <Button
                        size="sm"
                        variant="danger"
                        onClick={async () => {
                          try {
                            await remove.mutateAsync(ref);
                            props.onChanged();
                          } catch (error) {
                            toast.toast({
                              title: "The note was not deleted",
                              description: hubErrorOf(error)?.message ?? "Try again.",
                            });
                          }
                        }}
                      >
                        Delete "{note.title}"
                      </Button>
                      <Button size="sm" variant="ghost" onClick={() => setConfirmDelete(false)}>
                        Keep it
                      </Button>
                    </>
                  ) : (
                    <Button size="sm" variant="ghost" onClick={() => setConfirmDelete(true)}>
                      <Trash2 aria-hidden />
                      Delete
                    </Button>
                  )}
                </div>
              ) : null}
            </>
          )}
        </div>
      ) : null}
    </li>
  );
}
