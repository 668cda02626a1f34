import { ApproveDevice } from "../../../src/ApproveDevice";

// Device login (issue 30, DESIGN §4e): the page `maity login` prints; the person approves the computer for Bays of theirs.
export default async function DevicePage({ params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  return <ApproveDevice code={code} />;
}
