import type { ReactNode } from "react";
import { Dashboard } from "../../src/Dashboard";

// "/" and "/p/{owner}/{slug}/c/{id}" share this layout, so the list (and its scroll
// position) stays mounted while moving between chats; the Dashboard reads the open chat from the
// route (useParams) and the pages add nothing of their own.
export default function ChatsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <Dashboard />
      {children}
    </>
  );
}
