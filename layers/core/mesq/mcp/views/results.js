/* Results view (search_ai_memos, search_everything): hits with kind, snippet and matchedBy, then the
   closest matches after a "Less related" boundary; Open
   reads the record through the host with the get tool of its kind (the kinds of the search
   openapi's SearchKind) and shows its text. */
(function () {
  var el = Mesq.el, t = Mesq.t;
  var NOTE_PAGE = 100, NOTE_PAGES = 20;  // list_reading_notes' largest page; at most 2,000 notes read
  /* A reading note has no get tool: its book's notes are paged (list_reading_notes, bookId from
     the hit) until its id. */
  function readNote(item, offset, pages) {
    var args = { bookId: item.bookId, offset: offset, limit: NOTE_PAGE };
    return Mesq.callTool("list_reading_notes", args).then(function (res) {
      if (res.error) return Mesq.failure(res.error);
      var data = res.data || {}, page = data.page || {};
      var note = (data.notes || []).filter(function (n) { return n.id === item.id; })[0];
      if (note) return note.content;
      if (page.hasMore && typeof page.nextOffset === "number" && pages + 1 < NOTE_PAGES) {
        return readNote(item, page.nextOffset, pages + 1);
      }
      return item.snippet || "";
    });
  }
  function reader(tool, field, text) {
    return function (item) {
      return Mesq.callTool(tool, { id: item.id }).then(function (res) {
        if (res.error) return Mesq.failure(res.error);
        var record = (res.data || {})[field];
        return record ? record[text] : "";
      });
    };
  }
  var READ = {
    memo: reader("get_memo", "memo", "content"),
    todo_task: reader("get_todo_task", "task", "title"),
    inbox_item: reader("get_todo_inbox_item", "item", "title"),
    reading_note: function (item) { return readNote(item, 0, 0); }
  };
  function matched(by) {
    if (!by) return "";
    var branches = Array.isArray(by) ? by : typeof by === "object" ? Object.keys(by) : [String(by)];
    return branches.map(function (branch) { return Mesq.word("branch", branch); }).join(Mesq.lang() === "zh" ? "、" : ", ");
  }
  function hit(item) {
    var kind = item.kind || "memo", body = el("div", { class: "content" });
    var open = el("button", { type: "button", text: t("open") });
    var read = READ[kind];
    if (!read || (kind === "reading_note" && !item.bookId)) open.disabled = true;
    open.addEventListener("click", function () {
      read(item).then(function (text) { return String(text || ""); }, function () { return Mesq.failure(null); })
        .then(function (text) { body.replaceChildren(el("p", { text: text })); });
    });
    return el("li", { class: "hit", "data-id": item.id }, [
      el("span", { class: "kind", "data-kind": kind, text: Mesq.word("kind", kind) }),
      el("p", { class: "snippet", text: item.snippet || "" }),
      el("div", { class: "meta" }, [el("span", { text: t("matchedBy") + t("colon") + matched(item.matchedBy) })]),
      el("div", { class: "row" }, [open]), body
    ]);
  }
  Mesq.start(function (envelope) {
    if (envelope.error) { Mesq.show(el("p", { class: "error", role: "alert", text: Mesq.failure(envelope.error) })); return; }
    /* items are the confident hits; closestMatches (below the confidence floor) follow after a
       "Less related" boundary, as on the memo page, so an answer with no confident hit still shows
       what came nearest. */
    var data = envelope.data || {}, items = data.items || [], closest = data.closestMatches || [];
    var parts = [el("h1", { text: t("results") }),
      /* The index still building or catching up: the person reads a short list as partial, as the model does. */
      data.degraded ? el("p", { class: "muted degraded", role: "status", text: t("degraded") }) : null,
      items.length ? el("ul", { class: "hits" }, items.map(hit))
      : el("p", { class: "muted", text: t(closest.length ? "noCloseMatch" : "empty") })];
    if (closest.length) {
      parts.push(el("h2", { text: t("lessRelated") }), el("ul", { class: "hits closest" }, closest.map(hit)));
    }
    Mesq.show(el("div", {}, parts));
  });
})();
