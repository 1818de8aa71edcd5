/*
 * Clawdeck's service worker. It shows the push notifications about requests waiting for a decision, and acts on
 * them: the notification opens the request's card; Approve decides through the same decision route as the inbox,
 * signed in as whoever is signed in to this browser (the route checks the session, the role and four eyes);
 * Reject opens the card, which asks for the reason. It caches nothing: the app is only useful online.
 */
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let data = null;
  try {
    data = event.data ? event.data.json() : null;
  } catch {
    data = null;
  }
  if (!data || typeof data.title !== "string") return;
  event.waitUntil(showRequest(data));
});

/** Shows one request; a later notification about the same request replaces it (same tag). */
function showRequest(data) {
  return self.registration.showNotification(data.title, {
    body: data.body,
    tag: data.tag,
    renotify: true,
    requireInteraction: true,
    icon: "/icon-192.png",
    badge: "/icon-192.png",
    data: { url: data.url, approvalId: data.approvalId, workspace: data.workspace, tag: data.tag },
    actions: data.actions
      ? [
          { action: "approve", title: "Approve" },
          { action: "reject", title: "Reject…" },
        ]
      : [],
  });
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(handleNotificationClick(event.notification.data, event.action));
});

/** What a tap does: Approve decides here; anything else (and every refusal) opens the card. */
async function handleNotificationClick(data, action) {
  if (!data || typeof data.url !== "string" || !data.url.startsWith("/") || data.url.startsWith("//")) return;
  if (action === "approve") {
    const outcome = await decide(data);
    await self.registration.showNotification(outcome.ok ? "Approved" : "Not approved", {
      body: outcome.message,
      tag: data.tag,
      data: { url: data.url, tag: data.tag },
    });
    return outcome.ok ? undefined : openCard(data.url);
  }
  return openCard(data.url);
}

async function decide(data) {
  try {
    const response = await fetch(`/api/approvals/${encodeURIComponent(data.approvalId)}/decision?workspace=${encodeURIComponent(data.workspace)}`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve", via: "push" }),
    });
    if (response.ok) return { ok: true, message: "The agent goes on." };
    const body = await response.json().catch(() => ({}));
    const message = response.status === 401 ? "Sign in to Clawdeck on this device to decide from notifications." : body.message || "It was not decided.";
    return { ok: false, message };
  } catch {
    return { ok: false, message: "Clawdeck could not be reached. Open the request to decide it." };
  }
}

/** Shows the card in a Clawdeck window that is already open, else in a new one. */
async function openCard(url) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: false });
  for (const client of windows) {
    try {
      const moved = await client.navigate(url);
      if (moved) {
        await moved.focus().catch(() => undefined);
        return;
      }
    } catch {
      // This window cannot be moved (another origin's page, say): try the next, or open one.
    }
  }
  await self.clients.openWindow(url);
}
