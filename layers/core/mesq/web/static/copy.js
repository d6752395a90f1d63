// Copy buttons (the new-token card): `<button data-copy="ID">` copies the value of element ID.
// The button is hidden in the HTML and shown here, so without script nothing is offered that
// cannot work. navigator.clipboard needs a secure context (https or loopback); elsewhere the
// field is selected and document.execCommand("copy") tried, and failing that the person is told
// to copy the selected text by hand. A clipboard write that does not settle within a second
// counts as failed.
"use strict";
(function () {
  var status = document.getElementById("copy-status");
  function say(text) { if (status) status.textContent = text; }
  function bySelection(field) {
    field.focus();
    field.select();
    try {
      return document.execCommand("copy");
    } catch (ignored) {
      return false;
    }
  }
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      var fallback = function () {
        say(bySelection(field) ? mesqSay("Copied.") : mesqSay("Selected: press Ctrl+C (⌘C) to copy."));
      };
      if (navigator.clipboard && window.isSecureContext) {
        // writeText can stay pending (an unfocused window, a permission prompt nobody answers):
        // after a second the selection fallback runs instead, so the button always answers.
        var settled = false;
        var settle = function (action) { if (!settled) { settled = true; action(); } };
        setTimeout(function () { settle(fallback); }, 1000);
        navigator.clipboard.writeText(field.value).then(
          function () { settle(function () { say(mesqSay("Copied.")); }); },
          function () { settle(fallback); }
        );
      } else {
        fallback();
      }
    });
  });
})();
