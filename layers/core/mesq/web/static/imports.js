// Settings → Import, from another app: send the form with XMLHttpRequest so the upload's
// progress shows (a big memos database or flomo export takes a while), then "Importing…" while
// the server checks and writes. The answer is a redirect to the report page (followed here) or
// the form again with the file's one-line problem (shown in place of the page's main part).
// No inline script: the page's CSP allows scripts from /static only.
"use strict";
(function () {
  var form = document.getElementById("app-import-form");
  if (!form || !window.XMLHttpRequest || !window.FormData) return;
  var progress = document.getElementById("app-import-progress");
  var bar = progress.querySelector("progress");
  var words = progress.querySelector("span");
  var button = form.querySelector("button[type=submit]");
  function say(text, percent) {
    progress.hidden = false;
    words.textContent = text;
    if (percent === null) bar.removeAttribute("value"); else bar.value = percent;
  }
  form.addEventListener("submit", function (event) {
    if (!form.checkValidity()) return;
    event.preventDefault();
    var request = new XMLHttpRequest();
    request.open("POST", form.getAttribute("action"));
    request.upload.addEventListener("progress", function (e) {
      if (!e.lengthComputable) return;
      var percent = Math.floor((100 * e.loaded) / e.total);
      say(mesqSay("Uploading: %(percent)s", { percent: percent + "%" }), percent);
    });
    // Once the file is sent whole, MeSQ imports it: an answer lost from then on (a proxy's
    // timeout, the server restarting) may come after writes, never "nothing was imported".
    var sent = false;
    request.upload.addEventListener("load", function () {
      sent = true;
      say(mesqSay("Checking and importing… a big file takes a minute."), null);
    });
    request.addEventListener("load", function () {
      if (request.status === 200 && request.responseURL && request.responseURL.indexOf("/settings/import/runs/") !== -1) {
        window.location.assign(request.responseURL);
        return;
      }
      var page = new DOMParser().parseFromString(request.responseText, "text/html");
      var main = page.getElementById("main");
      if (main) {
        document.getElementById("main").innerHTML = main.innerHTML;
        var shown = document.getElementById("app-import-error") || document.getElementById("app-import-problem");
        if (shown) shown.scrollIntoView();
      } else if (sent) {
        say(mesqSay("No answer came from MeSQ while it was importing (HTTP %(status)s): the file may be imported in part or in whole. Reload this page (an unfinished import is listed here), or import the same file again: nothing is added twice.", { status: request.status }), 0);
        button.disabled = false;
      } else {
        say(mesqSay("The import failed (HTTP %(status)s).", { status: request.status }), 0);
      }
    });
    request.addEventListener("error", function () {
      if (sent) {
        say(mesqSay("The connection to MeSQ was lost while it was importing: the file may be imported in part or in whole. Reload this page (an unfinished import is listed here), or import the same file again: nothing is added twice."), 0);
      } else {
        say(mesqSay("Could not reach MeSQ; nothing was imported."), 0);
      }
      button.disabled = false;
    });
    button.disabled = true;
    say(mesqSay("Uploading: %(percent)s", { percent: "0%" }), 0);
    request.send(new FormData(form));
  });
})();
