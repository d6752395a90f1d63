// The reminders service worker (scope /settings/): shows a reminder push (its payload, decrypted
// by the browser: {title, body, url, id, lang}) in the language it names (`lang`: the user's, so the
// device draws Chinese in Chinese glyphs) and opens the task when the notification is clicked.
"use strict";
self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (ignored) { data = {}; }
  event.waitUntil(self.registration.showNotification(data.title || "MeSQ", {
    body: data.body || "", tag: data.id || undefined, lang: data.lang || "", data: { url: data.url || "/" }
  }));
});
self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  event.waitUntil(self.clients.openWindow(event.notification.data.url));
});
