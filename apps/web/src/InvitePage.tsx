"use client";
import { Button, Input, Skeleton, useToast } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, useState } from "react";
import { hubErrorOf, useTRPC } from "./trpc";
import { INVITE_NOT_VALID, inviteClosed, signupFieldWords } from "./wording/house";

// The page an invite link opens, /invite/{code} (issue 29, DESIGN §4c): where a valid link leads;
// signed in, Join; signed out, sign up (and join in the same step) or sign in. A link that expired,
// was used up or revoked says which; a wrong one says only that it is not valid — never a project.

type Project = { owner: string; slug: string; name: string };

/** Where a newcomer lands: the project's own page, where they see themselves among its people. */
const projectHref = (p: Pick<Project, "owner" | "slug">) => `/p/${p.owner}/${p.slug}/people`;

const frame = (children: ReactNode) => (
  <div className="mx-auto flex w-full max-w-md flex-col gap-5 px-4 py-8 sm:py-12">{children}</div>
);

/** A refusal of accept or sign-up that is not a field's, in words. */
function formWords(error: unknown): string | null {
  if (!error) return null;
  const hub = hubErrorOf(error);
  if (!hub) return "The hub did not answer. Try again.";
  if (hub.details.fields) return null;
  const closed = inviteClosed(hub.details.reason);
  if (closed) return closed;
  if (hub.code === "not_found") return INVITE_NOT_VALID;
  if (hub.code === "rate_limited") {
    const wait = (hub.details as { retry_after?: number }).retry_after;
    return `Too many tries from here. Try again${wait ? ` in ${wait} seconds` : " in a little while"}.`;
  }
  return hub.message;
}

export function InvitePage({ code }: { code: string }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const preview = useQuery(trpc.invites.preview.queryOptions({ code }));

  if (me.isLoading || preview.isLoading)
    return (
      <div aria-busy="true" className="mx-auto flex w-full max-w-md flex-col gap-3 px-4 py-8">
        <span className="sr-only">Loading…</span>
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-40" />
      </div>
    );
  const away = (
    <p>
      <Link href={me.data ? "/" : "/login"} className="text-accent underline">
        {me.data ? "Back to your chats" : "Sign in to Maity"}
      </Link>
    </p>
  );
  if (preview.isError) {
    const wrong = hubErrorOf(preview.error)?.code === "not_found";
    return frame(
      <>
        <h1 className="text-xl font-semibold">Invite link</h1>
        <p role="alert" className={wrong ? "" : "text-danger-text"}>
          {wrong ? INVITE_NOT_VALID : "Could not reach the hub. Reload to try again."}
        </p>
        {away}
      </>,
    );
  }
  const project = preview.data?.project;
  const closed = inviteClosed(preview.data?.status);
  if (closed || !project)
    return frame(
      <>
        <h1 className="text-xl font-semibold">Invite link</h1>
        <p role="alert">{closed ?? INVITE_NOT_VALID}</p>
        {away}
      </>,
    );
  return frame(
    <>
      <div className="flex flex-col gap-1">
        <h1 className="text-xl font-semibold break-words">
          You're invited to {project.name}{" "}
          <span className="font-normal break-words text-muted">
            ({project.owner}/{project.slug})
          </span>
        </h1>
        <p className="text-sm text-muted">
          Maity is the hub where people and their agents talk. Joining makes you one of the project's people.
        </p>
      </div>
      {me.data ? <Join code={code} project={project} /> : <SignedOut code={code} project={project} />}
    </>,
  );
}

/** Signed in: Join, then the project; a member already is told so, with the way there. */
function Join({ code, project }: { code: string; project: Project }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const [already, setAlready] = useState(false);
  const accept = useMutation(
    trpc.invites.accept.mutationOptions({
      onSuccess: (out) => {
        void queryClient.invalidateQueries({ queryKey: trpc.projects.mine.queryKey() });
        if (!out.joined) return setAlready(true);
        toast({ title: `You joined ${out.project.name}`, description: "A chat's manager adds you to its chats." });
        router.push(projectHref(out.project));
      },
    }),
  );
  const error = formWords(accept.error);
  if (already)
    return (
      <p role="status" className="rounded-md bg-surface-2 px-3 py-2">
        You're already a member of {project.name}.{" "}
        <Link href={projectHref(project)} className="text-accent underline">
          Go to {project.name}
        </Link>
      </p>
    );
  return (
    <div className="flex flex-col gap-3">
      <Button
        variant="primary"
        className="self-start"
        aria-disabled={accept.isPending}
        onClick={() => {
          if (!accept.isPending) accept.mutate({ code });
        }}
      >
        {accept.isPending ? "Joining…" : `Join ${project.name}`}
      </Button>
      {error ? (
        <p role="alert" className="text-sm text-danger-text">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** Signed out: sign up (joining in the same step), or sign in with an account one has. */
function SignedOut({ code, project }: { code: string; project: Project }) {
  return (
    <>
      <section aria-labelledby="signup-heading" className="flex flex-col gap-3">
        <h2 id="signup-heading" className="text-base font-semibold">
          New to Maity? Sign up
        </h2>
        <SignupForm code={code} project={project} />
      </section>
      <section aria-labelledby="signin-heading" className="flex flex-col gap-2">
        <h2 id="signin-heading" className="text-base font-semibold">
          I have an account
        </h2>
        <p className="text-sm">
          <Link href="/login" className="text-accent underline">
            I have an account — sign in
          </Link>
          , then open this invite link again to join.
        </p>
      </section>
    </>
  );
}

/** Handle, name, password: a person of their own Bay, signed in and one of the project's people. */
export function SignupForm({ code, project }: { code: string; project: Project }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const [handle, setHandle] = useState("");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const signup = useMutation(
    trpc.auth.signup.mutationOptions({
      onSuccess: (human) => {
        // A new identity: nothing cached while signed out may survive (as the login does).
        queryClient.clear();
        queryClient.setQueryData(trpc.auth.me.queryKey(), () => ({
          id: human.id,
          kind: "human" as const,
          handle: human.handle,
        }));
        const joined = human.project ?? project;
        toast({ title: `Welcome, ${human.name}`, description: `You joined ${joined.name}.` });
        router.push(projectHref(joined));
      },
    }),
  );
  const fields = hubErrorOf(signup.error)?.details.fields ?? {};
  const at = (field: string) => (fields[field] ? signupFieldWords(field, fields[field]) : null);
  const error = formWords(signup.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!signup.isPending) signup.mutate({ handle: handle.trim().toLowerCase(), name, password, invite: code });
  };
  return (
    <form
      onSubmit={submit}
      method="post"
      aria-label="Sign up"
      className="flex flex-col gap-4 rounded-lg border border-line bg-surface p-4 sm:p-6"
    >
      <Input
        label="Handle"
        name="handle"
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        value={handle}
        onChange={(e) => setHandle(e.target.value)}
        hint="You sign in with it; people mention you by it. Lowercase letters, digits and dashes."
        error={at("handle")}
      />
      <Input
        label="Your name"
        name="name"
        autoComplete="name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={at("name")}
      />
      <Input
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        hint="At least 8 characters."
        error={at("password")}
      />
      {error ? (
        <p role="alert" className="text-sm text-danger-text">
          {error}
        </p>
      ) : null}
      <Button type="submit" variant="primary" className="self-start" aria-disabled={signup.isPending}>
        {signup.isPending ? "Signing up…" : `Sign up and join ${project.name}`}
      </Button>
    </form>
  );
}
