// A chat beside the list (M-006): the (chats) layout renders both from the route, so the list
// stays mounted between chats; the URL is unchanged.
export default function ConversationPage() {
  return null;
}
