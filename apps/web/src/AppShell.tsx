"use client";
import {
  Avatar,
  Badge,
  Button,
  cn,
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuLabel,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuTrigger,
  focusRing,
  IconButton,
  type ThemeChoice,
  Tooltip,
  useTheme,
} from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { LogOut, Monitor, Moon, Sun } from "lucide-react";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, useEffect } from "react";
import { LiveFeed } from "./live";
import { QuickSwitcher } from "./QuickSwitcher";
import { MessageSearch, MessageSearchButton } from "./search/MessageSearch";
import { useTRPC } from "./trpc";

/**
 * The frame of every page (kept mounted by app/layout.tsx): the product name, the navigation, the
 * unread totals, the theme menu and the signed-in user. Pages render inside <main>.
 */
export function AppShell({ children }: { children: ReactNode }) {
  return (
    <div className="flex h-dvh flex-col">
      <a
        href="#main"
        className={cn(
          "sr-only rounded-md bg-surface px-3 py-2 focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50",
          focusRing,
        )}
      >
        Skip to content
      </a>
      <Header />
      <LiveFeed />
      {/* The window never scrolls: a page scrolls inside <main>, the dashboard's list and chat each in their own pane. */}
      <main id="main" className="flex min-h-0 flex-1 flex-col overflow-y-auto">
        {children}
      </main>
    </div>
  );
}

function Header() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const signedIn = Boolean(me.data);
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({
      onSuccess: () => {
        queryClient.clear();
        router.push("/login");
      },
    }),
  );
  // The totals for the header and the tab's title; the shell's live feed keeps this query fresh on every page.
  const totals = useQuery({ ...trpc.conversations.mine.queryOptions({ limit: 1 }), enabled: signedIn });
  const unread = signedIn ? (totals.data?.totals.unread ?? 0) : 0;
  const mentions = signedIn ? (totals.data?.totals.mentions_unread ?? 0) : 0;
  useEffect(() => {
    document.title = unread > 0 ? `(${unread}${mentions > 0 ? ` · @${mentions}` : ""}) Maity` : "Maity";
  }, [unread, mentions]);

  // A project's People page (DESIGN §4c) is a page of its own, not the chats.
  const chats = pathname === "/" || (pathname.startsWith("/p/") && !pathname.endsWith("/people"));
  return (
    <header className="sticky top-0 z-30 flex min-h-14 flex-wrap items-center gap-x-4 gap-y-2 border-b border-line bg-surface px-4 py-2">
      <Link
        href="/"
        className={cn("flex items-center gap-2 rounded-md text-base font-bold tracking-tight no-underline", focusRing)}
      >
        <span aria-hidden className="grid size-7 place-items-center rounded-md bg-accent text-sm text-accent-fg">
          M
        </span>
        Maity
      </Link>
      {signedIn ? (
        <nav aria-label="Main" className="flex items-center gap-1">
          <NavLink href="/" current={chats}>
            Chats
            {unread > 0 ? <Badge variant="count">{unread} unread</Badge> : null}
            {mentions > 0 ? <Badge variant="mention">{mentions} @</Badge> : null}
          </NavLink>
          <NavLink href="/agents" current={pathname === "/agents"}>
            Your agents
          </NavLink>
        </nav>
      ) : null}
      {/* DESIGN §4d: on a phone, message search is a button at the end of the first row (a sheet opens). */}
      {signedIn ? <MessageSearchButton className="ml-auto" /> : null}
      <div className="ml-auto flex items-center gap-2">
        {/* Message search (`/`), then the quick switcher: Ctrl/Cmd+K from any page, and a visible trigger for mouse and touch users. */}
        {signedIn ? <MessageSearch /> : null}
        {signedIn ? <QuickSwitcher /> : null}
        <ThemeMenu />
        {me.data ? (
          <>
            <span className="flex items-center gap-2 text-sm text-muted">
              <Avatar name={me.data.handle} kind={me.data.kind === "agent" ? "agent" : "human"} size="sm" decorative />
              <span>
                Signed in as <span className="font-medium text-fg">{me.data.handle}</span>
              </span>
            </span>
            <Tooltip content="Sign out">
              <Button variant="ghost" size="sm" onClick={() => logout.mutate()} disabled={logout.isPending}>
                <LogOut aria-hidden />
                <span className="max-sm:sr-only">Sign out</span>
              </Button>
            </Tooltip>
          </>
        ) : null}
      </div>
    </header>
  );
}

function NavLink({ href, current, children }: { href: string; current: boolean; children: ReactNode }) {
  return (
    <Link
      href={href}
      aria-current={current ? "page" : undefined}
      className={cn(
        "inline-flex h-8 items-center gap-1.5 rounded-md px-3 text-sm font-medium text-muted no-underline hover:bg-surface-2 hover:text-fg",
        current && "bg-surface-2 text-fg",
        focusRing,
      )}
    >
      {children}
    </Link>
  );
}

const THEMES: { value: ThemeChoice; label: string; icon: ReactNode }[] = [
  { value: "light", label: "Light", icon: <Sun aria-hidden /> },
  { value: "dark", label: "Dark", icon: <Moon aria-hidden /> },
  { value: "system", label: "System", icon: <Monitor aria-hidden /> },
];

function ThemeMenu() {
  const { choice, setChoice } = useTheme();
  const current = THEMES.find((t) => t.value === choice) ?? THEMES[2];
  return (
    <DropdownMenu>
      <Tooltip content="Theme">
        <DropdownMenuTrigger asChild>
          <IconButton aria-label={`Theme: ${current?.label ?? "System"}`} icon={current?.icon} />
        </DropdownMenuTrigger>
      </Tooltip>
      <DropdownMenuContent align="end">
        <DropdownMenuLabel>Theme</DropdownMenuLabel>
        <DropdownMenuRadioGroup value={choice} onValueChange={(v) => setChoice(v as ThemeChoice)}>
          {THEMES.map((t) => (
            <DropdownMenuRadioItem key={t.value} value={t.value}>
              {t.icon}
              {t.label}
            </DropdownMenuRadioItem>
          ))}
        </DropdownMenuRadioGroup>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
