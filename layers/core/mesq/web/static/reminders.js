// Settings -> Reminders, Web Push: registers the service worker and subscribes this browser with
// the instance's VAPID public key (data-vapid-key), shows the subscription object the browser
// produced, and adds it as a channel (a form post with the page's CSRF token). Without script,
// or without Push API support, the button stays hidden.
"use strict";
(function () {
  var section = document.getElementById("webpush");
  if (!section || !("serviceWorker" in navigator) || !("PushManager" in window)) return;
  var button = document.getElementById("push-subscribe");
  var status = document.getElementById("push-status");
  var shown = document.getElementById("push-subscription");
  button.hidden = false;
  function say(text) { status.textContent = text; }
  function keyBytes(base64url) {
    var text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }
  button.addEventListener("click", function () {
    say(mesqSay("Subscribing…"));
    var registered;
    navigator.serviceWorker.register(section.dataset.worker, { scope: "/settings/" }).then(function (registration) {
      registered = registration;
      section.dataset.registered = "true";
      return navigator.serviceWorker.ready;
    }).then(function () {
      return registered.pushManager.subscribe({
        userVisibleOnly: true, applicationServerKey: keyBytes(section.dataset.vapidKey)
      });
    }).then(function (subscription) {
      var json = subscription.toJSON();
      shown.textContent = JSON.stringify(json, null, 2);
      shown.hidden = false;
      var form = new URLSearchParams({
        csrf: section.dataset.csrf, kind: "webpush", endpoint: json.endpoint,
        p256dh: json.keys.p256dh, auth: json.keys.auth
      });
      return fetch("/settings/reminders/channels", { method: "POST", body: form, credentials: "same-origin" });
    }).then(function (answer) {
      say(answer.ok ? mesqSay("This browser is subscribed.") : mesqSay("The subscription was not saved (HTTP %(status)s).", { status: answer.status }));
    }).catch(function (error) {
      section.dataset.error = String(error);
      say(mesqSay("This browser could not subscribe: %(error)s", { error: error.message }));
    });
  });
})();
