"use client";
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
      onSuccess: () => {
        queryClient.clear();
        router.push("/");
      },
    }),
  );
  const error = hubErrorOf(login.error);
  // Until hydrated, a click would submit the form natively (the password in a URL): keep it disabled.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ handle, password });
  };
  return (
    <main>
      <h1>Sign in to Maity</h1>
      <form onSubmit={submit} method="post" aria-label="Sign in">
        <label>
          Handle
          <input name="handle" autoComplete="username" value={handle} onChange={(e) => setHandle(e.target.value)} aria-invalid={Boolean(error?.details.fields?.handle)} />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" disabled={!hydrated || login.isPending}>
          {login.isPending ? "Signing in…" : "Sign in"}
        </button>
        {error ? (
          <p role="alert" className="error">
            {error.message}
          </p>
        ) : null}
      </form>
    </main>
  );
}
