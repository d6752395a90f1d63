/* Changes view (list_changes): each change with who, when, the operation and a
   before/after diff per field; Undo -> tools/call undo_changes {changeIds: [id]} through the host,
   then shows what was undone (`undone`) or not (`notUndone`). */
(function () {
  var el = Mesq.el, t = Mesq.t;
  function value(v) { return v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v); }
  function diff(change) {
    var rows = (change.fields || []).map(function (field) {
      return el("tr", {}, [el("th", { scope: "row", text: field }),
        el("td", { class: "before", text: value((change.before || {})[field]) }),
        el("td", { class: "after", text: value((change.after || {})[field]) })]);
    });
    return el("table", { class: "diff" }, [el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: t("field") }),
      el("th", { scope: "col", text: t("before") }), el("th", { scope: "col", text: t("after") })])]), el("tbody", {}, rows)]);
  }
  function item(change) {
    var status = el("p", { class: "muted", role: "status" });
    var undo = el("button", { type: "button", text: t("undo") });
    if (!change.undoable || change.undoneBy) undo.disabled = true;
    if (change.undoneBy) status.textContent = t("undone");
    undo.addEventListener("click", function () {
      undo.disabled = true;
      Mesq.callTool("undo_changes", { changeIds: [change.id] }).then(function (res) {
        if (res.error) { status.textContent = res.error.message; undo.disabled = false; return; }
        var done = (res.data.undone || []).length, refused = res.data.notUndone || [];
        status.textContent = done ? t("undone") : t("notUndone") + (refused[0] && refused[0].message ? ": " + refused[0].message : "");
      });
    });
    var who = change.actor ? (change.actor.name || change.actor.id || "") : "";
    var record = change.record || {};
    return el("li", { class: "change", "data-change-id": change.id }, [
      el("div", { class: "meta" }, [el("span", { class: "kind", text: record.kind || "" }), el("span", { text: change.operation || change.action || "" }),
        el("span", { text: who }), el("span", { text: change.at || "" })]),
      diff(change), el("div", { class: "row" }, [undo]), status
    ]);
  }
  Mesq.start(function (envelope) {
    if (envelope.error) { Mesq.show(el("p", { class: "error", role: "alert", text: envelope.error.message })); return; }
    var data = envelope.data || {}, changes = data.changes || (data.undone ? [] : []);
    if (data.undone) {
      Mesq.show(el("div", {}, [el("h1", { text: t("changes") }), el("p", { text: t("undone") + ": " + data.undone.length + ", " + t("notUndone") + ": " + (data.notUndone || []).length })]));
      return;
    }
    Mesq.show(el("div", {}, [el("h1", { text: t("changes") }),
      changes.length ? el("ul", { class: "changes" }, changes.map(item)) : el("p", { class: "muted", text: t("empty") })]));
  });
})();
