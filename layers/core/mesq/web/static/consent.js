// Consent: post the decision as JSON and follow redirectUrl (docs/contract.md §1). Without this script
// the form posts itself and the server answers with a 303 to the same place.
"use strict";
(function () {
  var form = document.getElementById("consent");
  var status = document.getElementById("consent-status");
  if (!form) return;
  // A page this script reloaded for a stale form (below) says so, and reloads no second time.
  var reloadKey = "mesq-consent-reloaded:" + form.elements.requestId.value;
  var reloaded = false;
  try {
    reloaded = window.sessionStorage.getItem(reloadKey) === "1";
    window.sessionStorage.removeItem(reloadKey);
  } catch (error) { /* no storage: such a page never reloads itself */ }
  if (reloaded) document.getElementById("consent-reloaded").hidden = false;

  function staleForm(result) {
    var error = result.body && result.body.error;
    return result.status === 403 && error && error.details && error.details.reason === "staleForm";
  }

  function reloadOnce() {
    // The person signed in again elsewhere: this page's CSRF token was the ended session's. The
    // request still waits for its answer (its id is in the URL), so the page is reloaded as the
    // session is now (the account it names included) and the person chooses again: the click is
    // never sent again by itself. Once only: a second refusal is said, not reloaded.
    if (reloaded) return false;
    try { window.sessionStorage.setItem(reloadKey, "1"); } catch (error) { return false; }
    window.location.reload();
    return true;
  }

  function ticked() {
    // The boxes sit in the list above the form (form="consent"): the scopes the person kept.
    return Array.prototype.filter.call(form.elements, function (element) {
      return element.name === "scopes" && element.checked;
    }).map(function (element) { return element.value; });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var decision = event.submitter ? event.submitter.value : "deny";
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    fetch(form.action, {
      method: "POST",
      credentials: "same-origin",
      referrerPolicy: "same-origin", // the page's no-referrer would make the Origin header "null"
      headers: { "Content-Type": "application/json", "X-CSRF-Token": form.elements.csrf.value },
      body: JSON.stringify({ requestId: form.elements.requestId.value, decision: decision, scopes: ticked() })
    }).then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, status: response.status, body: body }; });
    }).then(function (result) {
      if (result.status === 401) {
        // The session ended while the page was open (signed out in another tab): sign in and come
        // back to this same request, which is still waiting for its answer.
        window.location.assign("/login?next=" + encodeURIComponent(window.location.pathname + window.location.search));
        return;
      }
      if (staleForm(result) && reloadOnce()) return;
      if (result.ok && result.body.ok && result.body.redirectUrl) {
        // A native app's callback (cursor://...) leaves the browser on this page: say what was
        // answered instead of asking again with dead buttons.
        var done = document.getElementById("consent-done");
        done.querySelector('[data-decision="' + decision + '"]').hidden = false;
        done.hidden = false;
        form.hidden = true;
        window.location.assign(result.body.redirectUrl);
        return;
      }
      var message = result.body && result.body.error ? result.body.error.message : mesqSay("The answer was not accepted.");
      status.textContent = message;
      status.hidden = false;
      buttons.forEach(function (b) { b.disabled = false; }); // e.g. every box unticked: choose again
    }).catch(function () {
      status.textContent = mesqSay("Could not reach MeSQ; check the connection and try again.");
      status.hidden = false;
      buttons.forEach(function (b) { b.disabled = false; });
    });
  });
})();
