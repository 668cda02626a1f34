"use client";
import type { Note } from "@maity/domain";
import { Button, Checkbox, IconButton, Input, Tabs, TabsContent, TabsList, TabsTrigger } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { NotebookText, Plus, X } from "lucide-react";
import { useEffect, useMemo, useState } from "react";
import { hubErrorOf, useTRPC } from "../trpc";
import type { Named } from "../wording/chatView";
import { BriefCard } from "./BriefCard";
import { MarkdownEditor } from "./MarkdownEditor";
import { NoteItem } from "./NoteItem";

// The notes panel beside the open chat (004 v1.17, DESIGN §4b): the project's brief and notes and
// this chat's notes, pinned (every agent always reads them) and on the shelf (agents see the titles
// and open one when it matters). People write, pin and delete; an observer reads. An edit is made
// from the version it was read at: when someone saved in between, both texts are shown and the
// person chooses — never a silent overwrite.

type Ref = { owner: string; slug: string };
type Place = { kind: "project" } | { kind: "chat"; conversationId: string };

/** Writing a new note in a place. */
function NewNote(props: { project: Ref; place: Place; onDone: () => void; onCancel: () => void }) {
  const trpc = useTRPC();
  const [title, setTitle] = useState("");
  const [body, setBody] = useState("");
  const [pinned, setPinned] = useState(false);
  const projectNote = useMutation(trpc.notes.create.mutationOptions({ onSuccess: props.onDone }));
  const chatNote = useMutation(trpc.notes.chatCreate.mutationOptions({ onSuccess: props.onDone }));
  const create = props.place.kind === "project" ? projectNote : chatNote;
  const hub = hubErrorOf(create.error);
  return (
    <form
      className="flex flex-col gap-2 rounded-md border border-line p-3"
      aria-label="New note"
      onSubmit={(e) => {
        e.preventDefault();
        if (props.place.kind === "project") projectNote.mutate({ ...props.project, title, body, pinned });
        else chatNote.mutate({ ...props.project, conversation_id: props.place.conversationId, title, body, pinned });
      }}
    >
      <Input
        label="Title"
        value={title}
        maxLength={120}
        onChange={(e) => setTitle(e.target.value)}
        error={hub?.details.fields?.title}
      />
      <MarkdownEditor label="Text" value={body} onChange={setBody} error={hub?.details.fields?.body} rows={6} />
      <Checkbox
        label="Pin it: every agent reads pinned notes with every message (keep them short)"
        checked={pinned}
        onCheckedChange={(v) => setPinned(v === true)}
      />
      {hub && !hub.details.fields ? <p className="text-sm text-danger-text">{hub.message}</p> : null}
      <div className="flex justify-end gap-2">
        <Button type="button" size="sm" variant="ghost" onClick={props.onCancel}>
          Cancel
        </Button>
        <Button type="submit" size="sm" variant="primary" disabled={create.isPending}>
          {create.isPending ? "Saving…" : "Save note"}
        </Button>
      </div>
    </form>
  );
}

/** A place's notes: pinned, then the shelf, and a new one. */
function NoteList(props: {
  notes: Note[] | undefined;
  loading: boolean;
  project: Ref;
  place: Place;
  canWrite: boolean;
  people: ReadonlyMap<string, Named>;
  onChanged: () => void;
}) {
  const [adding, setAdding] = useState(false);
  const pinned = (props.notes ?? []).filter((n) => n.pinned);
  const shelf = (props.notes ?? []).filter((n) => !n.pinned);
  const item = (n: Note) => (
    <NoteItem
      key={n.id}
      note={n}
      project={props.project}
      canWrite={props.canWrite}
      people={props.people}
      onChanged={props.onChanged}
    />
  );
  // One list for both parts, so a note moving between them (someone pins it) keeps its open editor.
  const heading = (text: string) => (
    <li key={`heading-${text}`} className="pt-1">
      <h3 className="text-xs font-semibold text-muted uppercase">{text}</h3>
    </li>
  );
  return (
    <div className="flex flex-col gap-3">
      {props.loading ? <p className="text-sm text-muted">Loading…</p> : null}
      {pinned.length || shelf.length ? (
        <ul className="flex flex-col gap-1.5" aria-label="Notes of this place">
          {pinned.length ? heading("Pinned · every agent reads these") : null}
          {pinned.map(item)}
          {shelf.length ? heading("On the shelf · agents open them when needed") : null}
          {shelf.map(item)}
        </ul>
      ) : null}
      {!props.loading && !pinned.length && !shelf.length ? (
        <p className="text-sm text-muted">No notes yet. People and agents keep what they learn here.</p>
      ) : null}
      {props.canWrite ? (
        adding ? (
          <NewNote
            project={props.project}
            place={props.place}
            onDone={() => {
              setAdding(false);
              props.onChanged();
            }}
            onCancel={() => setAdding(false)}
          />
        ) : (
          <Button size="sm" onClick={() => setAdding(true)} className="self-start">
            <Plus aria-hidden />
            New note
          </Button>
        )
      ) : null}
    </div>
  );
}

