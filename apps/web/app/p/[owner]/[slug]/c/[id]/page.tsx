import { Dashboard } from "../../../../../../src/Dashboard";

export default async function ConversationPage({
  params,
}: {
  params: Promise<{ owner: string; slug: string; id: string }>;
}) {
  const { owner, slug, id } = await params;
  return <Dashboard open={{ owner, slug, id }} />;
}
