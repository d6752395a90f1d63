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
    request.upload.addEventListener("load", function () {
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
      } else {
        say(mesqSay("The import failed (HTTP %(status)s).", { status: request.status }), 0);
      }
    });
    request.addEventListener("error", function () {
      say(mesqSay("Could not reach MeSQ; nothing was imported."), 0);
      button.disabled = false;
    });
    button.disabled = true;
    say(mesqSay("Uploading: %(percent)s", { percent: "0%" }), 0);
    request.send(new FormData(form));
  });
})();