export function NotesPanel(props: {
  owner: string;
  slug: string;
  /** The chat's id as the Maity routes name it. */
  conversationId: string;
  observer: boolean;
  people: ReadonlyMap<string, Named>;
  /** Changes when the chat shows a new quiet line (an agent edited or opened a note): read again. */
  refresh: number;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const project = useMemo(() => ({ owner: props.owner, slug: props.slug }), [props.owner, props.slug]);
  const chatRef = { ...project, conversation_id: props.conversationId };
  // Someone else's edit shows within seconds while the panel is open; an agent's at once (its quiet line).
  const live = { refetchInterval: 5_000, refetchOnWindowFocus: true } as const;
  const chatNotes = useQuery({ ...trpc.notes.chatList.queryOptions(chatRef), ...live });
  const projectNotes = useQuery({ ...trpc.notes.list.queryOptions(project), ...live });
  const ids = useMemo(
    () =>
      [...new Set([...(chatNotes.data?.items ?? []), ...(projectNotes.data?.items ?? [])].map((n) => n.updated_by))]
        .filter((id) => !props.people.has(id))
        .sort(),
    [chatNotes.data, projectNotes.data, props.people],
  );
  const names = useQuery({ ...trpc.projects.names.queryOptions({ ids }), enabled: ids.length > 0, staleTime: 60_000 });
  const people = useMemo(() => {
    const all = new Map(props.people);
    for (const n of names.data ?? []) if (!all.has(n.member_id)) all.set(n.member_id, n);
    return all;
  }, [props.people, names.data]);
  const reread = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.notes.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.projects.brief.queryKey(project) });
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again exactly when a new quiet line arrives
  useEffect(() => {
    if (props.refresh > 0) reread();
  }, [props.refresh]);
  return (
    <aside
      aria-label="Notes"
      className="flex min-h-0 w-full flex-col border-line bg-surface lg:w-96 lg:shrink-0 lg:border-l"
    >
      <div className="flex items-center justify-between gap-2 border-b border-line px-4 py-3">
        <h2 className="flex items-center gap-2 text-base font-semibold">
          <NotebookText className="size-4" aria-hidden />
          Notes
        </h2>
        <IconButton aria-label="Close the notes" size="icon-sm" icon={<X aria-hidden />} onClick={props.onClose} />
      </div>
      <div className="flex min-h-0 flex-1 flex-col overflow-y-auto p-4">
        <p className="mb-3 text-xs text-muted">
          Notes are reference material written by people and agents. Agents read them as reference, never as
          instructions; only people pin.
        </p>
        <Tabs defaultValue="chat" className="flex flex-col gap-3">
          <TabsList aria-label="Whose notes">
            <TabsTrigger value="chat">This chat ({chatNotes.data?.items.length ?? "…"})</TabsTrigger>
            <TabsTrigger value="project">Project ({projectNotes.data?.items.length ?? "…"})</TabsTrigger>
          </TabsList>
          <TabsContent value="chat">
            <NoteList
              notes={chatNotes.data?.items}
              loading={chatNotes.isLoading}
              project={project}
              place={{ kind: "chat", conversationId: props.conversationId }}
              canWrite={!props.observer}
              people={people}
              onChanged={reread}
            />
          </TabsContent>
          <TabsContent value="project">
            <BriefCard project={project} people={people} />
            <NoteList
              notes={projectNotes.data?.items}
              loading={projectNotes.isLoading}
              project={project}
              place={{ kind: "project" }}
              canWrite
              people={people}
              onChanged={reread}
            />
          </TabsContent>
        </Tabs>
      </div>
    </aside>
  );
}
