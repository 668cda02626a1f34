// A chat beside the list: the (chats) layout renders both from the route (issue 15, the list
// stays mounted between chats); the URL is unchanged.
export default function ConversationPage() {
  return null;
}
