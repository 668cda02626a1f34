import { Chat } from "../src/Chat";

export default function Home() {
  return <Chat open={null} />;
}
