import { Chat } from "../../../../../../src/Chat";

export default async function ConversationPage({ params }: { params: Promise<{ owner: string; slug: string; id: string }> }) {
  const { owner, slug, id } = await params;
  return <Chat open={{ owner, slug, id }} />;
}
