// File inputs in the page's language (templates/kit/_file_pick.html): once this runs, the
// browser's own button is hidden under ours (web.css, `.file-pick-ready`) and the chosen files'
// names are shown beside it, or "No file chosen" in the page's words (the span's data-empty).
// One listener for the whole document: a form swapped in later (imports.js) needs no set-up.
"use strict";
(function () {
  function show(input) {
    var pick = input.closest(".file-pick");
    var name = pick && pick.querySelector(".file-pick-name");
    if (!name) return;
    // A name's invisible text-direction controls are shown as "\ufffd": a right-to-left override
    // made "backup\u202epiz.exe" read "backupexe.zip" (MeSQ refuses them in attachment names).
    var names = Array.prototype.map.call(input.files || [], function (file) {
      return file.name.replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, "\ufffd");
    });
    name.textContent = names.length ? names.join(", ") : name.dataset.empty;
  }
  document.documentElement.classList.add("file-pick-ready");
  document.addEventListener("change", function (event) {
    if (event.target instanceof HTMLInputElement && event.target.type === "file") show(event.target);
  });
  // A reload or Back may keep a chosen file in the input: say so.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll(".file-pick input[type=file]").forEach(show);
  });
})();
