"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useState } from "react";
import { hubErrorOf, useTRPC } from "./trpc";

type Open = { owner: string; slug: string; id: string } | null;

/** The chat list beside the open chat (a minimal first slice; the dashboard issue completes it). */
export function Chat({ open }: { open: Open }) {
  const trpc = useTRPC();
  const router = useRouter();
  const me = useQuery(trpc.auth.me.queryOptions());
  const projects = useQuery({ ...trpc.projects.mine.queryOptions(), enabled: Boolean(me.data) });
  const queryClient = useQueryClient();
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({
      onSuccess: () => {
        queryClient.clear();
        router.push("/login");
      },
    }),
  );
  useEffect(() => {
    if (me.isSuccess && !me.data) router.replace("/login");
  }, [me.isSuccess, me.data, router]);
  if (me.isLoading) return <main>Loading…</main>;
  if (!me.data) return <main>Redirecting to sign in…</main>;
  return (
    <main>
      <header style={{ display: "flex", justifyContent: "space-between", alignItems: "center" }}>
        <strong>Maity</strong>
        <span>
          Signed in as {me.data.handle}{" "}
          <button type="button" onClick={() => logout.mutate()}>
            Sign out
          </button>
        </span>
      </header>
      <div className="layout">
        <nav aria-label="Conversations">
          {projects.isError ? <p className="error">Could not load projects.</p> : null}
          {projects.data?.length === 0 ? <p>You are not a member of any project yet.</p> : null}
          {projects.data?.map((p) => (
            <ProjectList key={p.id} owner={p.owner} slug={p.slug} name={p.full_name} open={open} />
          ))}
        </nav>
        <section aria-label="Open conversation">{open ? <Conversation {...open} /> : <p>Pick a conversation.</p>}</section>
      </div>
    </main>
  );
}

function ProjectList({ owner, slug, name, open }: { owner: string; slug: string; name: string; open: Open }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.conversations.list.queryOptions({ owner, slug }));
  return (
    <div>
      <h2 style={{ fontSize: "1rem" }}>{name}</h2>
      {list.isLoading ? <p>Loading…</p> : null}
      <ul className="list">
        {list.data?.items.map((item) => {
          const agent = item.participants.find((p) => p.kind === "agent");
          const current = open?.owner === owner && open.slug === slug && open.id === item.id;
          return (
            <li key={item.id}>
              <Link href={`/p/${owner}/${slug}/c/${item.id}`} aria-current={current ? "page" : undefined}>
                <span>{item.kind === "group" ? (item.title ?? item.participants.map((p) => p.handle).join(", ")) : (agent?.name ?? item.id)}</span>
                {(item.unread ?? 0) > 0 ? <span className="badge"> ({item.unread} unread)</span> : null}
                <div className="meta">{item.last_message?.body ?? "No messages yet"}</div>
              </Link>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function Conversation({ owner, slug, id }: { owner: string; slug: string; id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const messages = useQuery(trpc.messages.list.queryOptions({ owner, slug, conversation_id: id, after: 0, limit: 200 }));
  const [body, setBody] = useState("");
  const post = useMutation(
    trpc.messages.post.mutationOptions({
      onSuccess: () => {
        setBody("");
        void queryClient.invalidateQueries({ queryKey: trpc.messages.list.queryKey({ owner, slug, conversation_id: id, after: 0, limit: 200 }) });
        void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.queryKey({ owner, slug }) });
      },
    }),
  );
  const error = hubErrorOf(post.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (body.trim()) post.mutate({ owner, slug, conversation_id: id, body });
  };
  if (messages.isError) return <p className="error">{hubErrorOf(messages.error)?.message ?? "Could not load this conversation."}</p>;
  return (
    <div>
      <ol className="timeline" aria-label="Messages">
        {messages.isLoading ? <li>Loading…</li> : null}
        {messages.data?.items.length === 0 ? <li>No messages yet.</li> : null}
        {messages.data?.items.map((m) => (
          <li key={m.id}>
            <div className="meta">
              {m.from} · {new Date(m.sent_at).toLocaleString()}
            </div>
            {m.redacted ? <em>message removed</em> : m.body}
          </li>
        ))}
      </ol>
      <form className="composer" onSubmit={submit} aria-label="Composer">
        <textarea aria-label="Message" value={body} onChange={(e) => setBody(e.target.value)} rows={2} />
        <button type="submit" disabled={post.isPending || !body.trim()}>
          Send
        </button>
      </form>
      {error ? (
        <p role="alert" className="error">
          {error.message}
        </p>
      ) : null}
    </div>
  );
}
