// The colour theme: the system's (prefers-color-scheme) unless the person chose one with the
// header's switch, kept in this browser (localStorage). Loaded in <head> without defer, so the
// chosen theme is set before the first paint (no light flash on a dark page).
// Also on every page: the browser's time zone in the `mesq_tz` cookie, so the server shows every
// time (and reads every typed date) in it; renewed when the browser moves to another zone.
"use strict";
(function () {
  var zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
  if (!/^[A-Za-z0-9_+\-\/]{1,64}$/.test(zone)) return;
  if ((" " + document.cookie + ";").indexOf(" mesq_tz=" + zone + ";") !== -1) return;
  var secure = location.protocol === "https:" ? "; Secure" : "";
  document.cookie = "mesq_tz=" + zone + "; Path=/; Max-Age=31536000; SameSite=Lax" + secure;
})();
(function () {
  var KEY = "mesq-theme", ORDER = ["auto", "dark", "light"], NAMES = { auto: "Auto", dark: "Dark", light: "Light" };
  var root = document.documentElement;
  function stored() {
    try { var v = localStorage.getItem(KEY); return ORDER.indexOf(v) > 0 ? v : "auto"; } catch (e) { return "auto"; }
  }
  function apply(theme) {
    if (theme === "auto") root.removeAttribute("data-theme"); else root.setAttribute("data-theme", theme);
  }
  apply(stored());
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-switch");
    if (!button) return;
    var name = button.querySelector(".theme-name");
    function show(theme) { name.textContent = NAMES[theme]; button.dataset.theme = theme; }
    show(stored());
    button.hidden = false;
    button.addEventListener("click", function () {
      var next = ORDER[(ORDER.indexOf(stored()) + 1) % ORDER.length];
      try { if (next === "auto") localStorage.removeItem(KEY); else localStorage.setItem(KEY, next); } catch (e) { /* private mode: this page only */ }
      apply(next);
      show(next);
    });
  });
})();
