import { InvitePage } from "../../../src/InvitePage";

// An invite link (issue 29, DESIGN §4c): a page of its own, open to anyone; codes are base64url.
export default async function Invite({ params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  return <InvitePage code={code} />;
}
