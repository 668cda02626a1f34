import type { ReactNode } from "react";
import { Providers } from "../src/trpc";
import "./globals.css";

export const metadata = { title: "Maity" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
