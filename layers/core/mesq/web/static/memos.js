// The memo timeline's small script (CSP script-src 'self'; no inline script, no eval):
// the browser's time zone for the per-day counts, double-click editing (when the setting is
// on), Escape / Ctrl+Enter in the editor, Ctrl+Enter in the composer, and attachments through
// the upload session.
(function () {
  "use strict";
  // -- time zone: a cookie the server validates. When the page was counted in another zone, the
  // timeline is fetched again and swapped in (htmx), so a click meanwhile is never undone by a reload.
  const first = document.getElementById("memos-app");
  if (first) {
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

  // -- the editor and the composer: Ctrl/Cmd+Enter saves; Escape cancels an edit; focus goes into
  // a freshly opened editor.
  document.addEventListener("keydown", function (event) {
    const target = event.target;
    if (!(target instanceof HTMLTextAreaElement) || !target.matches("[data-editor], #composer-text")) return;
    const card = target.closest(".memo.editing");
    if (event.key === "Escape" && card) {
      event.preventDefault();
      const cancel = card.querySelector("[data-cancel]");
      if (cancel) cancel.click();
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
    let pending = 0;

    async function call(url, options) {
      const answer = await fetch(url, Object.assign({ credentials: "same-origin" }, options));
      const body = await answer.json().catch(function () { return null; });
      if (!answer.ok) {
        const message = body && body.error && body.error.message;
        throw new Error(message || "the upload failed (HTTP " + answer.status + ")");
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
        const put = await fetch(session.uploadUrl, { method: "PUT", headers: { "Content-Type": session.contentType }, body: file });
        if (!put.ok) throw new Error("storage refused the file (HTTP " + put.status + ")");
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
      remove.setAttribute("aria-label", "Remove " + resource.displayName);
      remove.addEventListener("click", function () { item.remove(); });
      item.append(field, document.createTextNode(resource.displayName), remove);
      attached.append(item);
    }

    files.addEventListener("change", async function () {
      const chosen = Array.from(files.files || []);
      files.value = "";
      for (const file of chosen) {
        pending += 1;
        save.disabled = true;
        status.textContent = "Uploading " + file.name + "…";
        try {
          show(await upload(file));
          status.textContent = "Attached " + file.name + ".";
        } catch (error) {
          status.textContent = "Could not attach " + file.name + ": " + error.message;
        } finally {
          pending -= 1;
          save.disabled = pending > 0;
        }
      }
    });
  }

  setUpComposer();
  document.addEventListener("htmx:afterSettle", setUpComposer);
})();
