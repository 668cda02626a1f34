import { themeScript } from "@maity/ui/themeScript";
import type { ReactNode } from "react";
import { AppShell } from "../src/AppShell";
import { Providers } from "../src/trpc";
import "./globals.css";

export const metadata = { title: "Maity" };

// The shell (header, providers) lives here so navigating between pages keeps it mounted; pages
// render only their own content inside <main>.
export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The inline script sets data-theme before React hydrates: the attribute differs from the
    // server's HTML on purpose.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant of our own, run before first paint (no theme flash) */}
        <script dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body className="bg-bg text-fg">
        <Providers>
          <AppShell>{children}</AppShell>
        </Providers>
      </body>
    </html>
  );
}
