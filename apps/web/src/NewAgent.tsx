"use client";
import { Button, Input, Textarea } from "@maity/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Bot } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { PairingCode } from "./PairingCode";
import { hubErrorOf, useTRPC } from "./trpc";
import { houseFieldWords, isHandle } from "./wording/house";

/**
 * Make an agent of one's own (DESIGN §4c): a handle and what it is for. Created, it gets a pairing
 * code at once, so the next step — running `maity pair` where the agent runs — is on screen.
 */
export function NewAgent(props: { me: string; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [handle, setHandle] = useState("");
  const [description, setDescription] = useState("");
  const [tried, setTried] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const reread = () => void queryClient.invalidateQueries({ queryKey: trpc.agents.mine.queryKey() });
  const mint = useMutation(trpc.agents.mintPairingCode.mutationOptions());
  const create = useMutation(
    trpc.agents.create.mutationOptions({
      onSuccess: (agent) => {
        reread();
        mint.mutate({ agent_id: agent.id });
      },
    }),
  );
  const typed = handle.trim().toLowerCase();
  const local = tried && !isHandle(typed) ? houseFieldWords("handle", typed ? "invalid" : "required") : null;
  const fields = hubErrorOf(create.error)?.details.fields ?? {};
  const handleError = local ?? (fields.handle ? houseFieldWords("handle", fields.handle) : null);
  const descriptionError = fields.description ? houseFieldWords("description", fields.description) : null;
  const formError = create.error && !fields.handle && !fields.description ? hubErrorOf(create.error)?.message : null;

  const agent = create.data;
  // The form gives way to the result: the focus follows, so a keyboard user lands on the code.
  useEffect(() => {
    if (agent) heading.current?.focus();
  }, [agent]);
  if (agent)
    return (
      <section
        aria-label={`New agent ${agent.name}`}
        className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
      >
        <h2 ref={heading} tabIndex={-1} className="text-base font-semibold outline-none">
          Created <span className="break-all">{agent.name}</span>
        </h2>
        {mint.data ? (
          <PairingCode name={agent.name} code={mint.data.code} expiresAt={mint.data.expires_at} />
        ) : mint.isError ? (
          <p role="alert" className="text-sm text-danger-text">
            Could not make its pairing code ({hubErrorOf(mint.error)?.message ?? "the hub did not answer"}): use “Pair a
            client” below.
          </p>
        ) : (
          <p aria-busy="true" className="text-sm text-muted">
            Making its pairing code…
          </p>
        )}
        <Button className="self-start" onClick={props.onDone}>
          Done
        </Button>
      </section>
    );
  return (
    <form
      aria-label="New agent"
      className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
      onSubmit={(e) => {
        e.preventDefault();
        setTried(true);
        if (!isHandle(typed) || create.isPending) return;
        create.mutate({ handle: typed, ...(description.trim() ? { description: description.trim() } : {}) });
      }}
    >
      <h2 className="flex items-center gap-2 text-base font-semibold">
        <Bot className="size-4" aria-hidden />
        New agent
      </h2>
      <Input
        label="Handle"
        value={handle}
        maxLength={40}
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        autoFocus
        onChange={(e) => {
          setHandle(e.target.value);
          create.reset();
        }}
        hint={
          <>
            Lowercase letters, digits and dashes. Its name is{" "}
            <span className="break-all">
              {props.me}/{typed || "…"}
            </span>
            .
          </>
        }
        error={handleError}
      />
      <Textarea
        label="What it is for (optional)"
        value={description}
        maxLength={2000}
        rows={3}
        onChange={(e) => setDescription(e.target.value)}
        hint="People and agents see it beside its name; the Router reply policy reads it to pick who answers."
        error={descriptionError}
      />
      {formError ? (
        <p role="alert" className="text-sm text-danger-text">
          {formError}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary">
          {create.isPending ? "Creating…" : "Create and pair"}
        </Button>
        <Button variant="ghost" onClick={props.onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
