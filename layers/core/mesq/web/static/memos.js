// The memo timeline's small script (CSP script-src 'self'; no inline script, no eval):
// the browser's time zone for the per-day counts, double-click editing (when the setting is
// on), Escape / Ctrl+Enter in the editor (Escape asks first when the text is not saved),
// the browser's prompt before leaving the page while an editor's or the composer's text is not saved,
// Ctrl+Enter in the composer; `#` tag suggestions in the composer and in the editor; the
// composer's Preview tab and its attachments (chosen, pasted or dropped) through the upload
// session; task boxes on the cards (ticking one saves the memo with its revision); image
// thumbnails opened full size in a dialog; a long memo folded in the timeline ("Show more").
(function () {
  "use strict";
  // -- time zone: a cookie the server validates. When the page was counted in another zone, the
  // timeline is fetched again and swapped in (htmx), so a click meanwhile is never undone by a reload.
  // Not when the zone is the user's own setting (data-zone-set): the browser's never changes those
  // counts, and fetching again would only swap the timeline on every visit.
  const first = document.getElementById("memos-app");
  if (first && first.dataset.zoneSet !== "true") {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    // IANA names are cookie-safe as they are (letters, digits, _ + - /); anything else is not sent.
    if (/^[A-Za-z0-9_+\-\/]{1,64}$/.test(zone) && first.dataset.zone !== zone) {
      const secure = location.protocol === "https:" ? "; Secure" : "";
      document.cookie = first.dataset.zoneCookie + "=" + zone + "; Path=/; Max-Age=31536000; SameSite=Lax" + secure;
      if (window.htmx && document.cookie.indexOf(first.dataset.zoneCookie + "=") !== -1) {
        window.htmx.ajax("GET", location.href, { target: "#memos-app", select: "#memos-app", swap: "outerHTML" });
      }
    }
  }

  // -- double-click editing: a click on the card's Edit link (htmx swaps the editor in).
  document.addEventListener("dblclick", function (event) {
    const app = document.getElementById("memos-app");
    if (!app || app.dataset.doubleClickEdit !== "true") return;
    const target = event.target;
    if (!(target instanceof Element) || target.closest("a, button, form, input, textarea")) return;
    const card = target.closest(".memo:not(.editing)");
    const edit = card && card.querySelector("[data-edit]");
    if (edit) {
      event.preventDefault();
      edit.click();
    }
  });

  // A key pressed while an input method composes (pinyin not yet committed) is the input
  // method's: its Enter commits the letters, its Escape drops them. Chrome and Safari mark it with
  // isComposing or keyCode 229.
  function composing(event) {
    return event.isComposing || event.keyCode === 229;
  }

  // -- the editor and the composer: the `#` suggestions take their keys first (an open list's
  // Enter picks, its Escape closes it); Ctrl/Cmd+Enter saves; Escape cancels an edit, after asking
  // when the text in the box is not saved; focus goes into a freshly opened editor.
  document.addEventListener("keydown", function (event) {
    const target = event.target;
    if (composing(event)) return;
    if (!(target instanceof HTMLTextAreaElement) || !target.matches("[data-editor], #composer-text")) return;
    const tags = suggestionsOf(target);
    if (tags) tags.keydown(event);
    if (event.defaultPrevented) return;
    const card = target.closest(".memo.editing");
    if (event.key === "Escape" && card) {
      event.preventDefault();
      const cancel = card.querySelector("[data-cancel]");
      if (!cancel) return;
      if (unsaved(target)) askToDiscard(target, function () { cancel.click(); });
      else cancel.click();
    } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && target.form) {
      event.preventDefault();
      const save = target.form.querySelector("button[type=submit]");
      if (!save || !save.disabled) target.form.requestSubmit(save || undefined);
    }
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    const editor = event.target instanceof Element && event.target.querySelector("[data-editor]");
    if (editor) {
      editor.focus();
      editor.setSelectionRange(editor.value.length, editor.value.length);
    } else if (event.target instanceof Element) {
      const edit = event.target.querySelector("[data-edit]");
      if (edit) edit.focus();
    }
  });

  // -- a long memo folded in the list, as memos does: a card's text past FOLD_REMS (when the whole
  // is more than FOLD_OVER times that, so a memo a few lines over is never folded) shows its first
  // lines and its "Show more" button (aria-expanded; a native button, so Enter and Space work),
  // which unfolds it in place and turns to "Show less". The blocks that start past the fold are
  // moved into one `.memo-rest` part, `hidden="until-found"`: the browser's find (Ctrl+F), a text
  // fragment (`#:~:text=`), a footnote link or the address's #fragment reveal it (`beforematch`)
  // and the card unfolds with it; the find scrolling the clipped end of the block that straddles
  // the fold (a long paragraph) unfolds it too, the match kept where the find put it, as does
  // focus moving into that clipped end (Tab). Cards only (`data-fold`), never the composer's
  // Preview; a card whose first search match lies past the fold is shown open; measured again
  // when the window's width changes, except a card the reader unfolded.
  const FOLD_REMS = 18, FOLD_OVER = 1.4;
  function foldHeight() {
    return FOLD_REMS * (parseFloat(getComputedStyle(document.documentElement).fontSize) || 16);
  }
  function restOf(body) {
    const last = body.lastElementChild;
    return last && last.matches(".memo-rest") ? last : null;
  }
  function unsplit(body) {
    const rest = restOf(body);
    if (rest) rest.replaceWith.apply(rest, Array.from(rest.childNodes));
  }
  function split(body) { // the blocks starting past the fold, into one part (null: none does)
    const limit = foldHeight(), top = body.getBoundingClientRect().top - body.scrollTop;
    const nodes = Array.from(body.childNodes);
    const at = nodes.findIndex(function (node, i) {
      return i > 0 && node instanceof Element && node.getBoundingClientRect().top - top >= limit;
    });
    if (at < 0) return null;
    const rest = document.createElement("div");
    rest.className = "memo-rest";
    rest.append.apply(rest, nodes.slice(at));
    body.append(rest);
    return rest;
  }
  function setFolded(body, button, folded) {
    const rest = restOf(body) || (folded ? split(body) : null);
    if (rest && folded && !rest.hasAttribute("hidden")) {
      // Hidden, it keeps its height (clipped by the fold): the card's scrollHeight stays the memo's.
      rest.style.containIntrinsicBlockSize = rest.offsetHeight + "px";
      rest.setAttribute("hidden", "until-found");
    } else if (rest && !folded) rest.removeAttribute("hidden");
    body.classList.toggle("folded", folded);
    button.setAttribute("aria-expanded", folded ? "false" : "true");
    button.textContent = folded ? button.dataset.more : button.dataset.less;
  }
  function foldButton(body) {
    const button = body.nextElementSibling;
    return button && button.matches(".memo-fold") ? button : null;
  }
  function measureFolds(root) {
    const limit = foldHeight();
    (root || document).querySelectorAll(".memo .memo-body[data-fold]").forEach(function (body) {
      const button = foldButton(body);
      if (!button || body.dataset.unfolded === "true") return;
      unsplit(body);
      body.classList.remove("folded");
      const long = body.scrollHeight > limit * FOLD_OVER;
      // A search's first match past the fold: shown open (its "Show less" still there).
      const mark = long && body.querySelector("mark");
      const past = mark && mark.getBoundingClientRect().bottom - body.getBoundingClientRect().top > limit;
      button.hidden = !long;
      setFolded(body, button, long && !past);
    });
  }
  function unfold(body) {
    const button = foldButton(body);
    if (!button || !body.classList.contains("folded")) return;
    body.dataset.unfolded = "true";
    setFolded(body, button, false);
  }
  document.addEventListener("click", function (event) {
    const target = event.target instanceof Element ? event.target : null;
    const button = target && target.closest(".memo-fold");
    if (button) {
      const body = document.getElementById(button.getAttribute("aria-controls"));
      if (!body) return;
      const fold = !body.classList.contains("folded");
      body.dataset.unfolded = fold ? "" : "true";
      setFolded(body, button, fold);
      const card = body.closest(".memo");
      if (fold && card && card.getBoundingClientRect().top < 0) card.scrollIntoView({ block: "start" });
      return;
    }
    const link = target && target.closest('a[href^="#"]');
    const inside = link && document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
    const folded = inside && inside.closest(".memo-body.folded");
    if (folded) unfold(folded);
  });
  document.addEventListener("focusin", function (event) {
    const folded = event.target instanceof Element && event.target.closest(".memo-body.folded");
    if (folded) unfold(folded);
  });
  document.addEventListener("beforematch", function (event) {
    const folded = event.target instanceof Element && event.target.closest(".memo-body.folded");
    if (folded) unfold(folded);
  }, true);
  document.addEventListener("scroll", function (event) {
    const body = event.target;
    if (!(body instanceof Element) || !body.matches(".memo-body.folded") || body.scrollTop <= 0) return;
    const shift = body.scrollTop;
    unfold(body);
    window.scrollBy(0, shift);
  }, true);
  function unfoldTarget() {
    const target = location.hash.length > 1 && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    const folded = target && target.closest(".memo-body.folded");
    if (folded) {
      unfold(folded);
      target.scrollIntoView();
    }
  }
  measureFolds(document);
  unfoldTarget();
  window.addEventListener("hashchange", unfoldTarget);
  document.addEventListener("htmx:afterSettle", function () { measureFolds(document); });
  let lastWidth = window.innerWidth, resizing = 0;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      if (window.innerWidth === lastWidth) return;
      lastWidth = window.innerWidth;
      measureFolds(document);
    }, 150);
  });

  // -- Escape on a text that is not saved: typed since the editor opened, or the box already held
  // the user's own text (`data-unsaved`: the merge prompt, a refused save). An in-page dialog in
  // the page's words (the browser's confirm() speaks its own language); "Keep editing" is
  // focused, and it, Escape or a close go back to the text as it was; "Discard changes" cancels.
  function unsaved(box) {
    return box.value !== box.defaultValue || box.hasAttribute("data-unsaved");
  }

  // -- leaving the page (a link, a reload, closing the tab) while a memo's text is not saved: the
  // browser's own "Leave site?" prompt (beforeunload; the only way to ask before the tab goes, so
  // in the browser's words). Not saved: an open editor's text as `unsaved` says, or a composer
  // holding text. A save or a Cancel takes the box away (htmx swaps the card in), so neither
  // asks; the composer's own submit is a page load of its own, and is let through.
  let leavingBy = null; // the form whose plain submit is loading the next page
  window.addEventListener("submit", function (event) { // last of the listeners: a submit none of them held back
    const form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement) || form.hasAttribute("hx-post")) return;
    leavingBy = form;
  });
  function unsavedText() {
    return Array.from(document.querySelectorAll("[data-editor], #composer-text")).some(function (box) {
      if (leavingBy && leavingBy.contains(box)) return false;
      return box.matches("[data-editor]") ? unsaved(box) : box.value.trim() !== "";
    });
  }
  window.addEventListener("beforeunload", function (event) {
    if (!unsavedText()) return;
    event.preventDefault();
    event.returnValue = ""; // older Chromium and Safari ask only when it is set
  });
  // A page shown again from the back-forward cache: its composer's submit is over.
  window.addEventListener("pageshow", function () { leavingBy = null; });

  let discard = null; // {box, cancel} of the edit the dialog is about
  let discardDialog = null;
  function askToDiscard(box, cancel) {
    if (!discardDialog) {
      discardDialog = document.createElement("dialog");
      discardDialog.className = "memo-confirm";
      discardDialog.setAttribute("aria-labelledby", "memo-confirm-question");
      const question = document.createElement("p");
      question.id = "memo-confirm-question";
      question.textContent = mesqSay("Discard your changes to this memo?");
      const keep = document.createElement("button");
      keep.type = "button";
      keep.className = "secondary";
      keep.dataset.keep = "";
      keep.textContent = mesqSay("Keep editing");
      keep.addEventListener("click", function () { discardDialog.close("keep"); });
      const drop = document.createElement("button");
      drop.type = "button";
      drop.className = "danger";
      drop.textContent = mesqSay("Discard changes");
      drop.addEventListener("click", function () { discardDialog.close("discard"); });
      const actions = document.createElement("div");
      actions.className = "actions";
      actions.append(keep, drop);
      discardDialog.append(question, actions);
      // Escape here is the dialog's (keep editing), never a toast's too (inplace.js).
      discardDialog.addEventListener("keydown", function (event) {
        if (event.key !== "Escape") return;
        event.preventDefault();
        discardDialog.close("keep");
      });
      discardDialog.addEventListener("close", function () {
        const asked = discard;
        discard = null;
        if (!asked) return;
        if (discardDialog.returnValue === "discard") asked.cancel();
        else if (asked.box.isConnected) asked.box.focus();
      });
      document.body.append(discardDialog);
    }
    discard = { box: box, cancel: cancel };
    discardDialog.returnValue = "";
    discardDialog.showModal();
    discardDialog.querySelector("[data-keep]").focus();
  }

  // -- attachments: create session -> PUT bytes (direct) or POST them (relay) -> complete.
  // Set up on load and again when htmx swaps in a new timeline (a new composer).
  function setUpComposer() {
    const composer = document.getElementById("composer");
    const files = document.getElementById("composer-files");
    if (!composer || !files || composer.dataset.ready) return;
    composer.dataset.ready = "1";
    const csrf = composer.querySelector("input[name=csrf]").value;
    const attached = document.getElementById("composer-attached");
    const status = document.getElementById("composer-upload-status");
    const save = document.getElementById("composer-save");
    files.closest("label").hidden = false;
    // memos.css shows the composer as one line on a phone until it is first focused; then it stays open.
    composer.addEventListener("focusin", function () { composer.dataset.opened = "1"; });
    let pending = 0;

    // A failure that is not MeSQ's own JSON error (a proxy's page, storage refusing the PUT, no
    // connection) is said in the page's words (script_words.py), never the browser's.
    async function reach(url, options, unreachable) {
      try {
        return await fetch(url, options);
      } catch (error) {
        throw new Error(unreachable);
      }
    }

    async function call(url, options) {
      const answer = await reach(url, Object.assign({ credentials: "same-origin" }, options),
        mesqSay("MeSQ could not be reached; check the connection and try again"));
      const body = await answer.json().catch(function () { return null; });
      if (!answer.ok) {
        const message = body && body.error && body.error.message;
        throw new Error(message || mesqSay("MeSQ did not answer as expected (HTTP %(status)s); try again in a moment", { status: answer.status }));
      }
      return body;
    }

    function json(body) {
      return {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body),
      };
    }

    async function upload(file) {
      const type = file.type || "application/octet-stream";
      const session = await call("/memos/uploads", json({ displayName: file.name, mimeType: type, size: file.size }));
      if (session.transport === "direct") {
        const put = await reach(session.uploadUrl, { method: "PUT", headers: { "Content-Type": session.contentType }, body: file },
          mesqSay("the file storage could not be reached; check the connection and try again"));
        if (!put.ok) throw new Error(mesqSay("the file storage refused the file (HTTP %(status)s); try again in a moment", { status: put.status }));
        return call("/memos/uploads/complete", json({ uploadId: session.uploadId, path: session.path }));
      }
      const query = new URLSearchParams({ displayName: file.name, mimeType: type });
      return call(session.uploadEndpoint + "?" + query, {
        method: "POST",
        headers: { "Content-Type": type, "X-CSRF-Token": csrf },
        body: file,
      });
    }

    function show(resource) {
      const item = document.createElement("li");
      const field = document.createElement("input");
      field.type = "hidden";
      field.name = "resource";
      field.value = JSON.stringify({
        path: resource.path, displayName: resource.displayName, fileSize: resource.fileSize,
        mimeType: resource.mimeType, type: resource.type,
      });
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "secondary";
      remove.textContent = "×";
      remove.setAttribute("aria-label", mesqSay("Remove %(name)s", { name: resource.displayName }));
      remove.addEventListener("click", function () { item.remove(); });
      const name = document.createElement("bdi"); // a name's direction marks stay inside it
      name.textContent = resource.displayName;
      item.append(field, name, remove);
      attached.append(item);
    }

    // A chosen file's name in the status line. Its invisible text-direction controls (which MeSQ
    // refuses in a name) are shown as "\ufffd": a right-to-left override there turned the rest of
    // the line backwards, the refusal itself unreadable and the name read as another one
    // ("invoice\u202egpj.exe" as "invoiceexe.jpg", the spoof the refusal is about).
    function shownName(file) {
      return file.name.replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, "\ufffd");
    }

    async function attach(chosen) {
      for (const file of chosen) {
        pending += 1;
        save.disabled = true;
        status.textContent = mesqSay("Uploading %(name)s…", { name: shownName(file) });
        try {
          show(await upload(file));
          status.textContent = mesqSay("Attached %(name)s.", { name: shownName(file) });
        } catch (error) {
          status.textContent = mesqSay("Could not attach %(name)s: %(error)s", { name: shownName(file), error: error.message });
        } finally {
          pending -= 1;
          save.disabled = pending > 0;
        }
      }
    }

    files.addEventListener("change", function () {
      const chosen = Array.from(files.files || []);
      files.value = "";
      attach(chosen);
    });
    // Pasted (below) or dropped files go the same way.
    const hint = document.getElementById("composer-drop-hint");
    if (hint) hint.hidden = false;
    current.attach = attach;
    composer.addEventListener("dragover", function (event) {
      if (event.dataTransfer && Array.from(event.dataTransfer.types).indexOf("Files") !== -1) {
        event.preventDefault();
        composer.classList.add("dropping");
      }
    });
    composer.addEventListener("dragleave", function () { composer.classList.remove("dropping"); });
    composer.addEventListener("drop", function (event) {
      composer.classList.remove("dropping");
      const dropped = Array.from((event.dataTransfer && event.dataTransfer.files) || []);
      if (!dropped.length) return;
      event.preventDefault();
      attach(dropped);
    });

    setUpTabs(composer, csrf);
  }

  // The composer's textarea is kept across an htmx swap of the timeline (hx-preserve), so its
  // events are taken here, once, and go to the composer set up last (its files).
  const current = { attach: null };
  function fromComposerText(event) {
    return event.target instanceof HTMLTextAreaElement && event.target.id === "composer-text";
  }
  document.addEventListener("paste", function (event) {
    if (!fromComposerText(event) || !current.attach) return;
    const pasted = Array.from((event.clipboardData && event.clipboardData.files) || []);
    if (!pasted.length) { // pasted text stays the browser's
      warnIfCut(event.target, event.clipboardData);
      return;
    }
    // Cells or a paragraph copied from Excel, WPS or Word come as text, HTML and a picture of
    // themselves: the text is what was meant. A screenshot or a copied image has no text; a file
    // copied in Finder has its name as text but no HTML: those are attached.
    const data = event.clipboardData;
    const images = pasted.every(function (file) { return file.type.indexOf("image/") === 0; });
    if (images && data.getData("text/plain").trim() && data.getData("text/html")) return;
    event.preventDefault();
    current.attach(pasted);
  });
  // While an input method composes, the box holds pinyin, not the writer's text: the suggestions
  // wait for the committed text (compositionend; Chrome sends no input event after it).
  // The browser cuts a paste at the box's maxlength (a memo's limit) without a word: say so, or
  // the end of a long article is found missing only later.
  function warnIfCut(box, data) {
    const status = document.getElementById("composer-upload-status");
    const incoming = data ? data.getData("text/plain") : "";
    const room = box.maxLength - (box.value.length - (box.selectionEnd - box.selectionStart));
    if (!status || box.maxLength <= 0 || incoming.replace(/\r\n/g, "\n").length <= room) return;
    status.textContent = mesqSay(
      "Only the first %(max)s characters fit in a memo: the end of the pasted text was left out.",
      { max: box.maxLength.toLocaleString(document.documentElement.lang || undefined) });
  }

  // The `#` suggestions of every box that has them (the composer, each open editor); their keys
  // are taken by the editor's keydown handler above, before its own.
  document.addEventListener("input", function (event) {
    const tags = suggestionsOf(event.target);
    if (tags && !event.isComposing) tags.update();
  });
  document.addEventListener("compositionend", function (event) {
    const tags = suggestionsOf(event.target);
    if (tags) tags.update();
  });
  document.addEventListener("focusout", function (event) {
    const tags = suggestionsOf(event.target);
    if (tags) tags.close();
  });

  // -- Write / Preview: the preview is the server's rendering (POST /memos/preview: the timeline's
  // renderer and sanitizer), so it shows exactly what the card will.
  function setUpTabs(composer, csrf) {
    const tabs = composer.querySelector("[role=tablist]");
    const write = document.getElementById("composer-write");
    const preview = document.getElementById("composer-preview");
    const text = document.getElementById("composer-text");
    if (!tabs || !write || !preview) return;
    tabs.hidden = false;
    write.setAttribute("role", "tabpanel");
    write.setAttribute("aria-labelledby", "composer-tab-write");
    const buttons = Array.from(tabs.querySelectorAll("[role=tab]"));

    async function select(tab) {
      const showPreview = tab.id === "composer-tab-preview";
      buttons.forEach(function (other) {
        other.setAttribute("aria-selected", other === tab ? "true" : "false");
        other.tabIndex = other === tab ? 0 : -1;
      });
      write.hidden = showPreview;
      preview.hidden = !showPreview;
      if (!showPreview) return;
      preview.setAttribute("aria-busy", "true");
      const form = new URLSearchParams({ csrf: csrf, content: text.value }); // a plain form post
      try {
        const answer = await fetch("/memos/preview", { method: "POST", body: form, credentials: "same-origin" });
        // The answer is sanitized HTML (no script, no handlers): safe to set as markup.
        preview.innerHTML = answer.ok ? await answer.text() : "";
        if (!answer.ok) preview.textContent = mesqSay("The preview is unavailable (HTTP %(status)s).", { status: answer.status });
      } catch (error) {
        preview.textContent = mesqSay("The preview is unavailable: %(error)s", { error: error.message });
      } finally {
        preview.removeAttribute("aria-busy");
      }
    }

    buttons.forEach(function (tab, index) {
      tab.addEventListener("click", function () { select(tab); });
      tab.addEventListener("keydown", function (event) {
        if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
        event.preventDefault();
        const next = buttons[(index + (event.key === "ArrowRight" ? 1 : buttons.length - 1)) % buttons.length];
        next.focus();
        select(next);
      });
    });
  }

  // -- `#` suggestions, for every box with `data-tag-suggest` (the composer, each open editor):
  // the user's tag paths (the sidebar's tree, its `data-tags`, read at each keystroke: an in-place
  // save swaps the tree in again with a new tag; on the editor's own page, without a sidebar, its
  // list's `data-tags`) in a listbox under the box; Up/Down choose, Enter or Tab insert (after a
  // whole tag nothing is chosen first: Enter is a new line), Escape closes. The box keeps the
  // focus (aria-activedescendant names the chosen option). They open where a tag starts by the
  // server's own rule (`data-tag-typed` on the box's form: kernel/tags.py's TAG_TYPED_PATTERN,
  // written for both engines), so `今天去买菜#` suggests and `C#` or `https://x.test/三体#` does not.
  // `data-tag-suggest="name"` names the list (`name-list`), its status (`name-status`) and its
  // options (`name-option-N`).
  const suggestions = new WeakMap();

  // The box's suggestions, set up the first time they are asked for, and again when htmx swapped
  // their list (the composer's box outlives a timeline swap, hx-preserve); null for other boxes.
  function suggestionsOf(box) {
    if (!(box instanceof HTMLTextAreaElement) || !box.dataset.tagSuggest) return null;
    const had = suggestions.get(box);
    if (had && had.live()) return had;
    const made = tagSuggestions(box);
    if (made) suggestions.set(box, made);
    else suggestions.delete(box);
    return made;
  }

  function setUpSuggestions() {
    document.querySelectorAll("textarea[data-tag-suggest]").forEach(suggestionsOf);
  }

  function tagSuggestions(text) {
    const name = text.dataset.tagSuggest;
    const list = document.getElementById(name + "-list");
    const announce = document.getElementById(name + "-status");
    const form = text.closest("[data-tag-typed]");
    let typing = null;
    try { typing = new RegExp((form && form.dataset.tagTyped) || "", "u"); } catch (error) { typing = null; }
    if (!list || !announce || !typing || !form.dataset.tagTyped) return null;
    text.setAttribute("aria-autocomplete", "list");
    text.setAttribute("aria-controls", list.id);
    let shown = [];
    let active = -1;
    let typed = null; // {start, end} of the `#word` being typed

    function known() {
      const tree = document.getElementById("memos-tags") || list;
      try { return JSON.parse(tree.dataset.tags || "[]"); } catch (error) { return []; }
    }

    function close() {
      list.hidden = true;
      list.textContent = "";
      shown = [];
      active = -1;
      typed = null;
      text.removeAttribute("aria-activedescendant");
      announce.textContent = "";
    }

    function highlight(index) {
      active = index;
      Array.from(list.children).forEach(function (option, i) {
        option.setAttribute("aria-selected", i === index ? "true" : "false");
      });
      if (index >= 0) text.setAttribute("aria-activedescendant", list.children[index].id);
      else text.removeAttribute("aria-activedescendant");
    }

    // Whether the text after the caret would run on into the inserted tag: then a space goes
    // between. Whitespace and punctuation (`#读书，`, a line break) end a tag by the server's
    // rule, so none is put before them; at the end of the text one is, to write on.
    function runsOn(name, after) {
      if (!after) return true;
      const next = String.fromCodePoint(after.codePointAt(0));
      const found = typing.exec(" #" + name + next);
      return Boolean(found && found[1] === name + next);
    }

    function accept(index) {
      if (!typed || index < 0 || index >= shown.length) return;
      const before = text.value.slice(0, typed.start);
      const after = text.value.slice(typed.end);
      const tag = "#" + shown[index];
      const inserted = tag + (runsOn(shown[index], after) ? " " : "");
      text.value = before + inserted + after;
      const caret = before.length + inserted.length;
      text.setSelectionRange(caret, caret);
      close();
      announce.textContent = mesqSay("%(tag)s inserted.", { tag: tag });
    }

    function update() {
      const caret = text.selectionStart;
      const found = typing.exec(text.value.slice(0, caret));
      // No group 1: the caret is in a URL, where a `#` is a fragment.
      if (!found || found[1] === undefined || text.selectionEnd !== caret) { close(); return; }
      const word = found[1].toLowerCase();
      const tags = known();
      // A whole tag typed (`#读书`, its children offered): none is chosen, so Enter is a new line.
      // Whole means exactly: tags are exact (`#Work` and `#work` are two), so `#work` typed
      // where only `#Work` exists offers `#Work`, chosen, rather than making a second tag.
      const whole = tags.indexOf(found[1]) !== -1;
      const matches = tags.filter(function (tag) {
        const lower = tag.toLowerCase();
        return tag !== found[1] && (lower.startsWith(word) || lower.indexOf("/" + word) !== -1);
      }).slice(0, 8);
      if (!matches.length) { close(); announce.textContent = ""; return; }
      typed = { start: caret - found[1].length - 1, end: caret };
      shown = matches;
      list.textContent = "";
      matches.forEach(function (tag, i) {
        const option = document.createElement("li");
        option.id = name + "-option-" + i;
        option.setAttribute("role", "option");
        option.setAttribute("aria-selected", "false");
        option.textContent = "#" + tag;
        option.addEventListener("mousedown", function (event) { event.preventDefault(); }); // keep the focus
        option.addEventListener("click", function () { accept(i); text.focus(); });
        list.append(option);
      });
      list.hidden = false;
      highlight(whole ? -1 : 0);
      announce.textContent = mesqSayPlural("%(num)d tag suggested.", "%(num)d tags suggested.", matches.length);
    }

    function keydown(event) {
      if (list.hidden || composing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : shown.length - 1;
        highlight(active < 0 ? (step === 1 ? 0 : shown.length - 1) : (active + step) % shown.length);
      } else if (event.key === "Enter" || event.key === "Tab") {
        if (active < 0) { close(); return; } // nothing chosen: the key is the box's own
        event.preventDefault();
        accept(active);
      } else if (event.key === "Escape") {
        event.preventDefault();
        close();
      }
    }

    function live() {
      return list.isConnected && announce.isConnected;
    }

    return { update: update, close: close, keydown: keydown, live: live };
  }

  // -- task boxes on a card: ticking one saves the memo (POST /memos/{id}/task with the card's
  // revision); htmx swaps in the new card, or the merge prompt when the memo changed meanwhile.
  document.addEventListener("change", function (event) {
    const box = event.target;
    if (!(box instanceof HTMLInputElement) || !box.matches("input.memo-task")) return;
    const card = box.closest("li.memo[data-memo-id]:not(.editing)");
    const token = document.querySelector("input[name=csrf]");
    if (!card || !token || !window.htmx) return;
    card.querySelectorAll("input.memo-task").forEach(function (other) { other.disabled = true; });
    window.htmx.ajax("POST", "/memos/" + encodeURIComponent(card.dataset.memoId) + "/task", {
      target: card,
      swap: "outerHTML",
      values: {
        csrf: token.value,
        revision: card.dataset.revision,
        task: box.dataset.task,
        value: box.checked ? "on" : "off",
        "return": location.pathname + location.search,
      },
    });
  });

  // -- image thumbnails: the full image in a modal dialog (Escape or Close returns to the thumbnail).
  let lightbox = null;
  document.addEventListener("click", function (event) {
    const link = event.target instanceof Element && event.target.closest("a[data-lightbox]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    if (!lightbox) {
      lightbox = document.createElement("dialog");
      lightbox.className = "memo-lightbox";
      const close = document.createElement("button");
      close.type = "button";
      close.className = "secondary";
      close.textContent = mesqSay("Close");
      close.addEventListener("click", function () { lightbox.close(); });
      const image = document.createElement("img");
      lightbox.append(close, image);
      lightbox.addEventListener("click", function (click) { if (click.target === lightbox) lightbox.close(); });
      document.body.append(lightbox);
    }
    const thumbnail = link.querySelector("img");
    const full = lightbox.querySelector("img");
    full.src = link.getAttribute("href");
    full.alt = thumbnail ? thumbnail.alt : "";
    lightbox.setAttribute("aria-label", full.alt || mesqSay("Image"));
    lightbox.addEventListener("close", function () { link.focus(); }, { once: true });
    lightbox.showModal();
  });

  setUpComposer();
  setUpSuggestions();
  document.addEventListener("htmx:afterSettle", function () {
    setUpComposer();
    setUpSuggestions();
  });
})();
