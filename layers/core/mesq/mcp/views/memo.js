/* Memo view (get_memo, create_memo): the content as rendered Markdown (headings,
   lists, paragraphs, footnotes; every text node via textContent), tags, image attachments'
   thumbnails read through the host (resources/read of the memo:// URI). */
(function () {
  var el = Mesq.el, t = Mesq.t;
  /* Footnotes as the web page draws them (web/kit/markdown.py): a `[^label]: note` line (a label of
     1-100 characters, no space; the lines after it up to a blank line, and indented paragraphs
     after that, are the note's; a label's last note wins) leaves the text for a numbered list at
     the memo's end. Each `[^label]` naming a note becomes its number, superscript, linking to the
     note, which links back to each; numbered as first referenced, a note no reference names last,
     with no link back. A label with no note stays as typed, and in a ``` fence nothing is a footnote. */
  var DEF = /^ {0,3}\[\^([^\]\s]{1,100})\]:[ \t]*(.*)$/, REF = /\[\^([^\]\s]{1,100})\]/g;
  var FENCE = /^ {0,3}(```|~~~)/, BLOCK = /^\s*(#{1,6}\s|[-*+]\s|1[.)]\s|>|```|~~~)/;
  function footnotes(text) {
    var notes = { byLabel: {}, defined: [], shown: [], lines: [] }, open = null, gap = false, fenced = false;
    String(text || "").split("\n").forEach(function (line) {
      var def = !fenced && DEF.exec(line), blank = !line.trim();
      if (def) {
        open = notes.byLabel[def[1]];
        if (!open) notes.defined.push(open = notes.byLabel[def[1]] = { refs: [] });
        open.paragraphs = [[def[2]]];
        gap = false;
      } else if (open && blank) gap = true;
      else if (open && !gap && !BLOCK.test(line) && !DEF.test(line)) open.paragraphs[open.paragraphs.length - 1].push(line.trim());
      else if (open && gap && /^( {4}|\t)/.test(line)) { open.paragraphs.push([line.trim()]); gap = false; }
      else {
        open = null;
        if (FENCE.test(line)) fenced = !fenced;
        notes.lines.push({ text: line, fenced: fenced || FENCE.test(line) });
        return;
      }
      notes.lines.push({ text: "" });  // a note's line: out of the text (and a list ends there)
    });
    return notes;
  }
  function number(notes, note) {
    notes.shown.push(note);
    note.number = notes.shown.length;
  }
  function inline(line, notes) {
    var parts = [], at = 0, found;
    for (REF.lastIndex = 0; !line.fenced && (found = REF.exec(line.text));) {
      var note = notes.byLabel[found[1]];
      if (!note) continue;
      if (!note.number) number(notes, note);
      var back = "fnref-" + note.number + (note.refs.length ? "-" + (note.refs.length + 1) : "");
      note.refs.push(back);
      parts.push(line.text.slice(at, found.index), el("sup", { class: "footnote-ref" },
        [el("a", { href: "#fn-" + note.number, id: back, text: String(note.number) })]));
      at = found.index + found[0].length;
    }
    parts.push(line.text.slice(at));
    return parts;
  }
  function noteList(notes) {
    notes.defined.forEach(function (note) { if (!note.number) number(notes, note); });
    if (!notes.shown.length) return null;
    return el("section", { class: "footnotes" }, [el("ol", {}, notes.shown.map(function (note) {
      var paragraphs = note.paragraphs.map(function (lines) {
        var p = el("p");
        lines.filter(Boolean).forEach(function (text, i) { if (i) p.appendChild(el("br")); p.appendChild(document.createTextNode(text)); });
        return p;
      }), last = paragraphs[paragraphs.length - 1];
      note.refs.forEach(function (back) {
        last.appendChild(document.createTextNode(" "));
        last.appendChild(el("a", { href: "#" + back, class: "footnote-back", "aria-label": t("backToText"), text: "\u21a9\ufe0e" }));
      });
      return el("li", { id: "fn-" + note.number }, paragraphs);
    }))]);
  }
  /* A footnote's link moves there in the view itself (the view is a srcdoc document: a #link would
     load the host's address into it), and focus goes with it, so the keyboard goes on from there. */
  document.addEventListener("click", function (event) {
    var link = event.target instanceof Element && event.target.closest(".content a[href^='#']");
    var target = link && document.getElementById(link.getAttribute("href").slice(1));
    if (!link) return;
    event.preventDefault();
    if (!target) return;
    target.setAttribute("tabindex", "-1");
    target.scrollIntoView({ block: "nearest" });
    target.focus({ preventScroll: true });
  });
  function markdown(text) {
    var box = el("div", { class: "content" }), list = null, notes = footnotes(text);
    notes.lines.forEach(function (line) {
      var heading = /^(#{1,6})\s+(.*)$/.exec(line.text), bullet = /^\s*[-*]\s+(.*)$/.exec(line.text);
      if (bullet) {
        if (!list) { list = el("ul"); box.appendChild(list); }
        list.appendChild(el("li", {}, inline({ text: bullet[1], fenced: line.fenced }, notes)));
        return;
      }
      list = null;
      if (heading) box.appendChild(el("h" + Math.min(6, heading[1].length + 1), {}, inline({ text: heading[2], fenced: line.fenced }, notes)));
      else if (line.text.trim()) box.appendChild(el("p", {}, inline(line, notes)));
    });
    var listed = noteList(notes);
    if (listed) box.appendChild(listed);
    return box;
  }
  function thumbs(memo) {
    var row = el("div", { class: "thumbs", role: "group", "aria-label": t("attachments") });
    // MemoResource (openapi.yaml): displayName, mimeType, mcp_uri (the memo:// attachment resource).
    (memo.resources || []).forEach(function (file) {
      var uri = file.mcp_uri, name = file.displayName || "";
      if (!uri || !/^image\//.test(file.mimeType || "")) {
        row.appendChild(el("span", { class: "tag", text: name || uri || "" }));
        return;
      }
      Mesq.readResource(uri).then(function (blob) {
        if (blob) row.appendChild(el("img", { src: "data:" + blob.mimeType + ";base64," + blob.blob, alt: name }));
      });
    });
    return row;
  }
  Mesq.start(function (envelope) {
    if (envelope.error) { Mesq.show(el("p", { class: "error", role: "alert", text: Mesq.failure(envelope.error) })); return; }
    var data = envelope.data || {}, memo = data.memo || data;
    Mesq.show(el("article", { class: "memo" }, [
      el("h1", { text: t("memo") }),
      /* An archived or trashed memo reads like a live one but for this line. */
      memo.status && memo.status !== "NORMAL" ? el("p", { class: "muted status", text: Mesq.word("status", memo.status) }) : null,
      markdown(memo.content),
      el("div", { class: "tags" }, (memo.tags || []).map(function (tag) { return el("span", { class: "tag", text: "#" + tag }); })),
      thumbs(memo)
    ]));
  });
})();
