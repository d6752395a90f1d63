// Reading import: send the chosen file's text as the JSON body (with the CSRF header) and show
// the answer. No inline script: the page's CSP allows scripts from /static only.
// The file is decoded strictly: one that is not UTF-8 is refused here, as `mesq reading import`
// refuses it (Blob.text() would put U+FFFD in place of its bytes and import the damaged text).
"use strict";
(function () {
  var form = document.getElementById("import-form");
  var result = document.getElementById("import-result");
  if (!form) return;
  // The status's counts follow the import without a reload.
  var COUNTS = { books: "count-books", highlightCount: "count-highlights", thoughtCount: "count-thoughts",
    deletedUpstreamCount: "count-deleted" };
  function showCounts(counts) {
    if (!counts) return;
    Object.keys(COUNTS).forEach(function (name) {
      var cell = document.getElementById(COUNTS[name]);
      if (cell && counts[name] !== undefined) cell.textContent = String(counts[name]);
    });
  }
  function show(text, failed) {
    result.textContent = text;
    result.className = failed ? "error" : "muted";
    result.hidden = false;
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var file = document.getElementById("import-file").files[0];
    if (!file) { show(mesqSay("Choose a file first."), true); return; }
    file.arrayBuffer().then(function (bytes) {
      var text;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);  // a leading BOM is dropped
      } catch (error) {
        return { ok: false, body: { error: { message: mesqSay("The file is not UTF-8 text; save it as UTF-8 (JSON files are) and import it again.") } } };
      }
      return fetch(form.getAttribute("action"), {
        method: "POST",
        credentials: "same-origin",
        referrerPolicy: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": form.dataset.csrf },
        body: text
      }).then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, body: body }; });
      });
    }).then(function (answer) {
      if (answer.ok && answer.body.ok) {
        var b = answer.body;
        showCounts(b.counts);
        show(mesqSay("Imported %(books)s: %(added)s added, %(updated)s updated, %(deleted)s marked deleted upstream, %(unchanged)s unchanged.", {
          books: mesqSayPlural("%(num)d book", "%(num)d books", b.books), added: mesqSayPlural("%(num)d note", "%(num)d notes", b.added),
          updated: b.updated, deleted: b.markedDeleted, unchanged: b.unchanged
        }), false);
        return;
      }
      show(answer.body && answer.body.error ? answer.body.error.message : mesqSay("The file was not accepted."), true);
    }).catch(function () {
      show(mesqSay("Could not read the file or reach MeSQ; try again."), true);
    });
  });
})();
