/* Results view (search_ai_memos, search_everything): hits with kind, snippet and matchedBy; Open
   reads the record through the host (get_memo / get_todo_task) and shows its text. */
(function () {
  var el = Mesq.el, t = Mesq.t;
  var READ = { memo: ["get_memo", "content"], task: ["get_todo_task", "title"], subtask: ["get_todo_task", "title"] };
  function matched(by) {
    if (!by) return "";
    if (Array.isArray(by)) return by.join(", ");
    if (typeof by === "object") return Object.keys(by).join(", ");
    return String(by);
  }
  function hit(item) {
    var kind = item.kind || "memo", body = el("div", { class: "content" });
    var open = el("button", { type: "button", text: t("open") });
    var read = READ[kind];
    if (!read) open.disabled = true;
    open.addEventListener("click", function () {
      Mesq.callTool(read[0], { id: item.id }).then(function (res) {
        var record = res.data ? (res.data.memo || res.data.task || res.data) : null;
        body.replaceChildren(el("p", { text: res.error ? res.error.message : String(record && record[read[1]] || "") }));
      });
    });
    return el("li", { class: "hit", "data-id": item.id }, [
      el("span", { class: "kind", text: kind }),
      el("p", { class: "snippet", text: item.snippet || "" }),
      el("div", { class: "meta" }, [el("span", { text: t("matchedBy") + ": " + matched(item.matchedBy) })]),
      el("div", { class: "row" }, [open]), body
    ]);
  }
  Mesq.start(function (envelope) {
    if (envelope.error) { Mesq.show(el("p", { class: "error", role: "alert", text: envelope.error.message })); return; }
    var items = (envelope.data || {}).items || [];
    Mesq.show(el("div", {}, [el("h1", { text: t("results") }),
      items.length ? el("ul", { class: "hits" }, items.map(hit)) : el("p", { class: "muted", text: t("empty") })]));
  });
})();
