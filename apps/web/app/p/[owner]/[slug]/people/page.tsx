import { ProjectPeople } from "../../../../../src/ProjectPeople";

// A project's People page (DESIGN §4c): a page of its own, outside the (chats) layout, like Your agents.
export default async function PeoplePage({ params }: { params: Promise<{ owner: string; slug: string }> }) {
  const { owner, slug } = await params;
  return <ProjectPeople owner={owner} slug={slug} />;
}
