/* Changes view (list_changes): each change with who, when, the operation and a
   before/after diff per field; Undo -> tools/call undo_changes {changeIds: [id]} through the host,
   then shows what was undone (`undone`) or not (`notUndone`). */
(function () {
  var el = Mesq.el, t = Mesq.t;
  var MOMENT = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;
  /* The fields whose values are codes, and the words (bridge.js WORDS) they read as. */
  var VALUE_WORDS = { priority: "priority", status: "status", contentSource: "source" };
  /* A field's value as the person reads it: moments and dues in their zone, yes/no, words for codes. */
  function value(v, field) {
    if (v === undefined || v === null) return "";
    if (typeof v === "boolean") return t(v ? "yes" : "no");
    if (typeof v === "object" && !Array.isArray(v) && (v.at || v.date)) return Mesq.when(v);
    if (typeof v === "string" && MOMENT.test(v)) return Mesq.when(v);
    if (typeof v === "string" && VALUE_WORDS[field]) return Mesq.word(VALUE_WORDS[field], v);
    if (Array.isArray(v) && v.every(function (x) { return typeof x === "string"; })) {
      return v.join(Mesq.lang() === "zh" ? "、" : ", ");  // tags; an empty list reads as nothing
    }
    return typeof v === "string" ? v : JSON.stringify(v);
  }
  function diff(change) {
    var rows = (change.fields || []).map(function (field) {
      return el("tr", {}, [el("th", { scope: "row", text: Mesq.word("field", field) }),
        el("td", { class: "before", text: value((change.before || {})[field], field) }),
        el("td", { class: "after", text: value((change.after || {})[field], field) })]);
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
        if (res.error) { status.textContent = Mesq.failure(res.error); undo.disabled = false; return; }
        var done = (res.data.undone || []).length, refused = res.data.notUndone || [];
        status.textContent = done ? t("undone") : t("notUndone") + (refused[0] ? t("colon") + Mesq.failure(refused[0]) : "");
      });
    });
    var actor = change.actor || {};
    /* The web app and the command line are named in the person's language; a token or a
       connected app keeps the name it was given. */
    var who = actor.kind === "web" || actor.kind === "cli" ? Mesq.word("actor", actor.kind) : (actor.name || actor.id || "");
    var record = change.record || {};
    return el("li", { class: "change", "data-change-id": change.id }, [
      el("div", { class: "meta" }, [el("span", { class: "kind", text: record.kind ? Mesq.word("kind", record.kind) : "" }),
        el("span", { class: "action", title: change.operation || "", text: change.action ? Mesq.word("action", change.action) : (change.operation || "") }),
        el("span", { class: "actor", text: who }), el("time", { datetime: change.at || "", text: change.at ? Mesq.when(change.at) : "" })]),
      diff(change), el("div", { class: "row" }, [undo]), status
    ]);
  }
  Mesq.start(function (envelope) {
    if (envelope.error) { Mesq.show(el("p", { class: "error", role: "alert", text: Mesq.failure(envelope.error) })); return; }
    var data = envelope.data || {}, changes = data.changes || (data.undone ? [] : []);
    if (data.undone) {
      Mesq.show(el("div", {}, [el("h1", { text: t("changes") }), el("p", { text: t("undone") + t("colon") + data.undone.length + t("comma") + t("notUndone") + t("colon") + (data.notUndone || []).length })]));
      return;
    }
    Mesq.show(el("div", {}, [el("h1", { text: t("changes") }),
      changes.length ? el("ul", { class: "changes" }, changes.map(item)) : el("p", { class: "muted", text: t("empty") })]));
  });
})();
