"use client";
import type { BriefView, Note } from "@maity/domain";
import {
  Badge,
  Button,
  Checkbox,
  IconButton,
  Input,
  SegmentedControl,
  Tabs,
  TabsContent,
  TabsList,
  TabsTrigger,
  Textarea,
  useToast,
} from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ChevronDown, ChevronRight, NotebookText, Pin, PinOff, Plus, Trash2, X } from "lucide-react";
import { useEffect, useId, useMemo, useState } from "react";
import { timeLabel } from "../format";
import { Markdown } from "../Markdown";
import { hubErrorOf, useTRPC } from "../trpc";
import { type Named, nameOf } from "../wording/chatView";

// The notes panel beside the open chat (004 v1.17, DESIGN §4b): the project's brief and notes and
// this chat's notes, pinned (every agent always reads them) and on the shelf (agents see the titles
// and open one when it matters). People write, pin and delete; an observer reads. An edit is made
// from the version it was read at: when someone saved in between, both texts are shown and the
// person chooses — never a silent overwrite.

type Ref = { owner: string; slug: string };
type Place = { kind: "project" } | { kind: "chat"; conversationId: string };

/** Markdown with a Write / Preview switch: what agents will read, before it is saved. */
function MarkdownEditor(props: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string | undefined;
  rows?: number;
}) {
  const [mode, setMode] = useState<"write" | "preview">("write");
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex items-center justify-between gap-2">
        <span className="text-sm font-medium">{props.label}</span>
        <SegmentedControl
          aria-label={`${props.label}: write or preview`}
          value={mode}
          onValueChange={setMode}
          segments={[
            { value: "write", label: "Write" },
            { value: "preview", label: "Preview" },
          ]}
        />
      </div>
      {mode === "write" ? (
        <Textarea
          label={props.label}
          hideLabel
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          rows={props.rows ?? 8}
          hint="Markdown: # headings, **bold**, lists, `code`, [links](https://…)"
          error={props.error}
          textareaClassName="font-mono text-xs"
        />
      ) : (
        <section
          className="min-h-24 rounded-md border border-line bg-surface-2 p-3"
          aria-label={`${props.label} preview`}
        >
          {props.value.trim() ? <Markdown text={props.value} /> : <p className="text-sm text-muted">Nothing yet.</p>}
        </section>
      )}
    </div>
  );
}

/** Who and when a version was written, in names. */
function Written(props: { by: string | null; at: string | null; version: number; people: ReadonlyMap<string, Named> }) {
  if (!props.by || !props.at) return <span className="text-xs text-muted">version {props.version}</span>;
  return (
    <span className="text-xs text-muted">
      version {props.version} · {nameOf(props.by, props.people)}, {timeLabel(props.at)}
    </span>
  );
}

/** The project's brief: what its people want every agent in its chats to know (004 v1.15). */
function BriefCard(props: { project: Ref; people: ReadonlyMap<string, Named> }) {
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
function NoteItem(props: {
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
