"use client";
import { Button, DialogFooter, Input, useToast } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { hubErrorOf, useTRPC } from "./trpc";
import { houseFieldWords, isHandle, slugFromName } from "./wording/house";

/**
 * Create a project in one's own Bay (DESIGN §4c): a name and a slug, the slug suggested from the
 * name until the person types one of their own. The hub's refusals show at their field (a taken
 * slug); on success the new project's People page opens, where the next step is adding people.
 */
export function NewProject({ onClose }: { onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const me = useQuery(trpc.auth.me.queryOptions());
  const [name, setName] = useState("");
  // null: the slug follows the name; a string: the person's own.
  const [ownSlug, setOwnSlug] = useState<string | null>(null);
  const slug = ownSlug ?? slugFromName(name);
  const [tried, setTried] = useState(false);
  const create = useMutation(
    trpc.projects.create.mutationOptions({
      onSuccess: (project) => {
        void queryClient.invalidateQueries({ queryKey: trpc.projects.mine.queryKey() });
        toast({ title: `Created “${project.name}”`, description: "Add the people who work in it." });
        onClose();
        router.push(`/p/${project.owner}/${project.slug}/people`);
      },
    }),
  );
  const error = hubErrorOf(create.error);
  const fields = error?.details.fields ?? {};
  // Said before sending, in the hub's own rule (HANDLE_PATTERN), once Create is tried.
  const slugLocal = tried && !isHandle(slug) ? houseFieldWords("slug", slug ? "invalid" : "required") : null;
  const nameLocal = tried && !name.trim() ? houseFieldWords("name", "required") : null;
  const slugError = slugLocal ?? (fields.slug ? houseFieldWords("slug", fields.slug) : null);
  const nameError = nameLocal ?? (fields.name ? houseFieldWords("name", fields.name) : null);
  const formError = error && !fields.slug && !fields.name ? error.message : null;
  return (
    <form
      className="flex flex-col gap-4"
      aria-label="New project"
      onSubmit={(e) => {
        e.preventDefault();
        setTried(true);
        if (!name.trim() || !isHandle(slug) || create.isPending) return;
        create.mutate({ name: name.trim(), slug });
      }}
    >
      <Input
        label="Name"
        value={name}
        maxLength={120}
        autoComplete="off"
        onChange={(e) => {
          setName(e.target.value);
          create.reset();
        }}
        error={nameError}
      />
      <Input
        label="Slug"
        value={slug}
        maxLength={40}
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        onChange={(e) => {
          // Emptied, it follows the name again.
          setOwnSlug(e.target.value === "" ? null : e.target.value);
          create.reset();
        }}
        hint={
          <>
            Lowercase letters, digits and dashes: the project's name in links,{" "}
            <span className="break-all">
              /p/{me.data?.handle ?? "you"}/{slug || "…"}
            </span>
            .
          </>
        }
        error={slugError}
      />
      {formError ? (
        <p role="alert" className="text-sm text-danger-text">
          {formError}
        </p>
      ) : null}
      <DialogFooter>
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="primary">
          {create.isPending ? "Creating…" : "Create project"}
        </Button>
      </DialogFooter>
    </form>
  );
}
