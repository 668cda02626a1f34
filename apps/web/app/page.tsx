import { Dashboard } from "../src/Dashboard";

export default function Home() {
  return <Dashboard open={null} />;
}
