/**
 * Headers for the page: nothing cached (the URL carries the token), no referrer (nor the token with
 * it), no framing by another page, and no script, style or socket but the page's own.
 */
export const chatPageHeaders: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

/**
 * The dev gateway's web chat page (`GET /`): one self-contained document, no build step and no
 * external assets. It talks to `/ui` on the same host (passing on its own `?token=`, which the
 * gateway requires along with the page's own origin), sends
 * `{ text, proactive, eventId?, clientId }`, and shows each `{ kind: "reply" }` as its own bubble with the
 * time since the user's message (a file it carries as its `📎 name (size)` line, above the caption).
 * The gateway answers each message with its id (`{ kind: "sent", clientId, messageId }`),
 * and `add_reaction` / `remove_reaction` commands on that id show as the status reaction under the
 * message, as a chat app shows it; `edit_message` replaces a reply's text in place (marked
 * "edited") and `delete_message` removes it; other commands are notes. Message text only ever goes through
 * `textContent`.
 */
export const chatPageHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>turnstream dev chat</title>
<style>
  :root { font-family: system-ui, sans-serif; color: #1d1d1f; background: #f2f2f5; }
  body { margin: 0; display: flex; flex-direction: column; height: 100vh; max-width: 40rem; margin-inline: auto; }
  header { padding: .6rem 1rem; font-weight: 600; display: flex; justify-content: space-between; }
  #status { font-weight: 400; color: #666; font-size: .85rem; }
  #log { flex: 1; overflow-y: auto; padding: .5rem 1rem; display: flex; flex-direction: column; gap: .4rem; list-style: none; margin: 0; }
  #log li { max-width: 80%; padding: .45rem .7rem; border-radius: 1rem; white-space: pre-wrap; overflow-wrap: anywhere; }
  .mine { align-self: flex-end; background: #0a66d8; color: #fff; }
  .bubble { align-self: flex-start; background: #fff; border: 1px solid #ddd; }
  .note { align-self: center; color: #555; font-size: .85rem; font-style: italic; }
  .quote { display: block; font-size: .75rem; color: #666; }
  .file { display: block; font-weight: 500; }
  .gap { display: block; font-size: .75rem; color: #666; margin-top: .15rem; }
  .edited { display: block; font-size: .7rem; color: #888; }
  .reactions { display: table; margin: .25rem 0 -.1rem auto; padding: .05rem .4rem; border-radius: .8rem; background: #fff; color: #1d1d1f; font-size: .95rem; }
  .reactions:empty { display: none; }
  #typing { padding: 0 1rem .3rem; color: #555; font-size: .85rem; }
  form { display: flex; flex-wrap: wrap; gap: .5rem; padding: .6rem 1rem 1rem; border-top: 1px solid #ddd; background: #fff; }
  #text { flex: 1 1 14rem; padding: .5rem; font: inherit; }
  button { padding: .5rem 1rem; font: inherit; }
  .options { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; width: 100%; font-size: .9rem; }
  #eventId { width: 9rem; }
</style>
</head>
<body>
<header><span>turnstream dev chat</span><span id="status" role="status">connecting…</span></header>
<ul id="log" aria-live="polite" aria-label="Conversation"></ul>
<div id="typing" hidden>agent is typing…</div>
<form id="composer">
  <input id="text" name="text" autocomplete="off" placeholder="Type a message" aria-label="Message" required>
  <button id="send" type="submit">Send</button>
  <div class="options">
    <label><input id="proactive" type="checkbox" role="switch"> proactive</label>
    <label><input id="fixedId" type="checkbox" role="switch"> fixed event id</label>
    <label>id <input id="eventId" value="evt_42" aria-label="Event id"></label>
  </div>
</form>
<script>
(() => {
  const $ = (id) => document.getElementById(id);
  const log = $("log"), typing = $("typing"), status = $("status");
  const token = new URLSearchParams(location.search).get("token");
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const url = scheme + "//" + location.host + "/ui" + (token ? "?token=" + encodeURIComponent(token) : "");
  let ws, sentAt = performance.now(), idleTimer, idleSeen = false, queue = [];
  // The user's messages still waiting for the id the gateway gives them, by the page's own name.
  const unnamed = new Map();
  let nextClientId = 1;
  // Each message's reactions, in the order they were added.
  const reactionsOf = new Map();

  function part(li, className, text) {
    const span = document.createElement("span");
    span.className = className;
    span.textContent = text;
    li.appendChild(span);
  }
  function add(kind, text, gapMs, quote, files) {
    const li = document.createElement("li");
    li.className = kind;
    if (quote !== undefined) part(li, "quote", "↩ reply to " + quote);
    for (const file of files ?? []) part(li, "file", String(file));
    part(li, "text", text);
    if (gapMs !== undefined) part(li, "gap", "+" + (gapMs / 1000).toFixed(2) + " s");
    log.appendChild(li);
    log.scrollTop = log.scrollHeight;
    return li;
  }
  function react(command, messageId, emoji) {
    const li = Array.from(log.querySelectorAll(".mine")).find((item) => item.dataset.messageId === messageId);
    if (li === undefined) return false;
    const shown = reactionsOf.get(li) ?? [];
    const next = command === "add_reaction" ? shown.filter((e) => e !== emoji).concat([emoji]) : shown.filter((e) => e !== emoji);
    reactionsOf.set(li, next);
    let span = li.querySelector(".reactions");
    if (span === null) { span = document.createElement("span"); span.className = "reactions"; li.appendChild(span); }
    span.textContent = next.join(" ");
    span.setAttribute("aria-label", next.length === 0 ? "no reaction" : "reaction " + next.join(" "));
    return true;
  }
  // A posted message changed in place (edit_message) or went away (delete_message), as a chat app shows it.
  function change(command, messageId, text) {
    const li = Array.from(log.querySelectorAll(".bubble")).find((item) => item.dataset.messageId === messageId);
    if (li === undefined) return false;
    if (command === "delete_message") { li.remove(); return true; }
    li.querySelector(".text").textContent = text;
    if (li.querySelector(".edited") === null) part(li, "edited", "edited");
    log.scrollTop = log.scrollHeight;
    return true;
  }
  function setTyping(on) {
    typing.hidden = !on;
    clearTimeout(idleTimer);
    // Without a gateway that reports turn ends, assume idle after 3 s without a new bubble.
    if (on && !idleSeen) idleTimer = setTimeout(() => setTyping(false), 3000);
  }
  function connect() {
    ws = new WebSocket(url);
    ws.onopen = () => { status.textContent = "connected"; queue.splice(0).forEach((m) => ws.send(m)); };
    ws.onclose = () => { status.textContent = "disconnected, retrying…"; setTimeout(connect, 1000); };
    ws.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      if (message.kind === "idle") { idleSeen = true; setTyping(false); return; }
      if (message.kind === "sent") {
        const li = unnamed.get(message.clientId);
        unnamed.delete(message.clientId);
        if (li !== undefined) li.dataset.messageId = String(message.messageId);
        return;
      }
      if (message.kind !== "reply") return;
      if ((message.command === "add_reaction" || message.command === "remove_reaction") && react(message.command, message.replyTo, message.text)) return;
      if ((message.command === "edit_message" || message.command === "delete_message") && change(message.command, message.replyTo, message.text)) return;
      if (message.command !== undefined) { add("note", "command: " + message.command + " " + message.text); return; }
      const li = add("bubble", message.text, message.afterMs ?? performance.now() - sentAt, message.quote, message.files);
      if (message.messageId !== undefined) li.dataset.messageId = String(message.messageId);
      if (!typing.hidden) setTyping(true);
    };
  }
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("text").value;
    if (text.trim() === "") return;
    const clientId = "c" + nextClientId++;
    const message = { text, proactive: $("proactive").checked, clientId };
    const eventId = $("eventId").value.trim();
    if ($("fixedId").checked && eventId !== "") message.eventId = eventId;
    const wire = JSON.stringify(message);
    if (ws.readyState === WebSocket.OPEN) ws.send(wire); else queue.push(wire);
    unnamed.set(clientId, add("mine", text));
    sentAt = performance.now();
    $("text").value = "";
    setTyping(true);
  });
  connect();
})();
</script>
</body>
</html>
`;
