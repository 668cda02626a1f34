import { ApproveLink } from "../../../src/ApproveLink";

export default async function LinkPage({ params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  return <ApproveLink code={code} />;
}
