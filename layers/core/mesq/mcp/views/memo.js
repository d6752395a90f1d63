/* Memo view (get_memo, create_memo): the content as rendered Markdown (headings,
   lists, paragraphs; every text node via textContent), tags, image attachments' thumbnails read
   through the host (resources/read of the memo:// URI). */
(function () {
  var el = Mesq.el, t = Mesq.t;
  function markdown(text) {
    var box = el("div", { class: "content" }), list = null;
    String(text || "").split("\n").forEach(function (line) {
      var heading = /^(#{1,6})\s+(.*)$/.exec(line), bullet = /^\s*[-*]\s+(.*)$/.exec(line);
      if (bullet) {
        if (!list) { list = el("ul"); box.appendChild(list); }
        list.appendChild(el("li", { text: bullet[1] }));
        return;
      }
      list = null;
      if (heading) box.appendChild(el("h" + Math.min(6, heading[1].length + 1), { text: heading[2] }));
      else if (line.trim()) box.appendChild(el("p", { text: line }));
    });
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
