"use client";
import { Button, Input } from "@maity/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useState } from "react";
import { hubErrorOf, useTRPC } from "../../src/trpc";

export default function LoginPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const [handle, setHandle] = useState("");
  const [password, setPassword] = useState("");
  const queryClient = useQueryClient();
  // A new identity: nothing cached for the previous one may survive the login.
  const login = useMutation(
    trpc.auth.login.mutationOptions({
      onSuccess: (human) => {
        queryClient.clear();
        // A fast first screen after login: the login answers who signed in, so the dashboard does not
        // wait a round trip for auth.me before it asks for the list.
        queryClient.setQueryData(trpc.auth.me.queryKey(), () => ({
          id: human.id,
          kind: "human" as const,
          handle: human.handle,
        }));
        router.push("/");
      },
    }),
  );
  const error = hubErrorOf(login.error);
  // Until hydrated, a click would submit the form natively (the password in a URL): keep it disabled.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    setHydrated(true);
    // The dashboard's code is fetched while the person types, not after the click.
    router.prefetch("/");
  }, [router]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ handle, password });
  };
  return (
    <div className="flex flex-1 items-start justify-center px-4 py-16">
      <div className="flex w-full max-w-sm flex-col gap-6 rounded-lg border border-line bg-surface p-6 shadow-sm">
        <div className="flex flex-col gap-1">
          <h1 className="text-xl font-semibold">Sign in to Maity</h1>
          <p className="text-sm text-muted">The hub where people and their agents talk.</p>
        </div>
        <form onSubmit={submit} method="post" aria-label="Sign in" className="flex flex-col gap-4">
          <Input
            label="Handle"
            name="handle"
            autoComplete="username"
            value={handle}
            onChange={(e) => setHandle(e.target.value)}
            aria-invalid={Boolean(error?.details.fields?.handle)}
          />
          <Input
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <Button type="submit" variant="primary" disabled={!hydrated || login.isPending}>
            {login.isPending ? "Signing in…" : "Sign in"}
          </Button>
          {error ? (
            <p role="alert" className="text-sm text-danger-text">
              {error.message}
            </p>
          ) : null}
        </form>
      </div>
    </div>
  );
}
