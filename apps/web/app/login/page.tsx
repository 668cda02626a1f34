"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { hubErrorOf, useTRPC } from "../../src/trpc";

export default function LoginPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const [handle, setHandle] = useState("");
  const [password, setPassword] = useState("");
  const login = useMutation(trpc.auth.login.mutationOptions({ onSuccess: () => router.push("/") }));
  const error = hubErrorOf(login.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ handle, password });
  };
  return (
    <main>
      <h1>Sign in to Maity</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          Handle
          <input name="handle" autoComplete="username" value={handle} onChange={(e) => setHandle(e.target.value)} aria-invalid={Boolean(error?.details.fields?.handle)} />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" disabled={login.isPending}>
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
