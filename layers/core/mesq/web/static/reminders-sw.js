// The reminders service worker (scope /settings/): shows a reminder push (its payload, decrypted
// by the browser: {title, body, url, id}) and opens the task when the notification is clicked.
"use strict";
self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (ignored) { data = {}; }
  event.waitUntil(self.registration.showNotification(data.title || "MeSQ", {
    body: data.body || "", tag: data.id || undefined, data: { url: data.url || "/" }
  }));
});
self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  event.waitUntil(self.clients.openWindow(event.notification.data.url));
});
