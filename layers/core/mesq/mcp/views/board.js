/* Board view (list_todos): spaces, their open columns and cards (due, priority, tags).
   Drag a card to another column, or pick the column in its "Move to" list (the same move by
   keyboard, screen reader or a finger that cannot drag) -> tools/call move_todo_task; Complete ->
   complete_todo_task; then the board is read again with list_todos (the model's own arguments),
   all through the host. */
(function () {
  var el = Mesq.el, t = Mesq.t, dragged = null;
  function reload(note) {
    return Mesq.callTool("list_todos", Mesq.toolInput()).then(function (fresh) { draw(fresh, note); });
  }
  function move(task, columnId) {
    return Mesq.callTool("move_todo_task", { id: task.id, expectedRevision: task.revision, columnId: columnId })
      .then(function (res) { return reload(res.error ? Mesq.failure(res.error) : t("moved")); });
  }
  /* The card's own column is chosen; picking another one moves the card there. */
  function mover(task, columns) {
    var label = t("moveTo") + " " + task.title;
    var select = el("select", { "aria-label": label, title: label }, columns.map(function (col) {
      var option = el("option", { value: col.id, text: col.name });
      if (col.id === task.columnId) option.selected = true;
      return option;
    }));
    select.addEventListener("change", function () {
      if (select.value === task.columnId) return;
      select.disabled = true;
      move(task, select.value);
    });
    return el("label", { class: "move" }, [el("span", { text: t("moveTo") }), select]);
  }
  function card(task, columns) {
    var meta = el("div", { class: "meta" }, [
      task.due ? el("span", { class: "due", text: t("due") + " " + Mesq.when(task.due, task.timezone, true) }) : null,
      task.priority && task.priority !== "none" ? el("span", { class: "priority", text: t("priority") + " " + Mesq.word("priority", task.priority) }) : null,
      task.done ? el("span", { text: t("done") }) : null
    ]);
    var tags = el("div", { class: "tags" }, (task.tags || []).map(function (tag) { return el("span", { class: "tag", text: "#" + tag }); }));
    var complete = el("button", { type: "button", text: t("complete") });
    if (task.done) complete.disabled = true;
    complete.addEventListener("click", function () {
      complete.disabled = true;
      Mesq.callTool("complete_todo_task", { id: task.id, expectedRevision: task.revision }).then(function (res) { reload(res.error ? Mesq.failure(res.error) : null); });
    });
    var item = el("li", { class: "task" + (task.done ? " done" : ""), draggable: "true", tabindex: "0", "data-task-id": task.id }, [
      el("div", { class: "title", text: task.title }), meta, tags,
      el("div", { class: "row" }, [complete, columns.length > 1 && !task.done ? mover(task, columns) : null])
    ]);
    item.addEventListener("dragstart", function (event) {
      dragged = task;
      event.dataTransfer.setData("text/plain", task.id);
      event.dataTransfer.effectAllowed = "move";
    });
    return item;
  }
  function column(col, tasks, columns) {
    var list = el("ul", { class: "cards", "aria-label": col.name }, tasks.map(function (task) { return card(task, columns); }));
    var box = el("section", { class: "column", "data-column-id": col.id }, [el("h2", { text: col.name }), list]);
    box.addEventListener("dragover", function (event) { event.preventDefault(); box.classList.add("over"); });
    box.addEventListener("dragleave", function () { box.classList.remove("over"); });
    box.addEventListener("drop", function (event) {
      event.preventDefault();
      box.classList.remove("over");
      var task = dragged;
      dragged = null;
      if (!task || task.columnId === col.id) return;
      move(task, col.id);
    });
    return box;
  }
  function draw(envelope, note) {
    if (envelope.error) { Mesq.show(el("p", { class: "error", role: "alert", text: Mesq.failure(envelope.error) })); return; }
    var data = envelope.data || {};
    var root = el("div", {}, [el("h1", { text: t("board") })]);
    if (note) root.appendChild(el("p", { class: "muted", role: "status", text: note }));
    (data.spaces || []).forEach(function (space) {
      var cols = (data.columns || []).filter(function (c) { return c.spaceId === space.id && !c.archived; })
        .sort(function (a, b) { return a.position < b.position ? -1 : a.position > b.position ? 1 : 0; });
      var board = el("div", { class: "board" }, cols.map(function (col) {
        return column(col, (data.tasks || []).filter(function (task) { return task.columnId === col.id && !task.parentId; }), cols);
      }));
      root.appendChild(el("section", { "aria-label": space.name }, [el("h2", { text: space.name }), board]));
    });
    if ((data.inboxItems || []).length) {
      root.appendChild(el("section", { class: "column" }, [el("h2", { text: t("inbox") }),
        el("ul", { class: "cards" }, data.inboxItems.map(function (item) { return el("li", { class: "task", text: item.title }); }))]));
    }
    if (!(data.spaces || []).length && !(data.inboxItems || []).length) root.appendChild(el("p", { class: "muted", text: t("empty") }));
    if (data.page && data.page.hasMore) root.appendChild(el("p", { class: "muted more", text: t("more") }));
    Mesq.show(root);
  }
  Mesq.start(function (envelope) { draw(envelope, null); });
})();
