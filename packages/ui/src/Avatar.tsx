import { cva, type VariantProps } from "class-variance-authority";
import { Bot } from "lucide-react";
import { cn } from "./cn";

const avatarVariants = cva(
  "relative inline-flex shrink-0 select-none items-center justify-center font-semibold uppercase",
  {
    variants: {
      size: { sm: "size-6 text-[0.625rem]", md: "size-8 text-xs", lg: "size-10 text-sm" },
      kind: {
        // Humans are round; agents are rounded squares in the agent colour, with a bot mark: told
        // apart by shape and icon as well as colour (WCAG 1.4.1).
        human: "rounded-full bg-surface-2 text-fg border border-line",
        agent: "rounded-md bg-agent-soft text-agent-text border border-agent",
      },
    },
    defaultVariants: { size: "md", kind: "human" },
  },
);

/** Two letters from a name: "Ann Lee" → AL, "maintainer/agent-a" → AA, "hum-guest" → HG. */
export function initials(name: string): string {
  const tail = name.includes("/") ? (name.split("/").pop() ?? name) : name;
  const words = tail.split(/[\s\-_.]+/).filter(Boolean);
  const letters = words.length >= 2 ? `${words[0]?.[0] ?? ""}${words.at(-1)?.[0] ?? ""}` : tail.slice(0, 2);
  return letters.toUpperCase() || "?";
}

export type AvatarProps = VariantProps<typeof avatarVariants> & {
  name: string;
  className?: string;
  /** Hide from assistive tech when the name is already written beside the avatar. */
  decorative?: boolean;
};

export function Avatar({ name, kind = "human", size, className, decorative = false }: AvatarProps) {
  const label = kind === "agent" ? `${name} (agent)` : name;
  return (
    <span
      className={cn(avatarVariants({ size, kind }), className)}
      {...(decorative ? { "aria-hidden": true } : { role: "img", "aria-label": label })}
      title={decorative ? undefined : label}
    >
      <span aria-hidden>{initials(name)}</span>
      {kind === "agent" ? (
        <span
          aria-hidden
          className="absolute -right-1 -bottom-1 grid size-3.5 place-items-center rounded-full border border-surface bg-agent text-agent-fg"
        >
          <Bot className="size-2.5" strokeWidth={2.5} />
        </span>
      ) : null}
    </span>
  );
}
