// In-place writes (CSP script-src 'self'; no inline script): the toasts an htmx write answers
// with (base.html's #toasts live region: dismissed after a few seconds, by Escape or by their
// close button, kept while pointed at or focused) and the one a failed write shows, the "⋯" action menus of the memo cards and
// todo rows (aria-haspopup menu: arrows, Home / End, Escape, Tab, a click outside closes), the
// phone's header Menu button and its "Filters" button over the memo sidebar. Without script the
// menus' forms show as they are and post with a reload; the header wraps; the sidebar stays visible.
(function () {
  "use strict";
  var TOAST_MS = 6000;

  // -- toasts -------------------------------------------------------------------------------
  function dismiss(toast) {
    if (!toast || !toast.isConnected) return;
    var hadFocus = toast.contains(document.activeElement);
    clearTimeout(toast._timer);
    toast.remove();
    if (hadFocus) {
      var main = document.getElementById("main");
      if (main) main.focus({ preventScroll: true });
    }
  }

  // How long a toast stays: #toasts' data-toast-seconds when set (a test that audits the page
  // with a toast showing holds it longer), else TOAST_MS.
  function lifetime() {
    var region = document.getElementById("toasts");
    var seconds = region && Number(region.dataset.toastSeconds);
    return seconds > 0 ? seconds * 1000 : TOAST_MS;
  }

  function schedule(toast) {
    clearTimeout(toast._timer);
    toast._timer = setTimeout(function () {
      if (toast.matches(":hover") || toast.contains(document.activeElement)) return;
      dismiss(toast);
    }, lifetime());
  }

  function setUpToast(toast) {
    if (toast.dataset.ready) return;
    toast.dataset.ready = "1";
    schedule(toast);
    toast.addEventListener("mouseleave", function () { schedule(toast); });
    toast.addEventListener("focusout", function (event) {
      if (!toast.contains(event.relatedTarget)) schedule(toast);
    });
  }

  function newestToast() {
    var all = document.querySelectorAll("#toasts [data-toast]");
    return all.length ? all[all.length - 1] : null;
  }

  document.addEventListener("click", function (event) {
    var close = event.target instanceof Element && event.target.closest("[data-toast] [data-dismiss]");
    if (close) dismiss(close.closest("[data-toast]"));
  });

  // An Undo sent: its toast has done its job (the answer brings a toast of its own), and the
  // other toasts of the same record are retired: the undo went back past what they describe.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var toast = event.target instanceof Element && event.target.closest("[data-toast]");
    if (!toast) return;
    toast.hidden = true;
    var record = toast.dataset.record;
    if (!record) return;
    document.querySelectorAll("#toasts [data-toast]").forEach(function (other) {
      if (other !== toast && other.dataset.record === record) dismiss(other);
    });
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var toast = event.target instanceof Element && event.target.closest("[data-toast]");
    if (toast) dismiss(toast);
  });

  // A write that failed says so: htmx swaps nothing on an error answer or a lost connection, and
  // the click would do nothing visible (the edited text stays in its editor). The answer's own
  // message when it has one (kit/error.html's alert, already in the page's language, or a JSON
  // envelope's), else the scripts' words. Such a toast stays until it is dismissed.
  function failureToast(message) {
    var region = document.getElementById("toasts");
    if (!region) return;
    var toast = document.createElement("div");
    toast.className = "toast";
    toast.setAttribute("data-toast", "");
    toast.dataset.ready = "1"; // not timed out
    var text = document.createElement("p");
    text.className = "toast-message";
    text.setAttribute("role", "alert");
    text.textContent = message;
    var close = document.createElement("button");
    close.type = "button";
    close.className = "link toast-close";
    close.setAttribute("data-dismiss", "");
    close.setAttribute("aria-label", mesqSay("Dismiss"));
    close.textContent = "×";
    toast.append(text, close);
    region.append(toast);
  }

  function answerMessage(xhr) {
    var type = xhr.getResponseHeader("Content-Type") || "";
    try {
      if (type.indexOf("application/json") === 0) {
        var body = JSON.parse(xhr.responseText);
        return (body && body.error && typeof body.error.message === "string" && body.error.message) || "";
      }
      if (type.indexOf("text/html") === 0) {
        // Parsed, never run or shown: only the alert's text is read.
        var page = new DOMParser().parseFromString(xhr.responseText, "text/html");
        // The error page's message, else a form's own refusal (a fragment with its alert).
        var alert = page.querySelector("main p.error[role=alert][data-code]") || page.querySelector("[role=alert]");
        return alert ? alert.textContent.trim() : "";
      }
    } catch (error) {
      return "";
    }
    return "";
  }

  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (!xhr) return;
    failureToast(answerMessage(xhr) || mesqSay(
      "MeSQ did not answer as expected (HTTP %(status)s); try again in a moment", { status: xhr.status }));
  });
  // An answer that is a whole page (the pipeline's error page: a form over its size, a bad field)
  // is never swapped in place, even where a 400 is (the memo pages swap their own 400 fragments):
  // it would put a second header and menu inside the timeline and drop the editor with its text.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (!xhr || !event.detail.shouldSwap || xhr.status < 400) return;
    if (!/^\s*<!doctype html/i.test(xhr.responseText || "")) return;
    event.detail.shouldSwap = false;
    failureToast(answerMessage(xhr) || mesqSay(
      "MeSQ did not answer as expected (HTTP %(status)s); try again in a moment", { status: xhr.status }));
  });
  document.addEventListener("htmx:sendError", function () {
    failureToast(mesqSay("MeSQ could not be reached; check the connection and try again"));
  });

  // -- action menus -------------------------------------------------------------------------
  function itemsOf(menu) {
    return Array.prototype.slice.call(menu.querySelectorAll("[role=menuitem]"));
  }

  function setUpMenu(menu) {
    if (menu.dataset.ready) return;
    menu.dataset.ready = "1";
    var button = menu.querySelector(".menu-button");
    var list = menu.querySelector("[role=menu]");
    if (!button || !list) return;
    button.hidden = false;
    list.hidden = true;
    menu.classList.add("menu-ready");
    itemsOf(menu).forEach(function (item) { item.tabIndex = -1; });
  }

  function openMenu(menu, which) {
    closeMenus(menu);
    var list = menu.querySelector("[role=menu]");
    list.hidden = false;
    menu.querySelector(".menu-button").setAttribute("aria-expanded", "true");
    var items = itemsOf(menu);
    if (items.length) items[which === "last" ? items.length - 1 : 0].focus();
  }

  function closeMenu(menu, refocus) {
    var list = menu.querySelector("[role=menu]");
    var button = menu.querySelector(".menu-button");
    if (!list || list.hidden) return;
    list.hidden = true;
    button.setAttribute("aria-expanded", "false");
    if (refocus) button.focus();
  }

  function closeMenus(except) {
    document.querySelectorAll("[data-menu].menu-ready").forEach(function (menu) {
      if (menu !== except) closeMenu(menu, false);
    });
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    var button = target && target.closest("[data-menu] .menu-button");
    if (button) {
      var menu = button.closest("[data-menu]");
      if (button.getAttribute("aria-expanded") === "true") closeMenu(menu, false);
      else openMenu(menu, "first");
      return;
    }
    if (!target || !target.closest("[data-menu] [role=menu]")) closeMenus(null);
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    var menu = target && target.closest("[data-menu].menu-ready");
    if (menu && target.matches(".menu-button") && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      openMenu(menu, event.key === "ArrowUp" ? "last" : "first");
      return;
    }
    if (menu && target.matches("[role=menuitem]")) {
      var items = itemsOf(menu);
      var index = items.indexOf(target);
      var next = null;
      if (event.key === "ArrowDown") next = items[(index + 1) % items.length];
      else if (event.key === "ArrowUp") next = items[(index - 1 + items.length) % items.length];
      else if (event.key === "Home") next = items[0];
      else if (event.key === "End") next = items[items.length - 1];
      else if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        closeMenu(menu, true);
        return;
      } else if (event.key === "Tab") closeMenu(menu, false);
      if (next) {
        event.preventDefault();
        next.focus();
      }
      return;
    }
    if (event.key === "Escape" && !event.defaultPrevented) {
      var open = document.querySelector("[data-menu].menu-ready .menu-button[aria-expanded=true]");
      if (open) {
        closeMenu(open.closest("[data-menu]"), true);
        return;
      }
      // Escape in a field (an editor cancels its edit) is not for the toasts.
      if (target && target.closest("input, textarea, select")) return;
      var toast = newestToast();
      if (toast) dismiss(toast);
    }
  });

  // -- the header's Menu button (web.css shows it on a phone, where the header is one row) --------
  function setUpSiteMenu() {
    var button = document.getElementById("site-menu-button");
    if (!button || button.dataset.ready) return;
    button.dataset.ready = "1";
    var header = button.closest("header");
    button.hidden = false;
    header.classList.add("menu-ready");
    function show(open) {
      header.classList.toggle("menu-open", open);
      button.setAttribute("aria-expanded", open ? "true" : "false");
    }
    button.addEventListener("click", function () { show(!header.classList.contains("menu-open")); });
    document.addEventListener("click", function (event) {
      if (event.target instanceof Node && !header.contains(event.target)) show(false);
    });
    header.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && header.classList.contains("menu-open")) {
        event.preventDefault();
        show(false);
        button.focus();
      }
    });
  }

  // -- the phone's Filters button (memos.css shows it at 600 px and below) ----------------------
  function setUpFilters(app) {
    var toggle = app.querySelector(".filters-toggle");
    if (!toggle || toggle.dataset.ready) return;
    toggle.dataset.ready = "1";
    toggle.hidden = false;
    app.dataset.filters = "closed";
    toggle.addEventListener("click", function () {
      var open = app.dataset.filters !== "open";
      app.dataset.filters = open ? "open" : "closed";
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    });
  }

  // -- set up what is on the page and what htmx swaps in ---------------------------------------
  function enhance(root) {
    if (!(root instanceof Element || root instanceof Document)) return;
    setUpSiteMenu();
    root.querySelectorAll("[data-menu]").forEach(setUpMenu);
    root.querySelectorAll("#toasts [data-toast], [data-toast]").forEach(function (toast) {
      if (toast.closest("#toasts")) setUpToast(toast);
    });
    var app = root instanceof Element && root.id === "memos-app" ? root : root.querySelector("#memos-app");
    if (app) setUpFilters(app);
    if (root instanceof Element) {
      if (root.matches("[data-menu]")) setUpMenu(root);
      if (root.matches("#toasts [data-toast]")) setUpToast(root);
    }
  }

  // Focus lost with a swapped card (its menu item went with it): the new card's menu button, or
  // else the Undo of the toast that came with it. A swapped list (`data-list`: the inbox, the
  // agenda) gives focus back to the row it was in, when that row is still there.
  var swappedId = "", rowId = "";
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id && target.id !== "toasts") swappedId = target.id;
    var row = document.activeElement && document.activeElement.closest(".todo-row");
    rowId = row ? row.id : "";
  });
  document.addEventListener("htmx:afterSettle", function () {
    enhance(document);
    if (document.activeElement && document.activeElement !== document.body) return;
    var swapped = swappedId ? document.getElementById(swappedId) : null;
    var list = swapped && swapped.hasAttribute("data-list");
    var row = list && rowId ? document.getElementById(rowId) : null;
    var button = row ? row.querySelector(".tick") : list ? null : swapped && swapped.querySelector(".menu-button:not([hidden])");
    var toast = newestToast();
    var undo = toast && toast.querySelector("[data-undo]");
    if (button) button.focus();
    else if (undo) undo.focus({ preventScroll: true });
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { enhance(document); });
  } else {
    enhance(document);
  }
})();
